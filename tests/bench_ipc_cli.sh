#!/bin/sh
# bench_ipc_cli.sh BENCH_IPC PLOTS — runs bench_ipc (experiments/bench_ipc.c) at 8², 11
# warm-up and three timed steps (around the landing: a free fall takes no Newton
# iteration), one repeat, and checks bench_ipc.tsv: renamed into place complete (no ".partial", no
# incomplete status); its header, column by column; one row per configuration (none, ipc)
# in that order; whole positive iteration counts and positive finite times; the ipc timers
# in the ipc row only; the breakdown adding up to the time per iteration; none's ratios 1;
# the friction choice stated; --no-plot draws nothing, and plots/bench_ipc.gp draws the
# table (skipped without gnuplot). Also: a bad --sizes value (exit 2, one line, nothing
# written), an interrupted run (only the ".partial" file) and --help. No timing is
# asserted. POSIX sh; files live in a private mktemp -d directory.
set -u
bench=${1:?usage: bench_ipc_cli.sh PATH_TO_BENCH_IPC PLOTS_DIR}
plots=${2:?usage: bench_ipc_cli.sh PATH_TO_BENCH_IPC PLOTS_DIR}
. "$(dirname "$0")/lib.sh"
weft_tmpdir bench-ipc

"$bench" --sizes 8 --warmup 11 --steps 3 --repeats 1 --no-plot --out "$tmp/out" \
    >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "runs (exit $rc)" $rc
[ "$rc" -eq 0 ] || sed 's/^/    stderr: /' "$tmp/stderr"
t="$tmp/out/bench_ipc.tsv"
[ -f "$t" ] && [ ! -e "$t.partial" ] && ! grep -q 'status=incomplete' "$t"
check "bench_ipc.tsv complete and renamed into place" $?

[ ! -e "$tmp/out/bench_ipc.png" ]
check "--no-plot draws no figure" $?
if command -v gnuplot >/dev/null 2>&1; then
    gnuplot -e "file='$t'; out='$tmp/fig.png'" "$plots/bench_ipc.gp" 2>"$tmp/gp.err" &&
        [ -s "$tmp/fig.png" ] && [ ! -s "$tmp/gp.err" ]
    check "bench_ipc.gp draws the table without a warning (a column it names is missing)" $?
    sed 's/^/    gnuplot: /' "$tmp/gp.err"
else
    echo "skip: no gnuplot for bench_ipc.gp"
fi

want="contact n vertices threads warmup steps iterations ms_per_iteration cpu_ms_per_iteration"
want="$want ms_per_step assemble_ms system_ms linear_ms line_search_ms other_ms ipc_fill_ms"
want="$want ipc_ccd_ms ratio_to_none cpu_ratio_to_none peak_mib repeats"
got=$(grep -v '^#' "$t" | head -1 | tr '\t' ' ')
[ "$got" = "$want" ]
check "header is: $want (got: $got)" $?

rows=$(grep -v '^#' "$t" | tail -n +2 | cut -f1 | tr '\n' ' ')
[ "$rows" = "none ipc " ]
check "rows none then ipc (got: $rows)" $?

# Figures by column name: counts whole and positive, times positive and finite; ipc_fill_ms
# and ipc_ccd_ms numbers in the ipc row and "-" in none's; none's ratios exactly 1.
awk -F'\t' '
    function num(v) { return v ~ /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
    /^#/ { next }
    !h { for (k = 1; k <= NF; k++) col[$k] = k; h = 1; next }
    {
        if ($(col["n"]) != 8 || $(col["vertices"]) != 64 || $(col["warmup"]) != 11 ||
            $(col["steps"]) != 3 || $(col["repeats"]) != 1 || $(col["threads"]) != 1)
            bad = bad " " $1 ":set-up"
        if ($(col["iterations"]) !~ /^[1-9][0-9]*$/) bad = bad " " $1 ":iterations"
        n = split("ms_per_iteration cpu_ms_per_iteration ms_per_step assemble_ms linear_ms " \
                  "line_search_ms peak_mib ratio_to_none cpu_ratio_to_none", w, " ")
        for (i = 1; i <= n; i++) if (!num($(col[w[i]])) || !($(col[w[i]]) + 0 > 0))
            bad = bad " " $1 ":" w[i] "=" $(col[w[i]])
        for (i = 1; i <= 2; i++) {
            c = i == 1 ? "ipc_fill_ms" : "ipc_ccd_ms"; v = $(col[c])
            if ($1 == "ipc" ? !(num(v) && v + 0 > 0) : v != "-") bad = bad " " $1 ":" c "=" v
        }
        if ($1 == "none" && ($(col["ratio_to_none"]) != 1 || $(col["cpu_ratio_to_none"]) != 1))
            bad = bad " none:ratio"
        # the parts of an iteration add up to it (other is the rest; 4 decimals written)
        s = $(col["assemble_ms"]) + $(col["system_ms"]) + $(col["linear_ms"]) + \
            $(col["line_search_ms"]) + $(col["other_ms"])
        d = s - $(col["ms_per_iteration"]); if (d < 0) d = -d
        if (d > 5e-4) bad = bad " " $1 ":sum=" s "/" $(col["ms_per_iteration"])
    }
    END { if (bad != "") print "bad:" bad; exit bad != "" }' "$t"
check "figures: whole positive iterations, positive times, ipc timers in ipc only, parts add up" $?
grep -q "^# bench_ipc: drape_sphere, newton_euler, iteration cap 50, .*friction 0 in both" "$t"
check "comment names the scene, solver, cap and friction" $?

# A bad --sizes value: exit 2, a one-line error naming the option, nothing written.
"$bench" --sizes 8,x --no-plot --out "$tmp/bad" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -q -- '--sizes' "$tmp/stderr" &&
    [ ! -e "$tmp/bad/bench_ipc.tsv" ] && [ ! -e "$tmp/bad/bench_ipc.tsv.partial" ]
check "bad --sizes: exit 2 (got $rc), one line, nothing written" $?

# An interrupted run (a large grid): only bench_ipc.tsv.partial is left.
if command -v timeout >/dev/null 2>&1; then
    timeout 3 "$bench" --sizes 512 --no-plot --out "$tmp/int" >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq 124 ] && [ ! -e "$tmp/int/bench_ipc.tsv" ] &&
        [ -f "$tmp/int/bench_ipc.tsv.partial" ]
    check "interrupted run (exit $rc): only bench_ipc.tsv.partial" $?
else
    echo "skip: no timeout(1) for the interrupted run"
fi

"$bench" --help >"$tmp/help" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q 'bench_ipc.tsv' "$tmp/help" && grep -q -- '--sizes' "$tmp/help" &&
    grep -q -- '--repeats' "$tmp/help" && grep -q -- '--warmup' "$tmp/help"
check "--help exits 0 and names bench_ipc.tsv, --sizes, --repeats, --warmup" $?

exit $failed
