"""Layer 2, Numba: the decorators of every kernel, and the integer-only check they compile with.

Numba silently promotes a uint64 mixed with a signed integer to float64 (``x < y`` with x uint64
and y int64 compares two doubles; ``x // y`` divides them), which breaks exactness above 2^53.
So every kernel on a sampling path is compiled by ``IntegerOnlyCompiler``: Numba's nopython
pipeline with one analysis pass after type inference, which refuses to compile (``FloatInKernel``)
a function with a float or complex type among its variables (those of every IR-inlined helper
included: they are typed inside their caller), its call signatures or its return type.  The pass
only reads the types, so the machine code is the default pipeline's.  It runs at every compile, of
every signature a kernel is ever called with; a kernel that Numba loads from its cache passed it
when it was compiled, from the same sources (``fxdp/_numba_cache.py`` drops kernels compiled from
other sources).

The decorators:

* ``jit``: a compiled function called from other kernels or from Python; no reference counting
  (the kernels never allocate; NRT's atomic increfs on the state array cost 3x in throughput);
* ``ijit``: a small hot helper inlined at Numba-IR level (LLVM never inlines a call between two
  compiled functions);
* ``jit_nrt``: a kernel that allocates;
* ``pjit``: a parallel fleet kernel (``numba.prange``);
* ``float_jit``, ``float_pjit`` (parallel): off the sampling path only (a synthetic population's
  inverse-CDF draw, a measurement sweep against float64 with a stated margin): Numba's own
  pipeline, floats allowed.  Each use says why it is off the path, and tests/test_numba_types.py
  names every one.
"""
from __future__ import annotations

import numba
from numba.core import types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import AnalysisPass, register_pass
from numba.core.typed_passes import NopythonTypeInference


class FloatInKernel(TypeError):
    """A kernel compiled with IntegerOnlyCompiler was typed with a float or complex type."""


def is_float_type(t) -> bool:
    """True for a float or complex Numba type, or a tuple, array or optional holding one."""
    if isinstance(t, (types.Float, types.Complex)):
        return True
    if isinstance(t, types.BaseTuple):
        return any(is_float_type(x) for x in t.types)
    if isinstance(t, types.Array):
        return is_float_type(t.dtype)
    if isinstance(t, types.Optional):
        return is_float_type(t.type)
    return False


def float_uses(typemap, calltypes, return_type) -> list[str]:
    """Every float-typed variable, call signature and return type of one typed function."""
    bad = [f"{name}: {t}" for name, t in typemap.items() if is_float_type(t)]
    for sig in calltypes.values():
        if sig is not None and (any(is_float_type(a) for a in sig.args) or is_float_type(sig.return_type)):
            bad.append(f"call {sig}")
    if is_float_type(return_type):
        bad.append(f"return {return_type}")
    return bad


@register_pass(mutates_CFG=False, analysis_only=True)
class IntegerOnlyCheck(AnalysisPass):
    """Refuses a function typed with any float or complex type (see the module docstring)."""
    _name = "fxdp_integer_only_check"

    def __init__(self):
        AnalysisPass.__init__(self)

    def run_pass(self, state):
        bad = float_uses(state.typemap, state.calltypes, state.return_type)
        if bad:
            fid = state.func_id
            shown = "; ".join(bad[:8]) + (f"; ... ({len(bad)} in all)" if len(bad) > 8 else "")
            raise FloatInKernel(f"{fid.func_qualname} ({fid.filename}:{fid.firstlineno}) is an integer-only "
                                f"kernel but was typed with floating point at args {tuple(state.args)}: {shown}")
        return False


class IntegerOnlyCompiler(CompilerBase):
    """Numba's nopython pipeline with IntegerOnlyCheck right after type inference."""

    def define_pipelines(self):
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.add_pass_after(IntegerOnlyCheck, NopythonTypeInference)
        pm.finalize()
        return [pm]


jit = numba.njit(cache=True, nogil=True, _nrt=False, pipeline_class=IntegerOnlyCompiler)
ijit = numba.njit(cache=True, nogil=True, _nrt=False, inline="always", pipeline_class=IntegerOnlyCompiler)
jit_nrt = numba.njit(cache=True, nogil=True, pipeline_class=IntegerOnlyCompiler)
pjit = numba.njit(cache=True, nogil=True, parallel=True, pipeline_class=IntegerOnlyCompiler)
float_jit = numba.njit(cache=True, nogil=True)
float_pjit = numba.njit(cache=True, nogil=True, parallel=True)

__all__ = ["jit", "ijit", "jit_nrt", "pjit", "float_jit", "float_pjit", "IntegerOnlyCompiler", "IntegerOnlyCheck",
           "FloatInKernel", "float_uses", "is_float_type"]
