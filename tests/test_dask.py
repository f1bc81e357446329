"""Fleets and report sets on a Dask cluster (fxdp.dask_engine, --engine dask; issue 11 item 4,
issue 33 item 4): bit-identical to the single-process run for every partitioning, partitions that
generate (or read) their own inputs so the graph carries no data, sufficient statistics only,
every device accounted for, a dying worker's tasks rerun, and the CLI against a scheduler and
workers started as separate processes."""
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

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


def _kinds():
    return [fxdp.make_randomized_response(list(range(6)), "1/2"),
            fxdp.make_randomized_response_bool("3/4"),
            fxdp.make_unary_encoding(8, 1),
            fxdp.make_geometric(4, (0, 20), constant_time=True)]     # no partitioned draw: the fallback


def test_a_synthetic_part_is_the_population_slice():
    """m.synthetic_part(n, seed, lo, hi) == synthetic_population(n, seed)[0][lo:hi] (drawn alone where
    the family draws device by device: PCG64 advanced to lo), and the parts' truth tallies add up to
    the truth; bad ranges are refused naming the parameter and its range."""
    n = 10_007
    for m in _kinds():
        values, truth = m.synthetic_population(n, 11)
        for lo, hi in ((0, n), (0, 1), (1, 2), (123, 4567), (n - 5, n), (n, n)):
            assert np.array_equal(m.synthetic_part(n, 11, lo, hi), values[lo:hi]), (m.kind, lo, hi)
        if m.truth_tally(values[:3]) is not None:
            tally = sum(m.truth_tally(values[a:b]) for a, b in ((0, 100), (100, 5000), (5000, n)))
            assert np.array_equal(np.asarray(m.truth_from_tally(tally)), np.asarray(truth))
    m = _kinds()[0]
    # the partitioned Zipf draw is numpy's choice on the same generator: populations did not change
    w = 1.0 / np.arange(1, 7)
    old = np.random.default_rng([11, 0x5EED]).choice(6, size=n, p=w / w.sum())
    assert np.array_equal(m.synthetic_population(n, 11)[0], old)
    for args, match in (((0, 1, 0, 0), r"devices must be >= 1, got 0"),
                        ((10, 1, -1, 3), r"lo \(first device of the part\) must be in \[0, 10\], got -1"),
                        ((10, 1, 4, 11), r"hi \(end of the part\) must be in \[4, 10\], got 11"),
                        ((10, 1, 5, 4), r"hi \(end of the part\) must be in \[5, 10\], got 4")):
        with pytest.raises(ValueError, match=match):
            m.synthetic_part(*args)


def test_every_kind_parts_and_tallies_agree_with_its_population():
    """For every kind of README's table (no fleet run, no Dask): a part is the population's slice,
    and where the truth has a tally, the parts' tallies give true_statistic (a family that overrides
    true_statistic overrides truth_tally too: dBitFlip's buckets)."""
    import tomllib

    from fxdp.config import config_from_dict
    from test_readme import kind_rows
    n = 501
    for kind, body in kind_rows():
        m = config_from_dict(tomllib.loads(f'[mechanism]\nkind = "{kind}"\n{body}\n')).mechanism
        try:
            values, truth = m.synthetic_population(n, 4)
        except NotImplementedError:
            continue
        assert np.array_equal(np.asarray(m.synthetic_part(n, 4, 100, 300)), np.asarray(values[100:300])), kind
        if m.truth_tally(values[:2]) is not None:
            tally = m.truth_tally(values[:250]) + m.truth_tally(values[250:])
            assert np.array_equal(np.asarray(m.truth_from_tally(tally)), np.asarray(m.true_statistic(values))), kind
            assert np.array_equal(np.asarray(truth), np.asarray(m.true_statistic(values))), kind


@pytest.mark.parametrize("partitions", [1, 3, 8])
def test_dask_fleet_is_bit_identical_for_every_partitioning(client, partitions):
    m = fxdp.make_randomized_response(list(range(6)), "1/2")
    values, truth = m.synthetic_population(30_000, 5)
    ref = _single(m, values, 5)
    stat, got_truth, _ = D.simulate_synthetic(m, 30_000, 5, client, partitions=partitions)
    assert stat.n == 30_000 and np.array_equal(got_truth, truth)
    _same(stat, ref)
    assert stat.estimate_rows(got_truth) == ref.estimate_rows(truth)
    stat, _ = D.simulate_statistic(m, values, 5, client, partitions=partitions)    # values held here
    _same(stat, ref)


def test_dask_synthetic_fleets_of_every_population_form(client):
    """Partitioned draws (randomized response, binary RR, an item oracle) and the fallback
    (geometric: the whole population drawn per part, the truth from the part holding device 0)."""
    for m in _kinds():
        values, truth = m.synthetic_population(5_000, 3)
        ref = _single(m, values, 3)
        stat, got_truth, _ = D.simulate_synthetic(m, 5_000, 3, client, partitions=4)
        _same(stat, ref)
        assert stat.estimate_rows(got_truth) == ref.estimate_rows(truth), m.kind


def test_the_graph_carries_no_data(client):
    """No "Sending large graph" warning from a synthetic fleet, with the threshold lowered to 100 kB
    while the values held by the client would be 1.6 MB (they do warn: the check can fail)."""
    import dask
    m = fxdp.make_randomized_response(list(range(8)), "1/2", constant_time=True)
    values, _ = m.synthetic_population(200_000, 2)
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "100kB"}):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            D.simulate_synthetic(m, 200_000, 2, client, partitions=2)
        assert not [w for w in caught if "large graph" in str(w.message)]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            D.simulate_statistic(m, values, 2, client, partitions=1)
        assert [w for w in caught if "large graph" in str(w.message)]


def test_workers_return_statistics_not_reports(client):
    m = fxdp.make_randomized_response_bool("3/4")
    values, _ = m.synthetic_population(20_000, 1)
    fut = client.submit(D._simulate_part, m.kind, m.config(), values[:20_000], 1, 0, pure=False)
    stat = fut.result()
    assert type(stat) is type(m.report_statistic()) and stat.n == 20_000
    # a statistic, not the 20,000 reports: a few words of state
    assert sum(v.nbytes for v in _arrays(stat).values()) <= 64
    part = client.submit(D._synthetic_part, m.kind, m.config(), 20_000, 1, 0, 20_000, pure=False).result()
    assert part.stat.n == 20_000 and part.tally.nbytes <= 16 and part.truth is None
    assert sum(v.nbytes for v in _arrays(part.stat).values()) <= 64


def test_warm_loads_the_kernels_on_every_worker(client):
    m = fxdp.make_randomized_response(list(range(6)), "1/2")
    out = D.warm(client, m)
    assert sorted(out) == sorted(client.scheduler_info()["workers"]) and len(out) == 2
    assert all(s >= 0 for s in out.values())


def test_bad_arguments_name_the_parameter(client):
    m = fxdp.make_randomized_response_bool("3/4")
    with pytest.raises(ValueError, match=r"devices must be an int >= 1, got 0"):
        D.simulate_synthetic(m, 0, 1, client)
    with pytest.raises(ValueError, match=r"partitions must be an int in \[1, 10\]"):
        D.simulate_synthetic(m, 10, 1, client, partitions=11)
    with pytest.raises(ValueError, match=r"workers must be an int >= 1, got 0"):
        D.connect(workers=0)
    with pytest.raises(ValueError, match=r"scheduler must be an address"):
        D.connect(scheduler="")
    with pytest.raises(TypeError):
        D.simulate_synthetic("not a mechanism", 10, 1, client)


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
    """Kill a worker while it runs a partition: the scheduler reruns its tasks elsewhere (a task is
    its arguments: the partition draws its own devices) and the merged statistic is still the
    whole, bit-identical fleet."""
    import threading
    m = fxdp.make_randomized_response(list(range(8)), "1/2", constant_time=True)
    values, truth = m.synthetic_population(4_000_000, 9)
    c = D.connect(workers=2)
    try:
        D.warm(c, m)
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
        stat, got_truth, _ = D.simulate_synthetic(m, 4_000_000, 9, c, partitions=8)
        t.join()
    finally:
        c.close()
        c.cluster.close()
    assert killed, "no worker was busy: the test did not exercise a failure"
    assert stat.n == 4_000_000
    assert stat.estimate_rows(got_truth) == _single(m, values, 9).estimate_rows(truth)


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


def _cli(*a, env=None):
    r = subprocess.run([sys.executable, "-m", "fxdp", *a, "--json"], capture_output=True, text=True,
                       env=env or dict(os.environ), timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_values_files_are_read_by_row_range_on_the_workers(client, tmp_path):
    """--values FILE --engine dask: a Parquet file of several row groups and a .npy file, each
    partition reading its own rows; the estimate equals --engine local's."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from fxdp.reportfiles import load_values, read_value_rows, value_rows
    cfg = tmp_path / "m.toml"
    cfg.write_text('[mechanism]\nkind = "randomized_response"\ncategories = [0, 1, 2, 3]\nprob = "1/2"\n')
    x = np.random.default_rng(4).integers(0, 4, size=10_000)
    pq.write_table(pa.table({"item": x, "other": x[::-1].copy()}), tmp_path / "v.parquet", row_group_size=1_500)
    np.save(tmp_path / "v.npy", x)
    for f, cols in ((tmp_path / "v.parquet", ["item"]), (tmp_path / "v.npy", None)):
        assert value_rows(f) == 10_000
        for lo, hi in ((0, 10_000), (1_499, 1_501), (2_000, 2_000), (9_000, 10_000)):
            assert np.array_equal(read_value_rows(f, cols, lo, hi), load_values(f, cols)[lo:hi])
    with pytest.raises(ValueError, match=r"hi \(end row\) must be in \[5, 10000\], got 10001"):
        read_value_rows(tmp_path / "v.npy", None, 5, 10_001)
    args = ("simulate", str(cfg), "--seed", "6")
    loc = _cli(*args, "--values", str(tmp_path / "v.parquet"), "--column", "item")
    das = _cli(*args, "--values", str(tmp_path / "v.parquet"), "--column", "item", "--engine", "dask",
               "--partitions", "3")
    assert das["estimates"] == loc["estimates"] and das["devices"] == 10_000
    m = fxdp.make_randomized_response([0, 1, 2, 3], "1/2")
    stat, truth, _ = D.simulate_values_file(m, tmp_path / "v.npy", None, 6, client, partitions=4)
    ref = _single(m, x, 6)
    _same(stat, ref)
    assert np.array_equal(truth, m.true_statistic(x)) and stat.estimate_rows(truth) == ref.estimate_rows(truth)


def test_cli_against_a_scheduler_and_workers_started_as_processes(tmp_path):
    """`dask scheduler` and `dask worker` (2 single-threaded worker processes) on 127.0.0.1, started
    here and always torn down; `fxdp simulate --engine dask --scheduler ADDRESS` equals the local run."""
    cfg = tmp_path / "m.toml"
    cfg.write_text('[mechanism]\nkind = "unary_encoding"\nd = 8\nepsilon = 1\n')
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(fxdp.__file__).resolve().parents[1]),
                                         env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    sfile = tmp_path / "scheduler.json"
    dask_cli = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    procs = []
    try:
        procs.append(subprocess.Popen(dask_cli + ["--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                                  "--scheduler-file", str(sfile)],
                                      env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
        for _ in range(300):
            if sfile.exists() and sfile.stat().st_size:
                break
            assert procs[0].poll() is None, "dask scheduler exited"
            time.sleep(0.1)
        address = json.loads(sfile.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                                       "--nworkers", "2", "--nthreads", "1", "--host", "127.0.0.1",
                                       "--no-dashboard"],
                                      env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
        args = ("simulate", str(cfg), "--devices", "30000", "--seed", "8")
        das = _cli(*args, "--engine", "dask", "--scheduler", address, env=env)
        loc = _cli(*args)
        assert das["estimates"] == loc["estimates"] and das["engine"] == "dask" and das["devices"] == 30_000
    finally:
        for p in reversed(procs):               # the workers (nanny and worker processes), then the scheduler
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in reversed(procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=20)


def test_cli_devices_cap_is_higher_on_a_cluster(tmp_path):
    """--devices above 10^9 is refused locally, and above 10^12 with --engine dask, before any draw."""
    cfg = tmp_path / "m.toml"
    cfg.write_text('[mechanism]\nkind = "randomized_response"\ncategories = [0, 1]\nprob = "3/4"\n')
    r = subprocess.run([sys.executable, "-m", "fxdp", "simulate", str(cfg), "--devices", str(10**12 + 1),
                        "--engine", "dask"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "--devices must be an integer in [1, 1000000000000], got 1000000000001" in r.stderr
