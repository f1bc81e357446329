"""Exceptions shared by every layer (and status codes mirrored from csrc/fxdp.h)."""


class EntropyError(RuntimeError):
    """The random-bit source failed (OS entropy error, board hook failure, stream exhausted).

    After this is raised no sample and no partial output is released.
    """


class RangeError(ArithmeticError, ValueError):
    """A fixed-point value or result does not fit its format and saturation was not asked for."""


# C status codes (csrc/fxdp.h `fxdp_status`); the Numba kernels return the same codes.
OK = 0
ERR_PARAM = 1
ERR_ENTROPY = 2
ERR_RANGE = 3

STATUS_NAMES = {OK: "FXDP_OK", ERR_PARAM: "FXDP_ERR_PARAM",
                ERR_ENTROPY: "FXDP_ERR_ENTROPY", ERR_RANGE: "FXDP_ERR_RANGE"}


def raise_for_status(status, what="sampler"):
    """Turn a C/Numba status code into the Python exception users expect."""
    if status == OK:
        return
    if status == ERR_ENTROPY:
        raise EntropyError(f"{what}: random-bit source failed; nothing was released")
    if status == ERR_RANGE:
        raise RangeError(f"{what}: result out of range")
    if status == ERR_PARAM:
        raise ValueError(f"{what}: invalid parameter")
    raise RuntimeError(f"{what}: unknown status {status}")
