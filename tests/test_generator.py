"""The public Generator: parameter validation, entropy failure, secure default, determinism."""
import numpy as np
import pytest

from fxdp import EntropyError, Generator
from fxdp.bitsource import ChaCha20Source
from fxdp.samplers import reference as ref
from fxdp.samplers.bounded import make_bounded_laplace_table

BAD = [
    ("bits", dict(n=33)), ("bits", dict(n=-1)), ("bits", dict(n=1.0)),
    ("uniform_below", dict(n=0)), ("uniform_below", dict(n=-5)), ("uniform_below", dict(n=2**64)),
    ("uniform_below", dict(n="3")), ("uniform_below", dict(n=True)),
    ("bernoulli_dyadic", dict(a=5, k=2)), ("bernoulli_dyadic", dict(a=-1, k=2)),
    ("bernoulli_dyadic", dict(k=64, a=1)), ("bernoulli_dyadic", dict(k=-1, a=1)),
    ("bernoulli_dyadic", dict(a=0.5, k=1)),
    ("bernoulli_rational", dict(n=4, d=3)), ("bernoulli_rational", dict(n=0, d=0)),
    ("bernoulli_rational", dict(n=-1, d=3)), ("bernoulli_rational", dict(n=1, d=2**64)),
    ("bernoulli_exp", dict(n=-1, d=1)), ("bernoulli_exp", dict(n=1, d=0)),
    ("bernoulli_exp", dict(n=2**32, d=1)), ("bernoulli_exp", dict(n=1, d=2**32)),
    ("discrete_laplace", dict(s=0, t=1)), ("discrete_laplace", dict(s=1, t=0)),
    ("discrete_laplace", dict(s=2**32, t=1)), ("discrete_laplace", dict(s=1, t=1, bounds=(3, 2))),
    ("discrete_laplace", dict(s=1, t=1, bounds=(0, 2**63))), ("discrete_laplace", dict(s=1, t=1, bounds=5)),
    ("bounded_laplace_noise", dict(table=[1, 2, 3])),
]


@pytest.mark.parametrize("method,kwargs", BAD)
def test_bad_parameters_raise_before_drawing(method, kwargs):
    g = Generator(1)
    with pytest.raises(ValueError) as exc:
        getattr(g, method)(**kwargs)
    name = next(iter(kwargs)) if method != "discrete_laplace" or "bounds" not in kwargs else "bounds"
    assert name.split("[")[0] in str(exc.value)
    assert g.bits_used == 0


@pytest.mark.parametrize("size", [-1, 1.5, "3", 2**41])
def test_bad_size(size):
    with pytest.raises(ValueError, match="size"):
        Generator(1).bits(3, size=size)


@pytest.mark.parametrize("kwargs", [dict(seed=-1), dict(seed=2**256), dict(seed=1.5),
                                    dict(seed=1, device_id=-1), dict(seed=1, device_id=2**64),
                                    dict(seed=1, stream=2**32)])
def test_bad_seeding(kwargs):
    with pytest.raises(ValueError):
        Generator(**kwargs)


def test_default_is_os_entropy_and_failure_raises():
    a, b = Generator(), Generator()
    assert not a.seeded and a.bits(32, size=8).tolist() != b.bits(32, size=8).tolist()

    def broken(n):
        raise OSError("no entropy")

    with pytest.raises(EntropyError):
        Generator(urandom=broken)
    with pytest.raises(EntropyError):
        Generator(urandom=lambda n: b"\0" * (n - 1))


def test_seeded_generator_matches_reference_stream():
    g, src = Generator(42, device_id=3), ChaCha20Source(42, 3)
    assert g.discrete_laplace(1, 10, size=200).tolist() == [ref.discrete_laplace(src, 1, 10) for _ in range(200)]
    assert g.bits_used == src.bits_used
    t = make_bounded_laplace_table(3, (0, 10), k=16)
    got = g.bounded_laplace_noise(t, size=50)
    assert got.tolist() == [ref.table_sample_ct(src, t.thresholds, 16) - t.width for _ in range(50)]
    assert isinstance(g.uniform_below(7), int) and isinstance(g.bernoulli_dyadic(1, 1), bool)


def test_exhausted_stream_releases_nothing():
    g = Generator(1)
    g.state[11] = 0xFFFFFFFF      # the next block would use the reserved counter
    g.state[28] = 16
    with pytest.raises(EntropyError):
        g.discrete_laplace(1, 10, size=5)
    with pytest.raises(EntropyError):   # sticky
        g.bits(1)
