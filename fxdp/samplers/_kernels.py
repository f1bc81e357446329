"""Layer 2 (with the bit source's kernels of layer 1), Numba kernels: the fast path and the fleet simulator.

Every kernel reads exactly the bits that ``fxdp.samplers.reference`` reads, in
the same order, from the stream that ``fxdp.bitsource`` defines; the parity
and enumeration tests (tests/test_numba_*.py, tests/test_enumeration.py) hold
them to it bit for bit.  Integers only: no floating point anywhere
(tests/test_numba_types.py re-types every kernel and fails on any float).

Modules
-------
This module is the interface: it documents the conventions, re-exports every
kernel, helper and constant, and holds ``SAMPLERS``, ``PARAM_TYPES`` and
``typed_params``; import from here.  The code lives in

* ``_nb_core``: state layout, status codes, compilation modes, the Python
  state helpers, ChaCha20, the buffered bit reader and fleet seeding;
* ``_nb_lanes``: the multi-lane ChaCha20 that computes the first keystream
  block of LANES fleet devices at once, the lane-seeded device state and the
  fast start (a device on its first block's words, restarted when it needs more);
* ``_nb_drivers``: the generic single-draw / fill / fleet drivers, which take
  the sampler's ``_rd_<x>`` reader as a first-class function (and why they are
  not a closure factory);
* ``_nb_uniform``: bits, ``uniform_below``, the Bernoulli dyadic / rational
  samplers and ``table_sample_ct``;
* ``_nb_laplace``: ``bernoulli_exp``, the geometric lookahead table and
  ``discrete_laplace`` (censored too).

State
-----
The bit-source state is a ``np.uint32`` array of ``STATE_WORDS`` (38) words.
Words 0..33 have exactly the layout of ``fxdp_rng`` in csrc/fxdp.h::

    key[0..8) nonce[8..11) counter 11 block[12..28) word_pos 28
    bitbuf 29 bitcount 30 mode 31 status 32 block_len 33

Words 34..37 stand for the two pointer fields of the C struct on 64-bit hosts
(so cffi can cast the same memory to ``fxdp_rng *``); the kernels never touch
them and ``new_state`` leaves them zero.  ``bitbuf`` holds the ``bitcount``
unconsumed low bits of the current word, right-aligned, with every bit above
them zero (0 <= bitcount <= 31).  ``mode`` 0 is the keyed ChaCha20 stream, 1
replay (the words in block[0..block_len), then failure); 2 (board hook) is C
only: a kernel that needs a word in hook mode fails with ERR_ENTROPY.

Return convention
-----------------
Every sampler kernel returns ``(status, value)``; ``status`` is an int64 from
``fxdp.errors`` (OK 0, ERR_PARAM 1, ERR_ENTROPY 2, ERR_RANGE 3) and on any
nonzero status ``value`` is 0 (False).  Value types: ``bits``, ``bits64``,
``uniform_below`` -> uint64; Bernoulli kernels -> bool; ``discrete_laplace*``
and ``table_sample_ct`` -> int64.

* ERR_ENTROPY is sticky: the first failed word fetch (exhausted replay,
  keystream counter 0xFFFFFFFF, hook mode) stores it in ``state[STATUS]``;
  every later call on that state returns it without reading anything.
* ERR_PARAM (parameter outside the reference's documented range) is checked
  before any bit is read and leaves the state untouched.
* ERR_RANGE (a result that does not fit: ``discrete_laplace`` with
  U + t V >= 2^64 or |Z| >= 2^63, checked before the sign bit is read;
  ``bernoulli_exp`` with d K >= 2^64; each of probability below 2^-(2^31))
  is returned for that call only; the bits it read stay consumed and the
  state stays usable.  Same conditions and bit use as the C library.

Bulk kernels
------------
``fill_<sampler>(state, params..., out)`` draws ``len(out)`` samples into
``out`` and returns ``(status, count_done)``; on a nonzero status only
``out[:count_done]`` was written.

``fleet_<sampler>(seed_key_words, device_ids, stream, params...,
draws_per_device, out, status_out)`` runs one independent keyed stream per
device in parallel (``numba.prange``): device i uses key = seed_key_words,
nonce = (device_ids[i] low, high, stream), exactly the stream of
``seed_state(state, seed, device_ids[i], stream)``; it fills
``out[i, :draws_per_device]`` and sets ``status_out[i]`` (entries after a
failure are not written).  The per-device body is ``_device_state`` + the
sampler's ``fill`` on the row, so mechanisms can reuse the pattern.

Arguments: pass parameters as numpy scalars of the types in ``PARAM_TYPES``
(``typed_params(name, params)`` converts), so that each kernel has one
compiled specialization and integers >= 2^63 are not squeezed into an int64
signature.

Building blocks for mechanism kernels (stable; fxdp/mechanisms uses them)
------------------------------------------------------------------------
* ``_load(state) -> (buf, c)`` and ``_store(state, buf, c)``: the bit buffer
  as two uint64 locals;
* ``_rd_<x>(state, buf, c, params...) -> (status, value, buf, c)`` for
  ``bits``, ``bits64``, ``uniform_below``, ``uniform_below_ct``, ``dyadic``, ``dyadic_odd``,
  ``dyadic_ct``, ``rational``, ``exp_le1``, ``exp``, ``geometric_e1``, ``laplace``,
  ``laplace_censored``, ``table``: typed (uint64 / int64), already validated
  parameters, no sticky-status check (do it once per release);
* ``_device_state(key_words, device_id, stream)`` (allocates; NRT) and
  ``_seed_into(state, ...)``; ``_block_core`` (the ChaCha20 block as a tuple);
* the generic drivers ``_draw<n>``, ``_fill<n>`` (n = 1, 2, 4 reader
  parameters) and ``_fleet`` (``_nb_drivers``): a sampler's single-draw, fill
  and fleet kernels are one call each, e.g. ``fill_discrete_laplace`` is
  ``_fill2(_rd_laplace, state, out, _ok_laplace, (s, t), uint64(s), uint64(t))``.

Nothing here compiles at import time; each kernel compiles (or loads from the
on-disk cache) on its first call.

Speed (2-core AMD EPYC at 2 GHz, shared with other jobs; single thread,
benchmarks/bench_samplers.py): ``fill_bernoulli_dyadic`` about 2.3e8
samples/s for k = 32 and for 3/4 (numpy ``rng.random(n) < p``: 1.6e8/s on the
same machine); ``fill_discrete_laplace`` (s = 1, t = 10) about 7.8e6/s (20
bits per sample); ChaCha20 about 240 ns per 64-byte block, which bounds the
bit-hungry samplers (``bits(32)``, ``bernoulli_dyadic_ct`` k = 32: ~6e7/s).

Integer typing note: Numba promotes a uint64 mixed with a signed integer
(including an int literal) to float64.  Every integer expression is
therefore typed explicitly (``np.uint64`` / ``np.int64`` constants and casts)
in all the ``_nb_*`` modules.
"""
from __future__ import annotations

import numba  # noqa: F401  (re-exported as before the split)
import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros  # noqa: F401

from ..bitsource import derive_key_nonce  # noqa: F401
from ._nb_core import (AHEAD_LEFT, AHEAD_NEXT, MODE_CHACHA_AHEAD, MODE_CHACHA_FKE_AHEAD,
                       BITBUF, BITCOUNT, BLOCK, BLOCK_LEN, COUNTER, ERR_ENTROPY, ERR_PARAM, ERR_RANGE, KEY,
                       LAST_COUNTER, MODE, MODE_CHACHA, MODE_CHACHA_FKE, MODE_HOOK, MODE_REPLAY, NONCE, OK,
                       SHARED_WORDS, STATE_WORDS, STATUS, WORD_POS, _C0, _C1, _C2, _C3, _I0, _I1, _I64MAX_U,
                       _M32, _R12, _R16, _R32, _R7, _R8, _U0, _U1, _U32, _U32MAX, _U63, _U64, _U64MAX, _WIDE,
                       _add, _block_core, _check_state, _device_state, _mode_of_version, fast_key_erasure,
                       seed_parts, _fetch, _in_range, _load, _mask, _neg,
                       _rd_bits, _rd_bits64, _refill, _rotl, _seed_into, _store, bits_used, bits_used_nb,
                       chacha20_block, keyed_state, new_state, prefer_wide_vectors, replay_bits, replay_into,
                       replay_state, seed_key_words, seed_state, status_of)
from ._nb_drivers import FLEET_CHUNK, _draw1, _draw2, _draw4, _fill1, _fill2, _fill4, _fleet
from ._nb_lanes import (LANES, _Z32, _lane_fixed_rows, _lane_fixed_rows_add, _lane_rounds, ahead_blocks, compile_stream_core, fast_bits_used,
                        lane_blocks, lane_blocks_fke, restart_device, seed_device, seed_device_ahead, seed_lane,
                        start_device_fast)
from ._nb_run import _FF, _U8, _rd_dyadic_run, _fill_run_table, dyadic_run_table, run_table
from ._nb_block import BLOCK_MAX_LANES, bernoulli_block, bernoulli_block_ct, fill_bernoulli_block
from ._nb_uniform import (_bit_length, _ok_bits, _ok_bits64, _ok_dyadic, _ok_rational, _ok_table, _ok_uniform,
                          _rd_dyadic, _rd_dyadic_ct, _ok_uniform_ct, _rd_dyadic_odd, _rd_rational, _rd_table,
                          _rd_uniform_below, _rd_uniform_below_ct, _rd_uniform_below_wide, UNIFORM_CT_ROUNDS,
                          _TWO32, _UCT_R, bernoulli_dyadic, bernoulli_dyadic_ct, bernoulli_rational, bits,
                          bits64, fill_bernoulli_dyadic, fill_bernoulli_dyadic_ct, fill_bernoulli_rational,
                          fill_bits, fill_table_sample_ct, fill_uniform_below, fill_uniform_below_ct,
                          fleet_bernoulli_dyadic, fleet_bernoulli_dyadic_ct, fleet_bernoulli_rational,
                          fleet_bits, fleet_table_sample_ct, fleet_uniform_below, fleet_uniform_below_ct,
                          table_sample_ct, uniform_below, uniform_below_ct)
from ._nb_laplace import (GEO_BITS, _GEO_TABLE, _GEO_W, _NeedMore, _PrefixSource, _geometric_table,
                          _ok_bounds, _ok_exp, _ok_laplace, _ok_laplace_censored, _rd_exp, _rd_exp_le1,
                          _rd_geometric_cks, _rd_geometric_e1, _rd_laplace, _rd_laplace_censored,
                          bernoulli_exp, discrete_laplace, discrete_laplace_censored, fill_bernoulli_exp,
                          fill_discrete_laplace, fill_discrete_laplace_censored, fleet_bernoulli_exp,
                          fleet_discrete_laplace, fleet_discrete_laplace_censored)

# name -> (single-draw kernel, fill kernel, fleet kernel); params follow the
# reference's positional order.  PARAM_TYPES gives the canonical argument
# types: pass parameters through ``typed_params`` (a Python int >= 2^63 would
# otherwise be squeezed into an already compiled int64 signature by Numba's
# dispatcher and fail with OverflowError; canonical types also keep each
# kernel to one compiled specialization).
SAMPLERS = {
    "uniform_below": (uniform_below, fill_uniform_below, fleet_uniform_below),
    "uniform_below_ct": (uniform_below_ct, fill_uniform_below_ct, fleet_uniform_below_ct),
    "bernoulli_dyadic": (bernoulli_dyadic, fill_bernoulli_dyadic, fleet_bernoulli_dyadic),
    "bernoulli_dyadic_ct": (bernoulli_dyadic_ct, fill_bernoulli_dyadic_ct, fleet_bernoulli_dyadic_ct),
    "bernoulli_rational": (bernoulli_rational, fill_bernoulli_rational, fleet_bernoulli_rational),
    "bernoulli_exp": (bernoulli_exp, fill_bernoulli_exp, fleet_bernoulli_exp),
    "discrete_laplace": (discrete_laplace, fill_discrete_laplace, fleet_discrete_laplace),
    "discrete_laplace_censored": (discrete_laplace_censored, fill_discrete_laplace_censored,
                                  fleet_discrete_laplace_censored),
    "table_sample_ct": (table_sample_ct, fill_table_sample_ct, fleet_table_sample_ct),
}

_TBL = "table"
PARAM_TYPES = {
    "bits": (np.int64,),
    "bits64": (np.int64,),
    "uniform_below": (np.uint64,),
    "uniform_below_ct": (np.uint64,),
    "bernoulli_dyadic": (np.uint64, np.int64),
    "bernoulli_dyadic_ct": (np.uint64, np.int64),
    "bernoulli_rational": (np.uint64, np.uint64),
    "bernoulli_exp": (np.uint64, np.uint64),
    "discrete_laplace": (np.uint64, np.uint64),
    "discrete_laplace_censored": (np.uint64, np.uint64, np.int64, np.int64),
    "table_sample_ct": (_TBL, np.int64),
}


def typed_params(sampler, params):
    """``params`` (Python ints, lists) as the canonical numpy scalars / uint64 table array.

    Raises ValueError for a value that does not fit its type (the kernels
    then check the sampler's own ranges and return ERR_PARAM)."""
    types = PARAM_TYPES[sampler]
    if len(params) != len(types):
        raise ValueError(f"{sampler} takes {len(types)} parameters, got {len(params)}")
    out = []
    for p, t in zip(params, types):
        if t is _TBL:
            out.append(np.ascontiguousarray(np.asarray(p, dtype=np.uint64)))
            continue
        p = int(p)
        info = np.iinfo(t)
        if not info.min <= p <= info.max:
            raise ValueError(f"{sampler}: parameter {p} does not fit {info.dtype}")
        out.append(t(p))
    return tuple(out)
