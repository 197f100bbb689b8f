#!/bin/sh
# plots_palette.sh CASE PLOTS — the figures' colours and axes (experiments/plots/*.gp).
# Draws small synthetic logs with the real figure scripts as SVG (svg=1) and reads back,
# for every curve (its <title> in the SVG), the colour and point type gnuplot drew it with.
#   order       convergence.gp and damping.gp with the solvers in one order and in the
#               reverse order: each solver has the same colour (and point type) in both,
#               different solvers different colours, none too pale to read on white
#               (luminance below 0.75), a name outside the palette's table included
#   xpbd_label  convergence.gp's iteration axis says "iterations (substeps for xpbd)" when
#               xpbd is plotted and "iterations" otherwise; its time axis is logarithmic
# Exits 77 (skipped) without gnuplot. POSIX sh.
set -u

usage="usage: plots_palette.sh CASE PLOTS"
case_name=${1:?$usage}
plots=${2:?$usage}
command -v gnuplot >/dev/null 2>&1 || { echo "skipped: no gnuplot"; exit 77; }

. "$(dirname "$0")/lib.sh"
weft_tmpdir palette-$case_name

# A log in weft's format (the columns convergence.gp finds by name) for step 5, whose
# wall times start at $2 s and grow by $3 s per iteration.
write_log() {
    {
        echo "# weft log (synthetic)"
        echo "# step iter wall_s residual_rel crms"
        i=0
        for r in 1 0.5 0.1 0.02 0.004; do
            echo "5 $i $(awk -v a="$2" -v b="$3" -v i="$i" 'BEGIN { printf "%.6f", a + b * i }') $r $r"
            i=$((i + 1))
        done
    } >"$1"
}

# A damping table (header row, then step t_s ... ratio ratio_mech in columns 7 and 8).
write_energy() {
    {
        printf '# synthetic\n'
        printf 'step\tt_s\ta\tb\tc\td\tratio\tratio_mech\n'
        for i in 0 1 2 3; do printf '%d\t%s\t0\t0\t0\t0\t%s\t%s\n' "$i" "0.$i" "1.$2" "0.9$2"; done
    } >"$1"
}

# "title colour point" for every titled curve of an SVG (the first stroke after its
# title; untitled curves, such as damping.gp's reference line, are named gnuplot_plot_N).
curves() {
    awk '/<title>/ && !/<title>(Gnuplot|gnuplot_plot_)/ { t = $0; sub(/.*<title>/, "", t); sub(/<\/title>.*/, "", t); want = 1; next }
         want && /stroke=.rgb\(/ {
             c = $0; sub(/.*stroke=.rgb\(/, "", c); sub(/\).*/, "", c); gsub(/ /, "", c)
             p = "-"; if (match($0, /#gpPt[0-9]+/)) p = substr($0, RSTART + 5, RLENGTH - 5)
             print t, c, p; want = 0 }' "$1" | sort -u
}

names="newton_euler xpbd pbd_jacobi my_new_solver"
reversed="my_new_solver pbd_jacobi xpbd newton_euler"

case $case_name in
order)
    for n in $names; do
        write_log "$tmp/$n.log" 0.01 0.002
        write_energy "$tmp/$n.tsv" "$(printf '%s' "$n" | wc -c)"
    done
    for script in convergence damping; do
        for order in 1 2; do
            if [ "$order" -eq 1 ]; then list=$names; else list=$reversed; fi
            files=""
            for n in $list; do
                if [ "$script" = convergence ]; then f="$tmp/$n.log"; else f="$tmp/$n.tsv"; fi
                files="$files${files:+ }$f"
            done
            if [ "$script" = convergence ]; then
                defs="logs='$files'; names='$list'; step=5; xaxis='iter'; out='$tmp/$script$order.svg'; svg=1"
            else
                defs="files='$files'; names='$list'; out='$tmp/$script$order.svg'; scene='t'; dt=0.01; svg=1"
            fi
            gnuplot -e "$defs" "$plots/$script.gp" >"$tmp/gp.txt" 2>&1 ||
                fail "$script.gp failed: $(head -n 3 "$tmp/gp.txt")"
            curves "$tmp/$script$order.svg" >"$tmp/$script$order.txt"
        done
        count=$(wc -l <"$tmp/${script}1.txt")
        [ "$count" -eq 4 ] || fail "$script.gp: $count distinct (solver, colour) curves, expected 4: $(tr '\n' ';' <"$tmp/${script}1.txt")"
        if [ "$count" -gt 0 ] && cmp -s "$tmp/${script}1.txt" "$tmp/${script}2.txt"; then
            ok "$script.gp: each solver keeps its colour when the order is reversed"
        else
            fail "$script.gp: colours follow the order: $(tr '\n' ';' <"$tmp/${script}1.txt") vs $(tr '\n' ';' <"$tmp/${script}2.txt")"
        fi
        distinct=$(awk '{ print $2 }' "$tmp/${script}1.txt" | sort -u | wc -l)
        [ "$distinct" -eq 4 ] || fail "$script.gp: $distinct colours for 4 solvers"
        pale=$(awk '{ split($2, c, ","); l = (0.2126 * c[1] + 0.7152 * c[2] + 0.0722 * c[3]) / 255
                      if (l >= 0.75) print $1 "=" $2 }' "$tmp/${script}1.txt")
        [ -z "$pale" ] || fail "$script.gp: too pale on white: $pale"
    done
    # The same solver has the same colour in both figures.
    a=$(awk '{ print $1, $2 }' "$tmp/convergence1.txt")
    b=$(awk '{ print $1, $2 }' "$tmp/damping1.txt")
    [ "$a" = "$b" ] || fail "convergence.gp and damping.gp colour the solvers differently"
    [ "$failed" -eq 0 ] && ok "one colour per solver across figures: $(tr '\n' ';' <"$tmp/convergence1.txt")"
    ;;
xpbd_label)
    write_log "$tmp/a.log" 0.5 0.002
    write_log "$tmp/b.log" 0.5 0.05
    gnuplot -e "logs='$tmp/a.log $tmp/b.log'; names='pbd_jacobi xpbd'; step=5; xaxis='iter'; out='$tmp/x.svg'; svg=1" \
        "$plots/convergence.gp" >"$tmp/gp.txt" 2>&1 || fail "convergence.gp failed: $(head -n 3 "$tmp/gp.txt")"
    grep -q ">iterations (substeps for xpbd)<" "$tmp/x.svg" || fail "with xpbd: no 'iterations (substeps for xpbd)' axis label"
    gnuplot -e "logs='$tmp/a.log $tmp/b.log'; names='pbd_jacobi newton_euler'; step=5; xaxis='iter'; out='$tmp/n.svg'; svg=1" \
        "$plots/convergence.gp" >"$tmp/gp.txt" 2>&1 || fail "convergence.gp failed: $(head -n 3 "$tmp/gp.txt")"
    grep -q ">iterations<" "$tmp/n.svg" || fail "without xpbd: no 'iterations' axis label"
    grep -q "substeps for xpbd" "$tmp/n.svg" && fail "without xpbd: the label still names xpbd"
    gnuplot -e "logs='$tmp/a.log $tmp/b.log'; names='pbd_jacobi newton_euler'; step=5; xaxis='time'; out='$tmp/t.svg'; svg=1" \
        "$plots/convergence.gp" >"$tmp/gp.txt" 2>&1 || fail "convergence.gp failed: $(head -n 3 "$tmp/gp.txt")"
    grep -q "log scale)<" "$tmp/t.svg" || fail "time axis: not labelled as a log scale"
    [ "$failed" -eq 0 ] && ok "iteration axis names xpbd's substeps only with xpbd; time axis logarithmic"
    ;;
*)
    echo "plots_palette.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac
exit "$failed"
