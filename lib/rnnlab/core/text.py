"""How the library writes a signed number: one rule for every page, table and figure.

A difference such as "deeper minus one layer" is printed with its sign, because the sign is the
direction. A value that rounds to zero has no direction, so it prints as ``+0.000`` and never as
``-0.000`` (which Python's ``f"{-0.0001:+.3f}"`` gives, and a reader would take as "worse").
"""

from __future__ import annotations


def fmt_signed(value: float, digits: int = 3, *, percent: bool = False) -> str:
    """``+0.012`` or ``-0.004``: a signed difference; a value that rounds to zero prints as
    ``+0.000``, never ``-0.000`` (a reader would take the sign as a direction).

    With ``percent=True`` the value is a fraction written as a percentage, as Python's
    ``:+.3%`` would write it (times 100, with a ``%`` sign), under the same rule for zero.

    >>> fmt_signed(-0.0001), fmt_signed(-0.0123), fmt_signed(0.00004, digits=4)
    ('+0.000', '-0.012', '+0.0000')
    >>> fmt_signed(-0.00001, 2, percent=True), fmt_signed(-0.0123, 1, percent=True)
    ('+0.00%', '-1.2%')
    """
    if percent:
        return f"{round(100 * value, digits) + 0.0:+.{digits}f}%"
    return f"{round(value, digits) + 0.0:+.{digits}f}"
