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
        assert m.item(t, prefix) == z == m._items(t, [prefix])[0] < (1 << ITEM_BITS)
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


@pytest.mark.parametrize("ct", [False, True])
def test_fleet_is_the_reference_release_of_every_device(ct):
    from fxdp.mechanisms._fleet import simulate_detailed
    m = make_prefix_extending(10, 3.0, constant_time=ct)
    vals = [f"w{i}".encode()[: 1 + i % 10] for i in range(300)] + [b"\xff" * 10, "Grüße"]
    ids = np.arange(len(vals), dtype=np.uint64) * 11 + 3
    out, status, used, _ = simulate_detailed(m, vals, 9, device_ids=ids)
    assert np.all(status == 0)
    for i, v in enumerate(vals):
        src = ChaCha20Source(9, device_id=int(ids[i]))
        assert tuple(out[i]) == m.release(src, v), i
        assert used[i] == src.bits_used, i


def test_fleet_discovery_at_scale():
    """2 10^5 devices, 1,000 strings of 3 to 16 bytes with Zipf(1.1) shares, eps = 4: the 5 most
    frequent strings are the top 5 found."""
    m = make_prefix_extending(16, 4.0)
    rng = np.random.default_rng(8)
    words = [f"{i:03d}{'x' * (i % 13)}" for i in range(1000)]
    assert len(set(words)) == 1000
    w = 1.0 / np.arange(1, 1001) ** 1.1
    idx = rng.choice(1000, size=200_000, p=w / w.sum())
    top = m.discover(m.simulate([words[i] for i in idx], seed=2), top=5)
    assert {r["value"] for r in top} == {words[i].encode() for i in range(5)}


@pytest.mark.parametrize("g", [2, 3, 55, 56, 1000, 65535, 65536])
def test_item_support_with_folds_and_multiply_shift_is_the_plain_count(g):
    """The server kernel's Mersenne folds and multiply-shift remainder against the two divisions,
    on random reports and items including the ends of their ranges (numpy seed g)."""
    from fxdp.mechanisms.strings._kernels_prefix_extending import item_support, item_support_plain
    rng = np.random.default_rng(g)
    n = 5000
    a = np.concatenate([rng.integers(1, 2**31 - 1, n), [1, 2**31 - 2]])
    b = np.concatenate([rng.integers(0, 2**31 - 1, n), [0, 2**31 - 2]])
    y = rng.integers(0, g, n + 2)
    items = np.concatenate([rng.integers(0, 2**30, 500), [0, 1, 2**30 - 1, 2**31 - 2]])
    fast, plain = np.zeros(items.size, np.int64), np.zeros(items.size, np.int64)
    item_support(a, b, y, items, np.uint64(g), np.uint64(2**31 - 1), fast)
    item_support_plain(a, b, y, items, np.uint64(g), np.uint64(2**31 - 1), plain)
    assert np.array_equal(fast, plain)
    assert plain.sum() > 0


# --- the registered kind: the C form, the wire, the command line

@pytest.mark.parametrize("ct", [False, True])
@pytest.mark.parametrize("start, step, max_length", [(2, 1, 10), (1, 2, 7), (2, 2, 1)])
def test_c_fleet_and_single_release_are_the_numba_fleet(ct, start, step, max_length):
    """The C entry points (host fleet through cffi): every device's report, status and bits used
    equal the Numba fleet's, for every group layout; padding bytes past a string's length are read
    as 0 (junk there gives the same report); one C release equals the reference release."""
    from fxdp import native
    from fxdp.mechanisms import _device as dv
    from fxdp.mechanisms._fleet import simulate_detailed
    m = make_prefix_extending(max_length, 3.0, start=start, step=step, constant_time=ct, bits=24)
    vals = [f"d{i}".encode()[:max_length] for i in range(1500)] + [b"\xff" * max_length, b"x"]
    ids = np.arange(len(vals), dtype=np.uint64) * 3 + 11
    out_nb, st_nb, bits_nb, _ = simulate_detailed(m, vals, 21, device_ids=ids)
    out_c, st_c, bits_c, _ = dv.c_fleet(m, vals, 21, device_ids=ids)
    assert (st_nb == 0).all() and (st_c == 0).all()
    assert np.array_equal(out_nb, out_c) and np.array_equal(bits_nb, bits_c)
    assert len(set(out_nb[:, 0].tolist())) == m.groups
    rows = strhash.encoded_rows(vals, m.check_input, max_length)
    junk = rows.copy()
    for i in range(junk.shape[0]):
        junk[i, 1 + junk[i, 0]:] = 0x5A
    assert np.array_equal(dv.c_fleet(m, junk, 21, device_ids=ids)[0], out_nb)
    for i in (0, 9, len(vals) - 1):
        r = native.new_rng_seeded(21, int(ids[i]))
        assert dv.c_release(m, r, vals[i]) == m.release(ChaCha20Source(21, device_id=int(ids[i])), vals[i])


def test_c_refuses_bad_lengths_and_configs():
    from fxdp import native
    m = make_prefix_extending(6, 2.0)
    cc = m.c_config()
    ffi, lib = native.ffi, native.lib
    for length, field, bad in ((0, None, None), (7, None, None), (1, "groups", 4), (1, "start", 0), (1, "start", 3),
                               (1, "step", 3), (1, "max_len", 0), (1, "max_len", 255), (1, "lh.d", 1 << 20)):
        cfg = ffi.new("fxdp_prefix_extending_cfg *", cc.cfg[0])
        if field == "lh.d":
            cfg.lh.d = bad
        elif field:
            setattr(cfg, field, bad)
        x = np.zeros(7, np.uint8)
        x[0], x[1] = length, 65
        out = np.full(4, 9, np.uint32)
        st = lib.fxdp_prefix_extending(native.new_rng_seeded(1, 1), cfg, ffi.from_buffer("uint8_t[]", x),
                                       ffi.from_buffer("uint32_t[]", out))
        assert st == lib.FXDP_ERR_PARAM and (out == 9).all(), (length, field, bad)


def test_reports_round_trip_and_the_cli_discovers_without_candidates(tmp_path, capsys):
    """The command line's round trip (tests/_string_kind_checks.py); a first level of 4 bytes is
    refused."""
    from _string_kind_checks import check_cli_round_trip_and_discovery
    check_cli_round_trip_and_discovery(tmp_path, capsys, 'kind = "prefix_extending"\nmax_length = 6\n'
                                       'epsilon = 6\nstart = 1\nstep = 1\n')
    with pytest.raises(ValueError, match="at level 0"):
        make_prefix_extending(6, 2.0, start=2, step=2).discover(np.zeros((1, 4), np.int64))
