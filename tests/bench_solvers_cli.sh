#!/bin/sh
# bench_solvers_cli.sh BENCH_SOLVERS LIST — runs bench_solvers (experiments/bench_solvers.c)
# at tiny sizes and checks bench_solvers.tsv: its header columns; for every solver that
# `list --tsv` names, either a row at each size or a "# skipped NAME: reason" line (never
# both, and not every solver skipped); the three yardstick rows at each size; positive
# finite figures; and that a bad --sizes value or an interrupted run leaves no
# bench_solvers.tsv (an interrupted one leaves only bench_solvers.tsv.partial).
# POSIX sh; files live in a private mktemp -d directory. Prints ok/FAIL per check.
set -u
bench=${1:?usage: bench_solvers_cli.sh PATH_TO_BENCH_SOLVERS PATH_TO_LIST}
list=${2:?usage: bench_solvers_cli.sh PATH_TO_BENCH_SOLVERS PATH_TO_LIST}
. "$(dirname "$0")/lib.sh"
weft_tmpdir bench-solvers

"$bench" --sizes 8,12 --threads 1 --repeats 1 --no-plot --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
check "runs" $?
t="$tmp/out/bench_solvers.tsv"
[ -f "$t" ] && [ ! -f "$t.partial" ]
check "bench_solvers.tsv renamed into place" $?
[ ! -f "$tmp/out/bench_solvers.png" ]
check "--no-plot draws no figure" $?

header=$(grep -v '^#' "$t" | head -1)
for c in solver n threads ms_per_iteration ns_per_vertex peak_mib; do
    printf '%s\n' "$header" | tr '\t' '\n' | grep -qx "$c"
    check "header has column $c" $?
done

# Every registered solver: rows at both sizes, or a skipped line, not both.
"$list" --tsv | awk -F'\t' '$1 == "solver" { print $2 }' | sort -u >"$tmp/solvers"
[ -s "$tmp/solvers" ]
check "list --tsv names solvers" $?
nrun=0
while read -r s; do
    rows=$(awk -F'\t' -v s="$s" '!/^#/ && $1 == s && $4 == 1' "$t" | wc -l)
    skip=$(grep -c "^# skipped $s: ." "$t")
    if [ "$rows" -eq 2 ] && [ "$skip" -eq 0 ]; then nrun=$((nrun + 1)); r=0
    elif [ "$rows" -eq 0 ] && [ "$skip" -eq 1 ]; then r=0
    else r=1; fi
    check "$s: a row per size or a skipped line (rows $rows, skipped $skip)" $r
done <"$tmp/solvers"
[ "$nrun" -ge 2 ]
check "at least two solvers ran (got $nrun)" $?
for y in yardstick_pbd_sweep yardstick_newton_assembly yardstick_cholmod; do
    rows=$(awk -F'\t' -v s="$y" '!/^#/ && $1 == s' "$t" | wc -l)
    [ "$rows" -eq 2 ]
    check "$y: a row per size (got $rows)" $?
done
# Nothing else: rows = (solvers run + 3 yardsticks) x 2 sizes.
rows=$(grep -v '^#' "$t" | tail -n +2 | wc -l)
[ "$rows" -eq $(( (nrun + 3) * 2 )) ]
check "no other rows (got $rows)" $?

# Figures: positive and finite, by column name.
awk -F'\t' 'BEGIN { split("n threads ms_per_iteration ns_per_vertex peak_mib", w, " ") }
    /^#/ { next }
    !h { for (k = 1; k <= NF; k++) col[$k] = k; h = 1; next }
    { for (i in w) { v = $(col[w[i]]);
        if (v !~ /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ || !(v + 0 > 0)) bad = bad " " $1 ":" w[i] "=" v } }
    END { if (bad != "") print "bad figures:" bad; exit bad != "" }' "$t"
check "every figure positive and finite" $?
awk -F'\t' '!/^#/ && $1 != "solver" && ($2 != 8 && $2 != 12 || $3 != $2 * $2) { bad = 1 }
    END { exit bad }' "$t"
check "n is 8 or 12 and vertices n^2" $?

# A bad --sizes value: exit 2, one-line error naming the option, nothing written.
"$bench" --sizes 8,x --threads 1 --repeats 1 --no-plot --out "$tmp/bad" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -q -- '--sizes' "$tmp/stderr"
check "bad --sizes: exit 2 (got $rc) with a one-line error" $?
[ ! -e "$tmp/bad/bench_solvers.tsv" ] && [ ! -e "$tmp/bad/bench_solvers.tsv.partial" ]
check "bad --sizes: no tsv written" $?
"$bench" --threads 0 --no-plot --out "$tmp/bad" >/dev/null 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && [ ! -e "$tmp/bad/bench_solvers.tsv" ]
check "bad --threads: exit 2 (got $rc), one line, no tsv" $?

# An interrupted run (stopped by a signal while it measures a large grid): the rows so far
# stay in bench_solvers.tsv.partial; no bench_solvers.tsv. timeout signals its whole
# process group, so the measuring child stops too.
if command -v timeout >/dev/null 2>&1; then
    timeout 4 "$bench" --sizes 8,1024 --threads 1 --repeats 1 --no-plot --out "$tmp/int" \
        >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq 124 ]
    check "interrupted run stopped by the signal (exit $rc)" $?
    [ ! -e "$tmp/int/bench_solvers.tsv" ] && [ -f "$tmp/int/bench_solvers.tsv.partial" ]
    check "interrupted run: only bench_solvers.tsv.partial" $?
else
    echo "skip: no timeout(1) for the interrupted run"
fi

# --help names the outputs and options.
"$bench" --help >"$tmp/help" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q 'bench_solvers.tsv' "$tmp/help" && grep -q -- '--sizes' "$tmp/help" &&
    grep -q -- '--threads' "$tmp/help" && grep -q -- '--repeats' "$tmp/help"
check "--help exits 0 and names bench_solvers.tsv, --sizes, --threads, --repeats" $?

exit $failed
