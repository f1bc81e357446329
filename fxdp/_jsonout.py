"""JSON-ready values for the command line's --json output and the demo report (stable keys:
docs/cli.md).  Fractions become strings ("3/4"), infinities the strings "inf"/"-inf" (JSON
has no infinity), numpy scalars Python numbers."""
from __future__ import annotations

import math
from fractions import Fraction


def jsonable(x):
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if hasattr(x, "item"):
        return x.item()
    return x
