#!/bin/bash
cd /work/wt-numeric
export PYTHONPATH=/work/wt-numeric FXDP_CACHE_DIR=/tmp/fxdp-cache-numeric
run() { kind=$1; seed=$2
  echo "$(date -u +%FT%TZ) start $kind $seed" >> runs/progress.log
  nice -n 5 python3 benchmarks/bench_numeric.py --kinds $kind --devices 1000000 --reps 300 --first-seed $seed --json runs/${kind}_n1e6_seed${seed}.json > runs/${kind}_n1e6_seed${seed}.log 2>&1
  echo "$(date -u +%FT%TZ) end $kind $seed rc=$?" >> runs/progress.log
}
run duchi 600
run piecewise 0
run piecewise 300
run piecewise 600
run hybrid 0
run hybrid 300
run hybrid 600
echo "$(date -u +%FT%TZ) all done" >> runs/progress.log
