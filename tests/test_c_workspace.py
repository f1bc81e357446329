"""Caller-supplied workspaces of the memoized oracles' export entry points (csrc/fxdp.h:
fxdp_lgrr_work, fxdp_lue_work, fxdp_dbitflip_work, fxdp_rappor_full_work; issue 13's 256-byte stack goal).

The _w forms release exactly what the convenience forms (workspace on their own stack) release, with
the same status and the same stream bits, under both stream versions and from a non-keyed rng; they
refuse a NULL workspace without drawing or writing; and they leave the workspace all zero on every
return (success, bad parameter, entropy failure), so no rng state or secret stays in it.  The export
calls the _w form with a static workspace (RAM, not stack)."""
import numpy as np
import pytest

import fxdp
from fxdp.bitsource import ChaCha20Source, Seed
from fxdp.mechanisms import _device as dv

# (id, maker(ct), workspace type)
CASES = [
    ("lgrr", lambda ct: fxdp.make_longitudinal_grr(9, 3, 1, constant_time=ct), "fxdp_lgrr_work"),
    ("lue", lambda ct: fxdp.make_longitudinal_ue(9, 3, 1, constant_time=ct), "fxdp_lue_work"),
    ("dbf", lambda ct: fxdp.make_dbitflip(40, 7, 2, sampled_buckets=3, constant_time=ct), "fxdp_dbitflip_work"),
    ("rappor_full", lambda ct: fxdp.make_rappor_full(32, 2, 64, 0.5, 0.25, 0.75, constant_time=ct,
                                                     value_bytes=16), "fxdp_rappor_full_work"),
]
IDS = [c[0] for c in CASES]
CT = [False, True]
POISON = 0xA5


def _lib():
    from fxdp import native
    return native, native.ffi, native.lib


def _inputs(m, n):
    """n device-form inputs of m (one per device), from its synthetic population."""
    values, _ = m.synthetic_population(n, 7)
    return list(values)


class _Call:
    """One release of x (device form) through the C entry point of m's device spec: the convenience
    form, or its _w form with a workspace.  The output buffer starts as 77s (untouched is visible)."""

    def __init__(self, m, x):
        native, ffi, lib = _lib()
        self.ffi, self.lib = ffi, lib
        spec = m.device_spec()
        self.function = spec["c_function"]
        self.in_ctype, self.out_ctype = spec["input"]["ctype"], spec["output"]["ctype"]
        self.cfg = m.c_cfg(ffi) if hasattr(m, "c_cfg") else m.c_config().cfg
        self.xin = np.ascontiguousarray(np.atleast_1d(x), dtype=self.in_ctype.replace("_t", ""))
        assert self.xin.shape == (spec["input"]["count"],)
        self.out = np.full(spec["output"]["count"], 77, dtype=self.out_ctype.replace("_t", ""))

    def pointers(self):
        ffi = self.ffi
        return ffi.from_buffer(f"{self.in_ctype}[]", self.xin), ffi.from_buffer(f"{self.out_ctype}[]", self.out)

    def plain(self, rng):
        return getattr(self.lib, self.function)(rng, self.cfg, *self.pointers())

    def with_work(self, rng, work, cfg=None, x=None, out=None):
        xp, op = self.pointers()
        return getattr(self.lib, self.function + "_w")(rng, self.cfg if cfg is None else cfg,
                                                       xp if x is None else x, op if out is None else out, work)


def _poisoned(work_type):
    _, ffi, _ = _lib()
    work = ffi.new(f"{work_type} *")
    ffi.buffer(work)[:] = bytes([POISON]) * ffi.sizeof(work_type)
    return work


def _all_zero(work, work_type):
    _, ffi, _ = _lib()
    return bytes(ffi.buffer(work)) == bytes(ffi.sizeof(work_type))


@pytest.mark.parametrize("ct", CT, ids=["lazy", "ct"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_w_form_releases_what_the_convenience_form_releases_and_wipes_its_workspace(case, ct):
    native, ffi, lib = _lib()
    _, make, work_type = case
    m = make(ct)
    assert m.device_spec()["workspace"] == work_type
    xs = _inputs(m, 6)
    for seed in (Seed(5, stream_version=1), Seed(5, stream_version=2)):
        for dev_id, x in enumerate(xs):
            a, b = _Call(m, x), _Call(m, x)
            r_plain, r_w = native.new_rng_seeded(seed, dev_id), native.new_rng_seeded(seed, dev_id)
            work = _poisoned(work_type)
            st = a.plain(r_plain)
            assert st == 0 and b.with_work(r_w, work) == 0
            assert np.array_equal(a.out, b.out) and not np.all(b.out == 77)
            assert native.bits_used(r_plain) == native.bits_used(r_w)
            assert _all_zero(work, work_type)
            # and the convenience form is the reference's export release (tests of each family check it
            # in depth; here one device per seed suffices to tie the _w form to the reference)
            if dev_id == 0 and hasattr(m, "release_export"):
                assert dv.c_release(m, native.new_rng_seeded(seed, dev_id), x) == \
                    m.release_export(ChaCha20Source(seed, dev_id), x)
    # a non-keyed rng: a fresh secret from r itself (raw hook mode, the same bytes for both)
    for x in xs[:2]:
        a, b = _Call(m, x), _Call(m, x)
        st_a = a.plain(native.new_rng_hook(_counting_fill()))
        work = _poisoned(work_type)
        st_b = b.with_work(native.new_rng_hook(_counting_fill()), work)
        assert st_a == st_b == 0 and np.array_equal(a.out, b.out) and _all_zero(work, work_type)


def _counting_fill():
    """A deterministic board fill: the same bytes for every rng made from a new one."""
    calls = [0]

    def fill(n):
        calls[0] += 1
        return bytes((calls[0] * 131 + i * 29) & 0xFF for i in range(n))
    return fill


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_null_workspace_is_refused_and_nothing_is_drawn_or_written(case):
    native, ffi, lib = _lib()
    _, make, work_type = case
    for ct in CT:
        m = make(ct)
        c = _Call(m, _inputs(m, 1)[0])
        r = native.new_rng_seeded(3, 0)
        assert c.with_work(r, ffi.NULL) == 1                                  # FXDP_ERR_PARAM
        assert np.all(c.out == 77) and native.bits_used(r) == 0


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_bad_parameters_are_refused_with_the_workspace_wiped(case):
    native, ffi, lib = _lib()
    name, make, work_type = case
    m = make(True)
    c = _Call(m, _inputs(m, 1)[0])
    bad_cfg = ffi.new(f"{m.device_spec()['cfg_type']} *")                   # all zero: invalid
    for kwargs in ({"cfg": bad_cfg}, {"cfg": ffi.NULL}, {"x": ffi.NULL}, {"out": ffi.NULL}):
        r = native.new_rng_seeded(3, 0)
        work = _poisoned(work_type)
        assert c.with_work(r, work, **kwargs) == 1
        assert np.all(c.out == 77) and native.bits_used(r) == 0 and _all_zero(work, work_type)
    work = _poisoned(work_type)
    assert c.with_work(ffi.NULL, work) == 1 and np.all(c.out == 77) and _all_zero(work, work_type)
    if name != "rappor_full":                 # an input outside [0, d) (full RAPPOR: any block is valid)
        xin = ffi.new("uint32_t *", m.d)
        r = native.new_rng_seeded(3, 0)
        work = _poisoned(work_type)
        assert c.with_work(r, work, x=xin) == 1
        assert np.all(c.out == 77) and native.bits_used(r) == 0 and _all_zero(work, work_type)


@pytest.mark.parametrize("ct", CT, ids=["lazy", "ct"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_entropy_failure_releases_nothing_and_wipes_the_workspace(case, ct):
    native, ffi, lib = _lib()
    _, make, work_type = case
    m = make(ct)
    in_place = bool(m.device_spec().get("in_place"))
    x = _inputs(m, 1)[0]
    # replay rngs that run out at once, after the secret (8 words) and after 9 words; and a rng that
    # failed before the call (sticky): the status is the convenience form's, nothing is released
    statuses = []
    for words in ([], list(range(1, 9)), list(range(1, 10))):
        a, b = _Call(m, x), _Call(m, x)
        st_a = a.plain(native.new_rng_replay(words))
        work = _poisoned(work_type)
        st_b = b.with_work(native.new_rng_replay(words), work)
        assert st_a == st_b and _all_zero(work, work_type)
        assert np.array_equal(a.out, b.out)
        if st_b != 0:
            assert st_b == 2 and (np.all(b.out == 77) or (in_place and np.all(b.out == 0)))
        statuses.append(st_b)
    assert statuses[0] == 2                         # nothing to draw the secret from
    dead = native.new_rng_replay([])
    c = _Call(m, x)
    assert c.plain(dead) == 2                       # dead now (sticky)
    work = _poisoned(work_type)
    assert c.with_work(dead, work) == 2 and np.all(c.out == 77) and _all_zero(work, work_type)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_export_calls_the_w_form_with_a_static_workspace(case):
    from fxdp import targets as T
    from fxdp.export import device_spec
    from fxdp.export.firmware import render_config_c, render_config_h
    _, make, work_type = case
    m = make(True)
    spec = device_spec(m)
    assert spec.workspace == work_type
    for target in ("cortex-m0plus", "avr-atmega328p"):
        t = T.get_target(target)
        c = render_config_c(m, spec, t)
        assert f"static {work_type} fxdp_work;" in c
        assert f"return {spec.c_function}_w(r, &fxdp_cfg, x, y, &fxdp_work);" in c
        assert f"{spec.c_function}_w(r, &fxdp_cfg, x, y, &fxdp_work)" in render_config_h(m, spec, t)
    # a form without a workspace calls its entry point as before
    plain = device_spec(fxdp.make_unary_encoding(16, 1, constant_time=True))
    c = render_config_c(fxdp.make_unary_encoding(16, 1, constant_time=True), plain, T.get_target("cortex-m3"))
    assert "fxdp_work" not in c and f"return {plain.c_function}(r, &fxdp_cfg, x, y);" in c


def test_a_workspace_the_header_does_not_declare_is_refused():
    import copy

    from fxdp.export import spec as S

    def with_spec(m, **extra):
        fake = copy.copy(m)
        raw = dict(m.device_spec(), **extra)
        fake.device_spec = lambda dim=None: raw
        return fake

    m = fxdp.make_longitudinal_grr(9, 3, 1, constant_time=True)
    with pytest.raises(ValueError, match="trailing 'fxdp_lue_work \\*work'"):
        S.device_spec(with_spec(m, workspace="fxdp_lue_work"))
    with pytest.raises(ValueError, match="not a C identifier"):
        S.device_spec(with_spec(m, workspace="not a type"))
    with pytest.raises(ValueError, match="fxdp_unary_encoding_w is not declared"):
        S.device_spec(with_spec(fxdp.make_unary_encoding(16, 1), workspace="fxdp_lgrr_work"))
