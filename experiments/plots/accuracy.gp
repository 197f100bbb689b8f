# accuracy.gp — error of the state after a fixed simulated time against cost (accuracy.c).
# Usage:
#   gnuplot -e "summary='summary.tsv'; out='accuracy.png'; scene='hanging_cloth'; reference='newton_euler, dt = 0.00052'" accuracy.gp
# summary.tsv columns: solver dt_s steps iterations wall_s ms_per_step error_rms_m
# error_max_m status; one curve per (solver, iterations) pair found in it, one colour
# per solver (palette.gp's, by name), joined along dt; the point type tells the iteration
# counts of one solver apart.
if (!exists("scene")) scene = ''
if (!exists("reference")) reference = ''
load system(sprintf("dirname '%s'", ARG0))."/palette.gp"
combos = system(sprintf("awk -F'\t' '!/^#/ && $1 != \"solver\" && !seen[$1 \":\" $4]++ { printf \"%%s:%%s \", $1, $4 }' '%s'", summary))
nc = words(combos)
if (nc == 0) { print "accuracy.gp: no runs in ".summary; exit status 1 }
solver_of(c) = c[1:strstrt(c, ":") - 1]
iters_of(c) = int(c[strstrt(c, ":") + 1:])

set terminal pngcairo size 1100,1100 font ",11"
set output out
set multiplot layout 2,1 title sprintf("%s: error of the positions after the run against %s", scene, reference) noenhanced
set datafile separator "\t"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set grid
set key outside right font ",9"
set ylabel "RMS vertex distance to the reference (m)"
ok(c) = (strcol(1) eq solver_of(c) && int(column(4)) == iters_of(c) && strcol(9) eq "ok")
set xlabel "solver wall time of the run (s)"
plot for [j=1:nc] summary every ::1 using (ok(word(combos, j)) ? $5 : NaN):(ok(word(combos, j)) ? $7 : NaN) \
    with linespoints linewidth 2 pointsize 1.2 linecolor rgb solver_rgb(solver_of(word(combos, j))) \
    pointtype (iters_of(word(combos, j)) % 13 + 1) \
    title sprintf("%s (%d it)", solver_of(word(combos, j)), iters_of(word(combos, j))) noenhanced
set xlabel "dt (s)"
plot for [j=1:nc] summary every ::1 using (ok(word(combos, j)) ? $2 : NaN):(ok(word(combos, j)) ? $7 : NaN) \
    with linespoints linewidth 2 pointsize 1.2 linecolor rgb solver_rgb(solver_of(word(combos, j))) \
    pointtype (iters_of(word(combos, j)) % 13 + 1) \
    title sprintf("%s (%d it)", solver_of(word(combos, j)), iters_of(word(combos, j))) noenhanced
unset multiplot
