#!/bin/sh
# bench_solvers_cli.sh BENCH_SOLVERS LIST — runs bench_solvers (experiments/bench_solvers.c)
# at tiny sizes with 1 and 2 threads and checks bench_solvers.tsv: its header columns; for
# every solver that `list --tsv` names, either a row at each size or a "# skipped NAME:
# reason" line (never both, and not every solver skipped); the three yardstick rows at each
# size; positive finite figures; bench_solvers_ratios.tsv: its header, the four target
# ratios at each size with finite positive min <= median <= max over the rounds; groups
# one after another when memory is short (--min-free-mib); and that a bad --sizes value or
# an interrupted run leaves neither table (an interrupted one only the .partial files, and
# no child running).
# POSIX sh; files live in a private mktemp -d directory. Prints ok/FAIL per check.
set -u
bench=${1:?usage: bench_solvers_cli.sh PATH_TO_BENCH_SOLVERS PATH_TO_LIST}
list=${2:?usage: bench_solvers_cli.sh PATH_TO_BENCH_SOLVERS PATH_TO_LIST}
. "$(dirname "$0")/lib.sh"
weft_tmpdir bench-solvers

"$bench" --sizes 8,12 --threads 1,2 --repeats 2 --no-plot --out "$tmp/out" \
    >"$tmp/stdout" 2>"$tmp/stderr"
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
    rows=$(awk -F'\t' -v s="$y" '!/^#/ && $1 == s && $4 == 1' "$t" | wc -l)
    [ "$rows" -eq 2 ]
    check "$y: a row per size (got $rows)" $?
done
# Nothing else: rows = (solvers run + 3 yardsticks) x 2 sizes x 2 thread counts.
rows=$(grep -v '^#' "$t" | tail -n +2 | wc -l)
[ "$rows" -eq $(( (nrun + 3) * 2 * 2 )) ]
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

# The ratios table: renamed into place, its header, the four ratios at both sizes (two
# rounds each), figures finite and positive with min <= median <= max.
r="$tmp/out/bench_solvers_ratios.tsv"
[ -f "$r" ] && [ ! -f "$r.partial" ]
check "bench_solvers_ratios.tsv renamed into place" $?
want='ratio n numerator numerator_threads denominator denominator_threads target median min max'
[ "$(grep -v '^#' "$r" | head -1)" = "$(printf '%s rounds' "$want" | tr ' ' '\t')" ]
check "ratios header" $?
for q in xpbd_over_pbd_sweep pd_over_pbd_sweep vbd_over_newton_assembly vbd_thread_speedup; do
    rows=$(awk -F'\t' -v q="$q" '!/^#/ && $1 == q && ($2 == 8 || $2 == 12) && $11 == 2' "$r" |
        wc -l)
    [ "$rows" -eq 2 ]
    check "ratio $q: a row per size over 2 rounds (got $rows)" $?
done
awk -F'\t' '/^#/ || $1 == "ratio" { next }
    { for (k = 8; k <= 10; k++)
        if ($k !~ /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ || !($k + 0 > 0)) bad = 1
      if (!($9 + 0 <= $8 + 0 && $8 + 0 <= $10 + 0)) bad = 1; n++ }
    END { exit bad || n != 8 }' "$r"
check "ratios: 8 rows, finite positive, min <= median <= max" $?
grep -q '^# n=12: [0-9]* children alive together' "$r"
check "ratios: the children's memory noted per size" $?

# Too little memory for a size's children together (--min-free-mib above any machine's):
# each child measured alone, one group after another; the same rows, and the ratios say
# they are not side by side.
"$bench" --sizes 8 --threads 1,2 --repeats 1 --min-free-mib 1e11 --no-plot --out "$tmp/mem" \
    >/dev/null 2>&1
check "--min-free-mib: runs" $?
m="$tmp/mem/bench_solvers_ratios.tsv"
rows=$(grep -v '^#' "$tmp/mem/bench_solvers.tsv" | tail -n +2 | wc -l)
[ "$rows" -eq $(( (nrun + 3) * 2 )) ]
check "--min-free-mib: all rows (got $rows)" $?
grep -q "^# n=8: $rows children in $rows groups one after another" "$m" &&
    [ "$(grep -c '^# ratio .* not measured side by side' "$m")" -eq 4 ]
check "--min-free-mib: groups noted, ratios not side by side" $?

# A bad --sizes value: exit 2, one-line error naming the option, nothing written.
"$bench" --sizes 8,x --threads 1 --repeats 1 --no-plot --out "$tmp/bad" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -q -- '--sizes' "$tmp/stderr"
check "bad --sizes: exit 2 (got $rc) with a one-line error" $?
[ ! -e "$tmp/bad/bench_solvers.tsv" ] && [ ! -e "$tmp/bad/bench_solvers.tsv.partial" ] &&
    [ ! -e "$tmp/bad/bench_solvers_ratios.tsv.partial" ]
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
    [ ! -e "$tmp/int/bench_solvers_ratios.tsv" ] &&
        [ -f "$tmp/int/bench_solvers_ratios.tsv.partial" ]
    check "interrupted run: only bench_solvers_ratios.tsv.partial" $?
    sleep 1
    left=$(ps -eo args= |
        P="--out $tmp/int" awk 'index($0, ENVIRON["P"]) { n++ } END { print n + 0 }')
    [ "$left" -eq 0 ]
    check "interrupted run: no child left running (got $left)" $?
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
