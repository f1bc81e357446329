"""Numba kernels of the full RAPPOR client (fxdp.mechanisms.memoized.rappor_full is the reference;
csrc/fxdp_mech_rappor_full.c the C twin).  Integers only; bit-identical to both.

Configuration vector (``cfg_vector(m)``, uint64[11])::

    0 k   1 h   2 cohorts   3 value_bytes   4 bits   5 constant_time
    6 a_f (f/2 = a_f / 2^bits)   7 a_p   8 a_q   9 hash key k0   10 hash key k1

Bit-source states are ``fxdp.samplers._kernels`` state arrays (the fxdp_rng
layout).  Kernels return fxdp status codes (int64) and write their outputs only
on OK.
"""
from __future__ import annotations

import numba
import numpy as np

from ...samplers import _kernels as K
from ...samplers._nb_jit import ijit, jit_nrt, pjit


OK = K.OK
ERR_PARAM = K.ERR_PARAM

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U8 = np.uint64(8)
_U13 = np.uint64(13)
_U16 = np.uint64(16)
_U17 = np.uint64(17)
_U21 = np.uint64(21)
_U32 = np.uint64(32)
_U56 = np.uint64(56)
_U64 = np.uint64(64)
_UFF = np.uint64(0xFF)
_I32 = np.int64(32)
_M32 = np.uint64(0xFFFFFFFF)
_C0 = np.uint64(0x736F6D6570736575)
_C1 = np.uint64(0x646F72616E646F6D)
_C2 = np.uint64(0x6C7967656E657261)
_C3 = np.uint64(0x7465646279746573)
_PRR_PREFIX_HI = np.uint64(0xFFFFFFFF) << np.uint64(32)

CFG_WORDS = 11


def cfg_vector(m):
    """The uint64[11] configuration vector of a RapporFull mechanism."""
    hk = m.hash_key
    return np.array([m.k, m.h, m.cohorts, m.value_bytes, m.bits, int(m.constant_time),
                     m.a_f, m.a_p, m.a_q, int.from_bytes(hk[:8], "little"),
                     int.from_bytes(hk[8:], "little")], dtype=np.uint64)


# --------------------------------------------------------------------------
# SipHash-2-4

@ijit
def _rotl64(x, b):
    return (x << b) | (x >> (_U64 - b))


@ijit
def _sipround(v0, v1, v2, v3):
    v0 = v0 + v1
    v1 = _rotl64(v1, _U13)
    v1 = v1 ^ v0
    v0 = _rotl64(v0, _U32)
    v2 = v2 + v3
    v3 = _rotl64(v3, _U16)
    v3 = v3 ^ v2
    v0 = v0 + v3
    v3 = _rotl64(v3, _U21)
    v3 = v3 ^ v0
    v2 = v2 + v1
    v1 = _rotl64(v1, _U17)
    v1 = v1 ^ v2
    v2 = _rotl64(v2, _U32)
    return v0, v1, v2, v3


@ijit
def _load_le(buf, off, n):
    """n (0..8) bytes of buf from off, little-endian, as uint64."""
    v = _U0
    for t in range(n - 1, -1, -1):
        v = (v << _U8) | np.uint64(buf[off + t])
    return v


@jit_nrt
def _siphash(k0, k1, has_prefix, prefix, data):
    """SipHash-2-4 of [prefix (8 bytes LE) if has_prefix] || data (uint8 array)."""
    v0 = k0 ^ _C0
    v1 = k1 ^ _C1
    v2 = k0 ^ _C2
    v3 = k1 ^ _C3
    done = 0
    if has_prefix:
        v3 = v3 ^ prefix
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
        v0 = v0 ^ prefix
        done = 8
    n = data.shape[0]
    full = n - n % 8
    for i in range(0, full, 8):
        m = _load_le(data, i, 8)
        v3 = v3 ^ m
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
        v0 = v0 ^ m
    m = _load_le(data, full, n - full) | ((np.uint64(done + n) & _UFF) << _U56)
    v3 = v3 ^ m
    v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    v0 = v0 ^ m
    v2 = v2 ^ _UFF
    for _ in range(4):
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def siphash24(key, msg):
    """SipHash-2-4 (Numba) of bytes msg under the 16-byte key, as a Python int."""
    key = np.frombuffer(bytes(key), dtype=np.uint8)
    if key.shape[0] != 16:
        raise ValueError("key must be 16 bytes")
    data = np.frombuffer(bytes(msg), dtype=np.uint8).copy()
    return int(_siphash(np.uint64(_load_le_py(key[:8])), np.uint64(_load_le_py(key[8:])), False, _U0, data))


def _load_le_py(b):
    return int.from_bytes(bytes(b), "little")


# --------------------------------------------------------------------------
# Bloom positions, PRR stream, provisioning

@ijit
def _positions(cfgv, cohort, block, pos):
    k = cfgv[0]
    h = np.int64(cfgv[1])
    coh = np.uint64(cohort)
    for j in range(h):
        d = _siphash(cfgv[9], cfgv[10], True, coh | (np.uint64(j) << _U32), block)
        pos[j] = ((d >> _U32) * k) >> _U32


@ijit
def _prr_init(secret, cohort, block, prr):
    """prr := ChaCha20 stream (key secret, nonce (d_lo, d_hi, 1)) with
    d = SipHash(kdf words 0..3, u32le(cohort) || u32le(0xFFFFFFFF) || block)."""
    blk = K._block_core(np.uint64(secret[0]), np.uint64(secret[1]), np.uint64(secret[2]),
                        np.uint64(secret[3]), np.uint64(secret[4]), np.uint64(secret[5]),
                        np.uint64(secret[6]), np.uint64(secret[7]), _U0, _U0, _U0, _U0)
    k0 = blk[0] | (blk[1] << _U32)
    k1 = blk[2] | (blk[3] << _U32)
    d = _siphash(k0, k1, True, np.uint64(cohort) | _PRR_PREFIX_HI, block)
    for i in range(K.SHARED_WORDS):
        prr[i] = np.uint32(0)
    for i in range(8):
        prr[K.KEY + i] = np.uint32(secret[i])
    prr[K.NONCE] = np.uint32(d & _M32)
    prr[K.NONCE + 1] = np.uint32(d >> _U32)
    prr[K.NONCE + 2] = np.uint32(1)
    prr[K.WORD_POS] = np.uint32(16)
    prr[K.BLOCK_LEN] = np.uint32(16)
    prr[K.MODE] = np.uint32(K.MODE_CHACHA)


@ijit
def _provision(state, cohorts, secret):
    """secret[0..8) = 8 x bits(32), cohort = (bits(32) * cohorts) >> 32 -> (status, cohort)."""
    for i in range(8):
        st, w = K.bits(state, _I32)
        if st != OK:
            return st, _U0
        secret[i] = np.uint32(w)
    st, w = K.bits(state, _I32)
    if st != OK:
        return st, _U0
    return OK, (w * np.uint64(cohorts)) >> _U32


@ijit
def _bern(state, a, bits, ct):
    """The public single-draw kernels (stable contract; a: uint64, bits: int64)."""
    if ct:
        return K.bernoulli_dyadic_ct(state, a, bits)
    return K.bernoulli_dyadic(state, a, bits)


@jit_nrt
def _run(cfgv, secret, cohort, state, block, tmp, with_irr):
    """B' (with_irr False) or S (with_irr True, IRR from state) into tmp[0..k)."""
    k = np.int64(cfgv[0])
    h = np.int64(cfgv[1])
    bits = np.int64(cfgv[4])
    ct = cfgv[5] != _U0
    pos = np.zeros(h, np.uint64)
    _positions(cfgv, cohort, block, pos)
    pstate = np.zeros(K.STATE_WORDS, np.uint32)
    _prr_init(secret, cohort, block, pstate)
    for i in range(k):
        b = False
        ui = np.uint64(i)
        for j in range(h):
            if pos[j] == ui:
                b = True
        st, fl = _bern(pstate, cfgv[6], bits, ct)
        if st != OK:
            return st
        bp = b != fl
        if with_irr:
            st, s = _bern(state, cfgv[8] if bp else cfgv[7], bits, ct)
            if st != OK:
                return st
            tmp[i] = np.uint8(s)
        else:
            tmp[i] = np.uint8(bp)
    return OK


# --------------------------------------------------------------------------
# entry points

@jit_nrt
def prr(cfgv, secret, cohort, block, out):
    """out[0..k) = the memoized PRR bits of block for the device (secret, cohort)."""
    tmp = np.zeros(np.int64(cfgv[0]), np.uint8)
    dummy = np.zeros(K.STATE_WORDS, np.uint32)
    st = _run(cfgv, secret, np.uint64(cohort), dummy, block, tmp, False)
    if st == OK:
        out[:] = tmp
    return st


@jit_nrt
def report(cfgv, secret, cohort, state, block, out):
    """fxdp_rappor_full_report: out[0..k) = S, IRR from state; out written only on OK."""
    st = np.int64(state[K.STATUS])
    if st != OK:
        return st
    tmp = np.zeros(np.int64(cfgv[0]), np.uint8)
    st = _run(cfgv, secret, np.uint64(cohort), state, block, tmp, True)
    if st == OK:
        out[:] = tmp
    return st


@jit_nrt
def _release_into(cfgv, state, block, out, secret, tmp):
    st = np.int64(state[K.STATUS])
    if st != OK:
        return st
    if state[K.MODE] == K.MODE_CHACHA or state[K.MODE] == K.MODE_CHACHA_FKE:
        sib = np.zeros(K.STATE_WORDS, np.uint32)
        sib[K.MODE] = state[K.MODE]            # the sibling follows r's stream version
        for i in range(8):
            sib[K.KEY + i] = state[K.KEY + i]
        sib[K.NONCE] = state[K.NONCE]
        sib[K.NONCE + 1] = state[K.NONCE + 1]
        sib[K.NONCE + 2] = np.uint32(1)
        sib[K.WORD_POS] = np.uint32(16)
        sib[K.BLOCK_LEN] = np.uint32(16)
        st, cohort = _provision(sib, cfgv[2], secret)
    else:
        st, cohort = _provision(state, cfgv[2], secret)
    if st != OK:
        return st
    st = _run(cfgv, secret, cohort, state, block, tmp, True)
    if st != OK:
        return st
    out[0] = np.uint8(cohort & _UFF)
    out[1] = np.uint8(cohort >> _U8)
    for i in range(tmp.shape[0]):
        out[2 + i] = tmp[i]
    return OK


@jit_nrt
def release(cfgv, state, block, out):
    """fxdp_rappor_full_release on a state array: out[0..k+2) = cohort lo, hi, S (only on OK)."""
    secret = np.zeros(8, np.uint32)
    tmp = np.zeros(np.int64(cfgv[0]), np.uint8)
    return _release_into(cfgv, state, block, out, secret, tmp)


@pjit
def fleet_release(cfgv, seed_key_words, device_ids, blocks, out, status):
    """Device i: release on the keyed stream (seed, device_ids[i], 0) (device provisioned from
    stream 1) of blocks[i] into out[i]; status[i] its status (out[i] untouched on failure)."""
    k = np.int64(cfgv[0])
    for i in numba.prange(device_ids.shape[0]):
        state = K._device_state(seed_key_words, device_ids[i], np.uint32(0))
        secret = np.zeros(8, np.uint32)
        tmp = np.zeros(k, np.uint8)
        status[i] = _release_into(cfgv, state, blocks[i], out[i], secret, tmp)


@jit_nrt
def bloom_matrix(cfgv, cohorts, blocks, out):
    """out[c, v, :] = Bloom vector of blocks[v] in cohort cohorts[c] (serial: candidate lists are small)."""
    h = np.int64(cfgv[1])
    pos = np.zeros(h, np.uint64)
    for c in range(cohorts.shape[0]):
        for v in range(blocks.shape[0]):
            _positions(cfgv, np.uint64(cohorts[c]), blocks[v], pos)
            for j in range(h):
                out[c, v, np.int64(pos[j])] = np.uint8(1)


@jit_nrt
def positions(cfgv, cohort, block, pos):
    """pos[0..h) = Bloom positions of block in cohort."""
    _positions(cfgv, np.uint64(cohort), block, pos)
