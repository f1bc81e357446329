"""The multi-lane ChaCha20 of the fleet kernels (fxdp/samplers/_nb_lanes.py) against the scalar
block function and the RFC 8439 vector, and the lane-seeded device state against the scalar one."""
import numpy as np
import pytest

from fxdp.samplers import _nb_core as C
from fxdp.samplers._nb_lanes import LANES, lane_blocks, seed_lane


def _scalar(key, dev, counter, stream):
    out = np.zeros(16, np.uint32)
    C.chacha20_block(key, counter, np.array([dev & 0xFFFFFFFF, dev >> 32, stream], np.uint32), out)
    return out


def test_rfc8439_block_vector_through_the_lanes():
    """RFC 8439 section 2.3.2: key 00..1f, nonce 00 00 00 09 00 00 00 4a 00 00 00 00, counter 1;
    as a fleet stream that is device id 0x4a000000_09000000, stream 0."""
    key = np.frombuffer(bytes(range(32)), dtype="<u4").astype(np.uint32)
    dev = (0x4A000000 << 32) | 0x09000000
    ids = np.array([7, dev, 3], dtype=np.uint64)
    x = np.zeros((16, LANES), np.uint32)
    lane_blocks(key, ids, 1, 1, 1, 0, x)
    expect = bytes.fromhex(
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
        "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e")
    assert x[:, 0].astype("<u4").tobytes() == expect


@pytest.mark.parametrize("count", [1, 5, LANES])
def test_lane_blocks_equal_the_scalar_block(count):
    rng = np.random.default_rng(count)
    for _ in range(20):
        key = rng.integers(0, 1 << 32, 8, dtype=np.uint64).astype(np.uint32)
        m = LANES + 8
        ids = rng.integers(0, 1 << 63, m, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, m, dtype=np.uint64)
        base = int(rng.integers(0, m - count + 1))
        counter = int(rng.choice([0, 1, 0xFFFFFFFE, int(rng.integers(0, 1 << 32))]))
        stream = int(rng.integers(0, 1 << 32))
        x = np.full((16, LANES), 0xA5A5A5A5, np.uint32)
        lane_blocks(key, ids, base, count, counter, stream, x)
        for l in range(count):
            assert (x[:, l] == _scalar(key, int(ids[base + l]), counter, stream)).all(), (l, counter)


@pytest.mark.parametrize("first_block", [0, 1, 12345, 0xFFFFFFFE, 0xFFFFFFFF])
def test_seed_lane_is_the_scalar_state_after_its_first_refill(first_block):
    key = np.arange(11, 19, dtype=np.uint32)
    ids = np.array([2**40 + 5, 9, 2**63 + 1], dtype=np.uint64)
    x = np.zeros((16, LANES), np.uint32)
    lane_blocks(key, ids, 0, 3, first_block, 0, x)
    for l in range(3):
        lane = np.zeros(C.STATE_WORDS, np.uint32)
        seed_lane(lane, key, ids[l], first_block, 0, x, l)
        scalar = C._device_state(key, ids[l], 0)
        scalar[C.COUNTER] = first_block
        # the same words, statuses and positions from here on (across the next refill, or the
        # failure at counter 0xFFFFFFFF)
        assert C.bits_used_nb(lane) == C.bits_used_nb(scalar) == first_block * 512
        for _ in range(40):
            assert C._fetch(lane) == C._fetch(scalar)
            assert C.bits_used_nb(lane) == C.bits_used_nb(scalar)
        assert (lane == scalar).all()
