#!/bin/sh
# WP proof of the ACSL contracts of the fixed-point helpers (csrc/fxdp.h, csrc/fxdp_fixed.c),
# with RTE guards (-wp-rte: no undefined behaviour inside them).  Prover: Z3 through Why3
# (apt-get install frama-c-base why3 z3).  Prints "[wp] Proved goals: P / T"; exit 1 unless all.
# Usage: tools/eva/run_wp.sh [csrc dir]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../../csrc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
why3 --config="$tmp/why3.conf" config detect >/dev/null 2>&1
# the static helpers have no contracts of their own: inline them into the public functions
helpers=fxdp__s32,fxdp__s64,fxdp__abs32,fxdp__abs64,fxdp__round_ok,fxdp__round_up,fxdp__mul_u64x64
fns=fxdp_clz32,fxdp_clz64,fxdp_sat_add_i32,fxdp_sat_sub_i32,fxdp_checked_add_i32,fxdp_checked_sub_i32,fxdp_mul_q_i32,fxdp_sat_add_i64,fxdp_sat_sub_i64,fxdp_checked_add_i64,fxdp_checked_sub_i64,fxdp_mul_q_i64,fxdp_sat_add_u32,fxdp_sat_sub_u32,fxdp_checked_add_u32,fxdp_checked_sub_u32,fxdp_mul_q_u32
WHY3CONFIG="$tmp/why3.conf" frama-c -machdep gcc_x86_64 "$src/fxdp_fixed.c" -inline-calls "$helpers" \
    -wp -wp-rte -wp-fct "$fns" -wp-prover z3 -wp-timeout "${WP_TIMEOUT:-10}" -wp-par "${WP_PAR:-1}" \
    -wp-session "${WP_SESSION:-$tmp/session}" > "$tmp/log" 2>&1 || true
grep -v '^\[kernel\] Parsing' "$tmp/log" | grep -E 'Proved goals|Timeout|Unknown|Failed|Error|error' | head -60
grep -q 'Proved goals: *\([0-9]*\) / \1$' "$tmp/log"
