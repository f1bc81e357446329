"""The host C library (csrc/) through cffi: ``ffi``, ``lib`` and thin numpy helpers.

Loading
-------
The compiled module ``fxdp._fxdp_c`` is imported lazily, on first use of
``ffi``, ``lib`` or any helper here.

* ``pip install .`` builds it (setup.py, ``fxdp/_cffi_build.py``) and ships
  the C sources inside the package at ``fxdp/csrc/``.
* If the module is missing (e.g. running from a source checkout that was
  never built) or was built from C sources other than the ones now present
  (its embedded source hash differs), it is **built on first use** with
  ``ffibuilder.compile`` into a cache directory, ``$FXDP_CACHE_DIR`` if set,
  else ``~/.cache/fxdp/``, in a subdirectory named by the source hash and the
  interpreter, and loaded from there.  This takes a few seconds once; later
  runs (and other processes) reuse it; only the 8 newest builds are kept.
  A C compiler is needed for that.

Shared state with Numba
-----------------------
``fxdp_rng`` begins with FXDP_RNG_SHARED_WORDS (34) uint32 words that the
Numba kernels keep in a uint32 array with the same layout.
``rng_from_state_array(arr)`` views such an array (of at least
``state_words_needed()`` words, 8-byte aligned; ``new_state_array()`` makes
one) as an ``fxdp_rng *``, so C and Numba draw from one state.

Errors
------
The bulk helpers validate their parameters in Python (``ValueError`` naming
the parameter and its range) and turn C status codes into ``EntropyError``,
``RangeError`` or ``ValueError``.  On any error no output is returned (a
partial array is never released).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import sysconfig
import tempfile
import threading
import weakref
from pathlib import Path

import numpy as np

from .errors import raise_for_status

__all__ = [
    "ffi", "lib", "load", "cache_dir", "state_words_needed", "new_state_array",
    "new_rng_seeded", "new_rng_keyed", "new_rng_replay", "new_rng_hook", "new_rng_drbg", "new_health", "new_rng_drbg_health",
    "rng_from_state_array", "state_words", "bits_used",
    "bits", "bits64", "uniform_below", "uniform_below_u32", "uniform_below_ct", "bernoulli_dyadic", "bernoulli_dyadic_ct", "bernoulli_block",
    "bernoulli_rational", "bernoulli_exp", "discrete_laplace", "discrete_laplace_censored",
    "table_sample_ct",
]

MODULE_NAME = "fxdp._fxdp_c"
SHARED_WORDS = 34
U32, U64 = (1 << 32) - 1, (1 << 64) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

_lock = threading.Lock()
_mod = None
_keepalive = weakref.WeakKeyDictionary()   # rng cdata -> objects its C state points to


def cache_dir():
    """Where on-demand builds go: $FXDP_CACHE_DIR, else ~/.cache/fxdp."""
    env = os.environ.get("FXDP_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "fxdp"


def _current_source_hash():
    """Hash of the C sources visible now, or None if there are none."""
    from . import _cffi_build as cb
    try:
        return cb.source_hash(cb.find_csrc())
    except (FileNotFoundError, OSError):
        return None


def _load_file(path):
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules[MODULE_NAME] = mod
    return mod


def _build_cached(src_hash):
    """Build the module into the cache (once per source hash and interpreter) and load it."""
    from . import _cffi_build as cb
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target_dir = cache_dir() / f"{src_hash}-{sys.implementation.cache_tag}"
    target = target_dir / ("_fxdp_c" + suffix)
    if not target.exists():
        target_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target_dir, prefix="build-") as tmp:
            built = cb.make_ffibuilder().compile(tmpdir=tmp, verbose=False)
            os.replace(built, target)            # atomic: concurrent builders are harmless
        _prune_cache(target_dir)
    return _load_file(str(target))


def _prune_cache(current, keep=8):
    """Drop all but the `keep` newest builds for this interpreter (sources change often in a checkout)."""
    try:
        tag = sys.implementation.cache_tag
        dirs = sorted((d for d in current.parent.glob(f"*-{tag}") if d.is_dir() and d != current),
                      key=lambda d: d.stat().st_mtime, reverse=True)
        for d in dirs[keep - 1:]:
            shutil.rmtree(d, ignore_errors=True)
    except OSError:
        pass


def load():
    """Import (building if needed, see the module docstring) and return the cffi module."""
    global _mod
    if _mod is not None:
        return _mod
    with _lock:
        if _mod is not None:
            return _mod
        mod = None
        try:
            from . import _fxdp_c as mod  # noqa: F811
        except ImportError:
            mod = None
        src_hash = _current_source_hash()
        if mod is not None and src_hash is not None and hasattr(mod.lib, "fxdp_py_source_hash"):
            built_hash = mod.ffi.string(mod.lib.fxdp_py_source_hash()).decode()
            if built_hash != src_hash:
                sys.modules.pop(MODULE_NAME, None)
                mod = None                       # stale build: rebuild from the current sources
        if mod is None:
            if src_hash is None:
                raise ImportError("fxdp._fxdp_c is not built and no C sources were found to build it")
            mod = _build_cached(src_hash)
        _init_callbacks(mod)
        _mod = mod
        return mod


def __getattr__(name):  # lazy module attributes ffi, lib
    if name == "ffi":
        return load().ffi
    if name == "lib":
        return load().lib
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---- entropy hook callback ------------------------------------------------

def _init_callbacks(mod):
    ffi = mod.ffi

    @ffi.def_extern(name="_fxdp_py_fill")
    def _fill(ctx, out, n):
        try:
            data = ffi.from_handle(ctx)(int(n))
            data = bytes(data)
            if len(data) != n:
                return 1
            ffi.memmove(out, data, n)
            return 0
        except Exception:  # noqa: BLE001 - any failure of the Python source is an entropy failure
            return 1


# ---- rng construction -------------------------------------------------------

def _check_int(name, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
    value = int(value)
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be in [{lo}, {hi}], got {value}")
    return value


def state_words_needed():
    """uint32 words a state array needs to hold a whole fxdp_rng (38 on 64-bit hosts)."""
    ffi = load().ffi
    return -(-ffi.sizeof("fxdp_rng") // 4)


def new_state_array():
    """A zeroed, 8-byte aligned uint32 array of state_words_needed() words."""
    n = state_words_needed()
    return np.zeros((n + 1) // 2, dtype=np.uint64).view(np.uint32)[:n]


def new_rng_seeded(seed, device_id=0, stream=0):
    """A new ``fxdp_rng *`` on the keyed stream of (seed, device_id, stream) (docs/bitstream.md);
    seed an int (stream version 2) or a bitsource.Seed (its version)."""
    from .bitsource import seed_parts
    mod = load()
    seed, version = seed_parts(seed)
    device_id = _check_int("device_id", device_id, 0, U64)
    stream = _check_int("stream", stream, 0, U32)
    r = mod.ffi.new("fxdp_rng *")
    key = mod.ffi.new("uint32_t[8]", [(seed >> (32 * i)) & U32 for i in range(8)])
    mod.lib.fxdp_rng_init_stream(r, version, key, device_id & U32, device_id >> 32, stream)
    return r


def new_rng_keyed(key, nonce, version=1):
    """A new ``fxdp_rng *`` on the ChaCha20 stream of 8 key words and 3 nonce words (stream
    version 1, the plain keystream, unless version=2: fast key erasure)."""
    from .bitsource import check_stream_version
    mod = load()
    key = [_check_int("key word", w, 0, U32) for w in key]
    nonce = [_check_int("nonce word", w, 0, U32) for w in nonce]
    if len(key) != 8 or len(nonce) != 3:
        raise ValueError("key must have 8 words and nonce 3 words")
    check_stream_version(version)
    r = mod.ffi.new("fxdp_rng *")
    mod.lib.fxdp_rng_init_keyed_version(r, version, mod.ffi.new("uint32_t[8]", key),
                                        mod.ffi.new("uint32_t[3]", nonce))
    return r


def new_rng_replay(words):
    """A new ``fxdp_rng *`` serving the given (at most 16) words, then failing."""
    mod = load()
    words = [_check_int("word", w, 0, U32) for w in words]
    if len(words) > 16:
        raise ValueError(f"replay holds at most 16 words, got {len(words)}")
    r = mod.ffi.new("fxdp_rng *")
    st = mod.lib.fxdp_rng_init_replay(r, mod.ffi.new("uint32_t[]", words or [0]), len(words))
    raise_for_status(st, "fxdp_rng_init_replay")
    return r


def _hook_rng(fill, drbg):
    mod = load()
    if not callable(fill):
        raise ValueError("fill must be a callable n -> bytes of length n")
    r = mod.ffi.new("fxdp_rng *")
    handle = mod.ffi.new_handle(fill)
    _keepalive[r] = handle
    if drbg:
        st = mod.lib.fxdp_rng_init_drbg(r, mod.lib._fxdp_py_fill, handle)
        raise_for_status(st, "fxdp_rng_init_drbg")
    else:
        mod.lib.fxdp_rng_init_hook(r, mod.lib._fxdp_py_fill, handle)
    return r


def new_rng_hook(fill):
    """Raw hook mode: each word is 4 bytes of ``fill(4)``, little-endian.  ``fill(n)`` returns n
    bytes; raising or returning a wrong length is an entropy failure (sticky)."""
    return _hook_rng(fill, drbg=False)


def new_rng_drbg(fill):
    """Built-in ChaCha20 DRBG keyed by ``fill(44)`` (32 key bytes, 12 nonce bytes, little-endian
    words).  Raises EntropyError if fill fails."""
    return _hook_rng(fill, drbg=True)


def new_health(fill, h256, apt_cutoff=None):
    """``(status, fxdp_health *)``: fxdp_health_init over the Python source ``fill(n) -> bytes`` (a
    raising or short ``fill`` is a board failure), with the stated min-entropy h256/256 bit per byte and
    the adaptive proportion cut-off (default: fxdp.health.apt_cutoff(h256), computed exactly).  status
    is FXDP_ERR_ENTROPY when the start-up test failed.  Pass ``(lib.fxdp_health_fill, hc)`` as the fill
    hook of fxdp_rng_init_drbg / init_hook (or use new_rng_drbg_health)."""
    from . import health
    mod = load()
    if not callable(fill):
        raise ValueError("fill must be a callable n -> bytes of length n")
    h256 = _check_int("h256", h256, 1, health.H256_MAX)
    apt = health.apt_cutoff(h256) if apt_cutoff is None else _check_int(
        "apt_cutoff", apt_cutoff, 2, health.APT_WINDOW + 1)
    hc = mod.ffi.new("fxdp_health *")
    handle = mod.ffi.new_handle(fill)
    _keepalive[hc] = handle
    st = mod.lib.fxdp_health_init(hc, mod.lib._fxdp_py_fill, handle, h256, apt)
    return st, hc


def new_rng_drbg_health(hc):
    """The ChaCha20 DRBG keyed from fill through the health tests of ``hc`` (from new_health).
    Raises EntropyError if a test or the source failed (the rng is then dead)."""
    mod = load()
    r = mod.ffi.new("fxdp_rng *")
    _keepalive[r] = hc
    st = mod.lib.fxdp_rng_init_drbg(r, mod.lib.fxdp_health_fill, hc)
    raise_for_status(st, "fxdp_rng_init_drbg (health-tested)")
    return r


def rng_from_state_array(arr):
    """View a uint32 numpy state array (the Numba layout) as ``fxdp_rng *`` sharing its memory.

    The array must be C-contiguous, writable, 8-byte aligned and hold at least
    state_words_needed() words (the words after the first 34 hold the hook
    pointers; keep them zero).  The returned cdata keeps the array alive.
    """
    ffi = load().ffi
    if not isinstance(arr, np.ndarray) or arr.dtype != np.uint32 or arr.ndim != 1:
        raise ValueError("state array must be a 1-d numpy uint32 array")
    need = state_words_needed()
    if arr.shape[0] < need:
        raise ValueError(f"state array must hold at least {need} uint32 words, got {arr.shape[0]}")
    if not arr.flags.c_contiguous or not arr.flags.writeable:
        raise ValueError("state array must be C-contiguous and writable")
    if arr.ctypes.data % ffi.alignof("fxdp_rng") != 0:
        raise ValueError(f"state array must be {ffi.alignof('fxdp_rng')}-byte aligned (use new_state_array())")
    return ffi.from_buffer("fxdp_rng *", arr, require_writable=True)


def state_words(rng):
    """Copy of the first 34 (shared) state words as a numpy uint32 array."""
    ffi = load().ffi
    return np.frombuffer(ffi.buffer(rng, 4 * SHARED_WORDS), dtype=np.uint32).copy()


def bits_used(rng):
    """Stream bits consumed so far by a keyed rng started at counter 0 (16 output words per block
    under stream version 1, 8 under version 2, FXDP_MODE_CHACHA_FKE)."""
    per_block = 256 if rng.mode == load().lib.FXDP_MODE_CHACHA_FKE else 512
    return rng.counter * per_block - (16 - rng.word_pos) * 32 - rng.bitcount


# ---- bulk draws ----------------------------------------------------------------

def _count(count):
    return _check_int("count", count, 0, sys.maxsize)


def _run(fn_name, rng, args, dtype, count):
    mod = load()
    count = _count(count)
    out = np.empty(count, dtype=dtype)
    produced = mod.ffi.new("size_t *")
    ptr = mod.ffi.from_buffer(_CTYPES[dtype], out, require_writable=True) if count else mod.ffi.NULL
    st = getattr(mod.lib, fn_name)(rng, *args, ptr, count, produced)
    raise_for_status(st, fn_name)
    return out


_CTYPES = {np.uint8: "uint8_t[]", np.uint32: "uint32_t[]", np.uint64: "uint64_t[]", np.int64: "int64_t[]"}


def bits(rng, n, count):
    """count draws of fxdp_bits(n), n in [0, 32] -> uint32 array."""
    return _run("fxdp_fill_bits", rng, (_check_int("n", n, 0, 32),), np.uint32, count)


def bits64(rng, n, count):
    """count draws of fxdp_bits64(n), n in [0, 64] -> uint64 array."""
    return _run("fxdp_fill_bits64", rng, (_check_int("n", n, 0, 64),), np.uint64, count)


def uniform_below(rng, n, count):
    """count draws uniform on {0..n-1}, n in [1, 2^64 - 1] (fxdp_uniform_below_u64) -> uint64 array."""
    return _run("fxdp_fill_uniform_below_u64", rng, (_check_int("n", n, 1, U64),), np.uint64, count)


def uniform_below_u32(rng, n, count):
    """count draws uniform on {0..n-1}, n in [1, 2^32 - 1] (fxdp_uniform_below_u32) -> uint32 array."""
    return _run("fxdp_fill_uniform_below_u32", rng, (_check_int("n", n, 1, U32),), np.uint32, count)


def uniform_below_ct(rng, n, count):
    """count constant-time draws uniform on {0..n-1}, n in [1, 2^32 - 1] (fxdp_uniform_below_ct_u32:
    exactly 32 * FXDP_UNIFORM_CT_ROUNDS bits each) -> uint32 array; RangeError if a budget ran out."""
    return _run("fxdp_fill_uniform_below_ct_u32", rng, (_check_int("n", n, 1, U32),), np.uint32, count)


def _dyadic_args(a, k):
    k = _check_int("k", k, 0, 63)
    return _check_int("a", a, 0, 1 << k), k


def bernoulli_dyadic(rng, a, k, count, constant_time=False):
    """count draws of Bernoulli(a / 2^k), k in [0, 63], a in [0, 2^k] -> uint8 array of 0/1."""
    fn = "fxdp_fill_bernoulli_dyadic_ct" if constant_time else "fxdp_fill_bernoulli_dyadic"
    return _run(fn, rng, _dyadic_args(a, k), np.uint8, count)


def bernoulli_dyadic_ct(rng, a, k, count):
    """Constant-time form of bernoulli_dyadic (exactly k bits per draw)."""
    return bernoulli_dyadic(rng, a, k, count, constant_time=True)


def bernoulli_block(rng, lanes, a_one, a_zero, k, masks, constant_time=False):
    """One fxdp_bernoulli_block(_ct) draw per mask, in order -> uint32 array: bit lanes-1-l of a word is
    lane l ~ Bernoulli(a/2^k), a = a_one where that mask bit is 1, else a_zero.  lanes in [1, 32],
    k in [0, 63], a_one and a_zero in [0, 2^k], each mask in [0, 2^lanes)."""
    mod = load()
    lanes = _check_int("lanes", lanes, 1, mod.lib.FXDP_BLOCK_MAX_LANES)
    k = _check_int("k", k, 0, 63)
    a_one = _check_int("a_one", a_one, 0, 1 << k)
    a_zero = _check_int("a_zero", a_zero, 0, 1 << k)
    masks = [_check_int("mask", m, 0, (1 << lanes) - 1) for m in masks]
    fn = mod.lib.fxdp_bernoulli_block_ct if constant_time else mod.lib.fxdp_bernoulli_block
    out = np.empty(len(masks), np.uint32)
    word = mod.ffi.new("uint32_t *")
    for i, m in enumerate(masks):
        st = fn(rng, lanes, a_one, a_zero, k, m, word)
        raise_for_status(st, "fxdp_bernoulli_block" + ("_ct" if constant_time else ""))
        out[i] = word[0]
    return out


def bernoulli_rational(rng, n, d, count):
    """count draws of Bernoulli(n / d), d in [1, 2^64 - 1], n in [0, d] -> uint8 array."""
    d = _check_int("d", d, 1, U64)
    return _run("fxdp_fill_bernoulli_rational", rng, (_check_int("n", n, 0, d), d), np.uint8, count)


def bernoulli_exp(rng, n, d, count):
    """count draws of Bernoulli(exp(-n / d)), n in [0, 2^32 - 1], d in [1, 2^32 - 1] -> uint8 array."""
    return _run("fxdp_fill_bernoulli_exp", rng, (_check_int("n", n, 0, U32), _check_int("d", d, 1, U32)),
                np.uint8, count)


def discrete_laplace(rng, s, t, count):
    """count discrete Laplace draws, P(z) ~ exp(-|z| s / t), s, t in [1, 2^32 - 1] -> int64 array."""
    return _run("fxdp_fill_discrete_laplace", rng, (_check_int("s", s, 1, U32), _check_int("t", t, 1, U32)),
                np.int64, count)


def discrete_laplace_censored(rng, s, t, lo, hi, count):
    """discrete_laplace saturated to [lo, hi] (int64, lo <= hi) -> int64 array."""
    s, t = _check_int("s", s, 1, U32), _check_int("t", t, 1, U32)
    lo = _check_int("lo", lo, I64_MIN, I64_MAX)
    hi = _check_int("hi", hi, lo, I64_MAX)
    return _run("fxdp_fill_discrete_laplace_censored", rng, (s, t, lo, hi), np.int64, count)


def table_sample_ct(rng, thresholds, k, count):
    """count constant-time table draws (k in [1, 32]; thresholds strictly increasing, each < 2^k,
    checked here in Python) -> uint32 array of indices in [0, len(thresholds)]."""
    k = _check_int("k", k, 1, 32)
    thr = [_check_int("thresholds entry", c, 0, (1 << k) - 1) for c in thresholds]
    if any(b <= a for a, b in zip(thr, thr[1:])):
        raise ValueError("thresholds must be strictly increasing")
    thr32 = np.array(thr, dtype=np.uint32)
    mod = load()
    ptr = mod.ffi.from_buffer("uint32_t[]", thr32) if len(thr32) else mod.ffi.NULL
    return _run("fxdp_fill_table_sample_ct", rng, (ptr, len(thr32), k), np.uint32, count)
