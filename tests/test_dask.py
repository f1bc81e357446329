"""Fleets and report sets on a Dask cluster (fxdp.dask_engine, --engine dask; issue 11 item 4):
bit-identical to the single-process run for every partitioning, sufficient statistics only,
every device accounted for, a dying worker's tasks rerun."""
import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import fxdp
from fxdp import dask_engine as D



@pytest.fixture(scope="module")
def client():
    c = D.connect(workers=2)
    yield c
    c.close()
    c.cluster.close()


def _arrays(stat):
    getattr(stat, "rows", None)                      # a multiset merges its pending rows on access
    return {k: v for k, v in vars(stat).items() if isinstance(v, np.ndarray)}


def _same(a, b):
    assert type(a) is type(b) and a.n == b.n
    ra, rb = _arrays(a), _arrays(b)
    assert ra.keys() == rb.keys() and ra
    for k in ra:
        assert np.array_equal(ra[k], rb[k]), k


def _single(m, values, seed):
    st = m.report_statistic()
    st.add(m.simulate(values, seed))
    return st


@pytest.mark.parametrize("partitions", [1, 3, 8])
def test_dask_fleet_is_bit_identical_for_every_partitioning(client, partitions):
    m = fxdp.make_randomized_response(list(range(6)), "1/2")
    values, truth = m.synthetic_population(30_000, 5)
    stat, _ = D.simulate_statistic(m, values, 5, client, partitions=partitions)
    ref = _single(m, values, 5)
    assert stat.n == 30_000
    _same(stat, ref)
    assert stat.estimate_rows(truth) == ref.estimate_rows(truth)


def test_dask_fleet_geometric_vector_and_oracle(client):
    for m in (fxdp.make_geometric(4, (0, 20), constant_time=True),
              fxdp.make_unary_encoding(8, 1)):
        values, truth = m.synthetic_population(5_000, 3)
        stat, _ = D.simulate_statistic(m, values, 3, client, partitions=4)
        ref = _single(m, values, 3)
        _same(stat, ref)
        assert stat.estimate_rows(truth) == ref.estimate_rows(truth)


def test_workers_return_statistics_not_reports(client):
    m = fxdp.make_randomized_response_bool("3/4")
    values, _ = m.synthetic_population(20_000, 1)
    fut = client.submit(D._simulate_part, m.kind, m.config(), values[:20_000], 1, 0, pure=False)
    stat = fut.result()
    assert type(stat) is type(m.report_statistic()) and stat.n == 20_000
    # a statistic, not the 20,000 reports: a few words of state
    assert sum(v.nbytes for v in _arrays(stat).values()) <= 64


def test_bad_partitions_and_the_count_check(client, tmp_path):
    m = fxdp.make_randomized_response_bool("3/4")
    values, _ = m.synthetic_population(100, 1)
    with pytest.raises(ValueError, match="partitions"):
        D.simulate_statistic(m, values, 1, client, partitions=0)
    with pytest.raises(ValueError, match="partitions"):
        D.simulate_statistic(m, values, 1, client, partitions=101)
    f = tmp_path / "r.bin"
    f.write_bytes(m.encode_reports(m.simulate(values[:4], 1)))
    stat, _ = D.estimate_statistic(m, [f], client, expected=4)
    assert stat.n == 4
    with pytest.raises(D.ClusterError, match="counted 4 of 5 reports"):
        D.estimate_statistic(m, [f], client, expected=5)


def test_a_worker_dying_mid_run_loses_no_device():
    """Kill a worker while it runs a partition: the scheduler reruns its tasks elsewhere and the
    merged statistic is still the whole, bit-identical fleet."""
    import threading
    import time
    m = fxdp.make_randomized_response(list(range(8)), "1/2", constant_time=True)
    values, truth = m.synthetic_population(4_000_000, 9)
    c = D.connect(workers=2)
    try:
        c.submit(D._simulate_part, m.kind, m.config(), values[:10], 9, 0, pure=False).result()  # warm
        pids = c.run(os.getpid)                 # worker address -> process id
        killed = []

        def killer():
            for _ in range(3000):
                busy = [w for w, tasks in c.processing().items() if tasks]
                if busy:
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    killed.append(busy[0])
                    return
                time.sleep(0.01)
        t = threading.Thread(target=killer)
        t.start()
        stat, _ = D.simulate_statistic(m, values, 9, c, partitions=8)
        t.join()
    finally:
        c.close()
        c.cluster.close()
    assert killed, "no worker was busy: the test did not exercise a failure"
    assert stat.n == 4_000_000
    assert stat.estimate_rows(truth) == _single(m, values, 9).estimate_rows(truth)


def test_cli_simulate_and_estimate_with_dask_equal_local(tmp_path):
    cfg = tmp_path / "m.toml"
    cfg.write_text('[mechanism]\nkind = "randomized_response"\ncategories = [0, 1, 2, 3]\nprob = "1/2"\n')
    env = dict(os.environ)

    def run(*a):
        r = subprocess.run([sys.executable, "-m", "fxdp", *a, "--json"], capture_output=True, text=True,
                           env=env, timeout=600)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)
    loc = run("simulate", str(cfg), "--devices", "20000", "--seed", "3",
              "--write-reports", str(tmp_path / "r.bin"))
    das = run("simulate", str(cfg), "--devices", "20000", "--seed", "3", "--engine", "dask", "--workers", "2",
              "--partitions", "5")
    assert das["estimates"] == loc["estimates"] and das["engine"] == "dask"
    e_loc = run("estimate", str(cfg), str(tmp_path / "r.bin"))
    e_das = run("estimate", str(cfg), str(tmp_path / "r.bin"), "--engine", "dask", "--workers", "2")
    assert e_das["estimates"] == e_loc["estimates"] and e_das["reports"] == 20000
