"""The Prefix Extending Method, the reference step (issue 34): the report is the group draw then
local hashing's release of the group's compressed prefix, on one stream; epsilon is local
hashing's; discovery finds a simulated population's heavy strings without a candidate list;
bad input is refused."""
import numpy as np
import pytest

from fxdp import strhash
from fxdp.bitsource import ChaCha20Source
from fxdp.mechanisms.oracles.local_hashing import LocalHashing
from fxdp.mechanisms.strings.prefix_extending import ITEM_BITS, make_prefix_extending
from fxdp.samplers import reference as ref


@pytest.mark.parametrize("ct", [False, True])
def test_the_report_is_the_group_then_local_hashing_of_the_prefix_item(ct):
    m = make_prefix_extending(10, 3.0, start=2, step=1, constant_time=ct)
    assert m.levels == list(range(3, 12)) and m.groups == 9
    lh = LocalHashing(1 << ITEM_BITS, 3.0, constant_time=ct)
    for seed in range(30):
        s = f"word {seed}".encode()[: 1 + seed % 10]
        a, b = ChaCha20Source(seed), ChaCha20Source(seed)
        t, *rest = m.release(a, s)
        assert t == (ref.uniform_below_ct(b, 9) if ct else ref.uniform_below(b, 9))
        prefix = strhash.encode(s, 10)[: m.levels[t]]
        z = strhash.hash32(m.hash_key, t, prefix, 11) >> 2
        assert m.item(t, prefix) == z < (1 << ITEM_BITS)
        assert tuple(rest) == lh.release(b, z)
        assert a.bits_used == b.bits_used


def test_epsilon_is_local_hashings_and_the_group_ignores_the_string():
    m = make_prefix_extending(16, 2.0, optimized=False)
    lh = LocalHashing(1 << ITEM_BITS, 2.0, optimized=False)
    assert m.epsilon == lh.epsilon <= 2.0 and m.local_epsilon == m.epsilon
    assert m.exact_audit().epsilon_realized == lh.exact_audit().epsilon_realized
    for seed in range(20):                      # the same stream gives the same group for any string
        assert m.release(ChaCha20Source(seed), b"a")[0] == m.release(ChaCha20Source(seed), b"zzzz")[0]


def test_discover_finds_the_heavy_strings_without_candidates():
    """20,000 reference releases (device streams of seed 5), 5 heavy strings of 1 to 11 bytes with
    shares 0.25 .. 0.1 and 500 rare ones, eps = 4: the top 5 found are the 5 heavy strings, each
    within 4 standard errors of its share."""
    m = make_prefix_extending(12, 4.0)
    rng = np.random.default_rng(1)
    words = ["alpha", "beta-7", "gamma!", "delta delta", "e"] + [f"r{i}" for i in range(500)]
    w = np.array([0.25, 0.2, 0.15, 0.1, 0.1] + [0.2 / 500] * 500)
    idx = rng.choice(len(words), size=20000, p=w)
    reps = np.array([m.release(ChaCha20Source(5, device_id=i), words[j]) for i, j in enumerate(idx)])
    top = m.discover(reps, top=5)
    found = {r["value"]: r for r in top}
    assert set(found) == {w.encode() for w in words[:5]}
    for k, word in enumerate(words[:5]):
        r = found[word.encode()]
        assert abs(r["estimate"] - np.mean(idx == k)) < 4 * r["stderr"], (word, r)
    assert [r["estimate"] for r in top] == sorted((r["estimate"] for r in top), reverse=True)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match=r"max_length must be in \[1, 254\]"):
        make_prefix_extending(255, 1.0)
    with pytest.raises(ValueError, match=r"start must be in \[1, 2\]"):
        make_prefix_extending(8, 1.0, start=3)
    with pytest.raises(ValueError, match=r"step must be in \[1, 2\]"):
        make_prefix_extending(8, 1.0, step=0)
    m = make_prefix_extending(8, 1.0)
    with pytest.raises(ValueError, match="empty string"):
        m(b"")
    with pytest.raises(ValueError, match="9 bytes long; max_length is 8"):
        m("123456789")
    with pytest.raises(ValueError, match=r"n x 4 array"):
        m.discover(np.zeros((3, 3), np.int64))
    with pytest.raises(ValueError, match=r"group outside \[0, 7\)"):
        m.discover(np.array([[7, 1, 0, 0]]))
    with pytest.raises(ValueError, match=r"top must be in"):
        m.discover(np.array([[0, 1, 0, 0]]), top=0)
