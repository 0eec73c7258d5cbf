"""How the library writes a signed number: one rule for every page, table and figure.

A difference such as "deeper minus one layer" is printed with its sign, because the sign is the
direction. A value that rounds to zero has no direction, so it prints as ``+0.000`` and never as
``-0.000`` (which Python's ``f"{-0.0001:+.3f}"`` gives, and a reader would take as "worse").
"""

from __future__ import annotations


def fmt_signed(value: float, digits: int = 3) -> str:
    """``+0.012`` or ``-0.004``: a signed difference; a value that rounds to zero prints as
    ``+0.000``, never ``-0.000`` (a reader would take the sign as a direction).

    >>> fmt_signed(-0.0001), fmt_signed(-0.0123), fmt_signed(0.00004, digits=4)
    ('+0.000', '-0.012', '+0.0000')
    """
    return f"{round(value, digits) + 0.0:+.{digits}f}"
