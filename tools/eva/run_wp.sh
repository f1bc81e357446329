#!/bin/sh
# WP proof of the ACSL contracts of the fixed-point helpers (csrc/fxdp.h, csrc/fxdp_fixed.c),
# with RTE guards (-wp-rte: no undefined behaviour inside them).  Prover: Z3 through Why3
# (apt-get install frama-c-base why3 z3).  Prints "[wp] Proved goals: P / T"; exit 1 unless all.
# The prover's budget is Z3's step count (rlimit), not wall time: a goal proved alone is proved on a
# loaded machine too.  The hardest goal (fxdp_mul_q_i64, behavior check) takes 38.3 M steps, about
# 5 CPU s; with a 10 s wall limit it failed once in CI while the suite starved Z3 of CPU.
# WP_TIMEOUT is only a backstop against a hung prover.
# Usage: tools/eva/run_wp.sh [csrc dir]   (WP_FNS=f,g: those functions only, for debugging)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../../csrc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
why3 --config="$tmp/why3.conf" config detect >/dev/null 2>&1
# the static helpers have no contracts of their own: inline them into the public functions
helpers=fxdp__s32,fxdp__s64,fxdp__abs32,fxdp__abs64,fxdp__round_ok,fxdp__round_up,fxdp__mul_u64x64
fns=${WP_FNS:-fxdp_clz32,fxdp_clz64,fxdp_sat_add_i32,fxdp_sat_sub_i32,fxdp_checked_add_i32,fxdp_checked_sub_i32,fxdp_mul_q_i32,fxdp_sat_add_i64,fxdp_sat_sub_i64,fxdp_checked_add_i64,fxdp_checked_sub_i64,fxdp_mul_q_i64,fxdp_sat_add_u32,fxdp_sat_sub_u32,fxdp_checked_add_u32,fxdp_checked_sub_u32,fxdp_mul_q_u32}
WHY3CONFIG="$tmp/why3.conf" frama-c -machdep gcc_x86_64 "$src/fxdp_fixed.c" -inline-calls "$helpers" \
    -wp -wp-rte -wp-fct "$fns" -wp-prover z3 -wp-steps "${WP_STEPS:-400000000}" \
    -wp-timeout "${WP_TIMEOUT:-600}" -wp-par "${WP_PAR:-1}" \
    -wp-session "${WP_SESSION:-$tmp/session}" > "$tmp/log" 2>&1 || true
# A goal whose prover run ended in an error ("Failed", Z3's "Unknown error": a crash, not an answer)
# gets one more run, its function alone with a fresh session.  A goal over the step budget
# ("Unknown") is not retried: the budget is deterministic, a second run would only repeat it.
retry=""
for f in $(echo "$fns" | tr , ' '); do
    grep -q "Goal typed_${f}_[A-Za-z0-9_]* : Failed" "$tmp/log" && retry="$retry${retry:+,}$f"
done
if [ -n "$retry" ]; then
    echo "[wp] prover errors in $retry: running those functions again"
    WHY3CONFIG="$tmp/why3.conf" frama-c -machdep gcc_x86_64 "$src/fxdp_fixed.c" -inline-calls "$helpers" \
        -wp -wp-rte -wp-fct "$retry" -wp-prover z3 -wp-steps "${WP_STEPS:-400000000}" \
        -wp-timeout "${WP_TIMEOUT:-600}" -wp-par 1 -wp-cache none -wp-session "$tmp/retry" \
        > "$tmp/retry.log" 2>&1 || true
    # proved overall = proved in the first run + the first run's failed goals the second run proves
    awk '
        FNR == NR && / : Failed/ { for (i = 1; i <= NF; i++) if ($i ~ /^typed_/) failed[$i] = 1 }
        FNR == NR && /Proved goals:/ { split($0, a, /Proved goals: */); split(a[2], pt, / *\/ */); p = p0 = pt[1]; t = pt[2] }
        FNR != NR && / : Valid/ { for (i = 1; i <= NF; i++) if (($i ~ /^typed_/) && ($i in failed)) { p++; print "[wp] proved on the second run: " $i } }
        END { printf "[wp] first run: %d of %d goals proved\n[wp] Proved goals: %d / %d\n", p0, t, p, t }
    ' "$tmp/log" "$tmp/retry.log" > "$tmp/retried"
    grep -v 'Proved goals' "$tmp/log" > "$tmp/log1"
    cat "$tmp/retried" >> "$tmp/log1"
    mv "$tmp/log1" "$tmp/log.final"
else
    cp "$tmp/log" "$tmp/log.final"
fi
grep -v '^\[kernel\] Parsing' "$tmp/log.final" | grep -E 'Proved goals|Timeout|Unknown|Failed|Error|error|second run|first run' | head -60
grep -q 'Proved goals: *\([0-9]*\) / \1$' "$tmp/log.final"
