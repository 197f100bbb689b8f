#!/bin/sh
# rcm_cli.sh RCM — runs the rcm experiment (experiments/rcm.c) at small sizes and checks
# its outputs: a complete summary.tsv with one row per size and ordering, shuffling that
# widens the band and RCM that narrows it again, PPCG iteration counts that the ordering
# does not change by more than rounding can, pattern files with one line per block, the
# help text naming the outputs, and one-line errors for bad options with no summary left.
# POSIX sh; files live in a private mktemp -d directory. Prints ok/FAIL per check.
set -u
rcm=${1:?usage: rcm_cli.sh PATH_TO_RCM}
. "$(dirname "$0")/lib.sh"
weft_tmpdir rcm

"$rcm" --sizes 6,9 --repeats 1 --pattern-max 6 --no-plot --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
check "runs" $?
s="$tmp/out/rcm/summary.tsv"
[ -f "$s" ] && [ ! -f "$s.partial" ]
check "summary renamed into place" $?
rows=$(grep -vc '^#' "$s")
[ "$rows" -eq 9 ] # header + 2 sizes x 4 orderings
check "summary has 8 rows (got $((rows - 1)))" $?
# Columns: size ordering vertices blocks bandwidth profile spmv_us ppcg_iters ppcg_ms status
awk -F'\t' '!/^#/ && $1 == 9 { bw[$2] = $5; it[$2] = $8; st = st $10 " " }
    END { ok = bw["shuffled"] > 2 * bw["shuffled_rcm"] && bw["grid_rcm"] <= bw["grid"];
          d = it["shuffled"] - it["grid"]; if (d < 0) d = -d; ok = ok && d <= 2;
          ok = ok && st == "converged converged converged converged ";
          exit !ok }' "$s"
check "band widens when shuffled and narrows with RCM; PPCG converges in the same count" $?
p="$tmp/out/rcm/pattern_6_shuffled_rcm.tsv"
blocks=$(awk -F'\t' '!/^#/ && $1 == 6 && $2 == "shuffled_rcm" { print $4 }' "$s")
[ -f "$p" ] && [ "$(($(wc -l <"$p") - 1))" -eq "$blocks" ] && [ ! -f "$tmp/out/rcm/pattern_9_grid.tsv" ]
check "pattern file holds every block, only up to --pattern-max" $?

"$rcm" -h >"$tmp/help" 2>&1
[ $? -eq 0 ] && grep -q 'summary.tsv' "$tmp/help" && grep -q 'pattern_N.png' "$tmp/help" &&
    grep -q -- '--sizes' "$tmp/help"
check "help lists options and outputs" $?

for bad in "--sizes 1" "--sizes x" "--seed 0" "--repeats" "--set mesh.reorder=rcm" \
    "--set material.density=-1"; do
    # shellcheck disable=SC2086
    "$rcm" $bad --no-plot --out "$tmp/bad" >/dev/null 2>"$tmp/err"
    st=$?
    [ "$st" -ne 0 ] && [ "$st" -lt 128 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        [ ! -f "$tmp/bad/rcm/summary.tsv" ]
    check "refuses '$bad' with one line" $?
done
exit $failed
