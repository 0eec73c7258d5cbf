// The parameter explorer's closed forms (mirror rnnlab.core.params; tests/test_widgets.py runs
// them in Node.js). Inserted into explorer.js at __MATH__.
function lstm(m, d, L) { return 4 * (d * m + (2 * L - 1) * d * d + 2 * L * d); }
function textbook(m, d, L) { return 4 * (d * m + (2 * L - 1) * d * d + L * d); }
function matched(B, m, L) {
  var a = 4 * (2 * L - 1), b = 4 * (m + 2 * L);
  function count(w) { return (a * w + b) * w; }
  if (B < count(1)) { return null; }
  var disc = b * b + 4 * a * B;
  var lo = Math.max(1, Math.floor((Math.floor(Math.sqrt(disc)) - b) / (2 * a)));
  while (lo > 1 && count(lo) > B) { lo -= 1; }
  while (count(lo + 1) <= B) { lo += 1; }
  var below = count(lo), above = count(lo + 1);
  var width = (B - below <= above - B) ? lo : lo + 1;
  var total = count(width);
  return {width: width, count: total, error: (total - B) / B,
          root: 2 * B / (b + Math.sqrt(disc))};
}
