# convergence.gp — convergence of several solvers within one time step.
# Usage:
#   gnuplot -e "logs='a.log b.log'; names='A B'; step=60; xaxis='iter'; out='f.png'" convergence.gp
#   xaxis: 'iter' (inner iteration) or 'time' (solver wall time since the step began, ms,
#   on a logarithmic axis: the solvers' times per step differ by orders of magnitude).
# Each solver keeps its colour and point type from palette.gp whatever its place in
# `names`; svg=1 writes SVG instead of PNG.
# Columns are found by name in the last '#' line before the data (weft's log format),
# so logs with extra columns still plot.
if (!exists("scene")) scene = ''
load system(sprintf("dirname '%s'", ARG0))."/palette.gp"

# Index of column `name` in log file `f` (0 if absent).
col(f, name) = int(system(sprintf("awk '/^#/ { if (!d) h = $0; next } { d = 1; exit } END { n = split(h, a, \" \"); for (i = 2; i <= n; i++) if (a[i] == \"%s\") { print i - 1; exit } print 0 }' '%s'", name, f)))

first = word(logs, 1)
sc = col(first, "step"); ic = col(first, "iter"); wc = col(first, "wall_s")
rc = col(first, "residual_rel"); cc = col(first, "crms")
if (sc * ic * wc * rc * cc == 0) { print "convergence.gp: ".first." lacks weft's columns"; exit status 1 }

# Wall time at the start of `step` (its iteration 0) in each log.
n = words(logs)
array t0[n]
do for [i=1:n] {
    stats word(logs, i) using (column(sc) == step && column(ic) == 0 ? column(wc) : NaN) nooutput
    t0[i] = STATS_min
}

if (svg) { set terminal svg size 1100,900 font ",11" } else { set terminal pngcairo size 1100,900 font ",11" }
set output out
set multiplot layout 2,1 title sprintf("%s: convergence within step %d", scene, step) noenhanced
set logscale y
set format y "10^{%L}"
set grid
set key outside right
# XPBD numbers its iterations across its substeps (one sweep per substep by default), so
# its curve rises and falls as each substep starts from the last one's state.
has_xpbd = sum [i=1:n] (word(names, i) eq "xpbd" ? 1 : 0)
iter_label = has_xpbd ? "iterations (substeps for xpbd)" : "iterations"
if (xaxis eq 'time') {
    set xlabel "solver wall time within the step (ms, log scale)"
    set logscale x
    set format x "10^{%L}"
} else {
    set xlabel iter_label
}
# On the log time axis the step's start (time 0) has no place: it is left out.
tval(i) = 1e3 * (column(wc) - t0[i])
xval(i) = (xaxis eq 'time') ? (tval(i) > 0 ? tval(i) : NaN) : column(ic)
yval(c) = (column(sc) == step && column(c) > 0) ? column(c) : NaN

set ylabel "residual / residual_0  (|grad G| of backward Euler)"
plot for [i=1:n] word(logs, i) using (column(sc) == step ? xval(i) : NaN):(yval(rc)) \
    with linespoints pointsize 0.6 linewidth 2 linecolor rgb solver_rgb(word(names, i)) \
    pointtype solver_pt(word(names, i)) title word(names, i) noenhanced
set ylabel "RMS relative edge strain"
plot for [i=1:n] word(logs, i) using (column(sc) == step ? xval(i) : NaN):(yval(cc)) \
    with linespoints pointsize 0.6 linewidth 2 linecolor rgb solver_rgb(word(names, i)) \
    pointtype solver_pt(word(names, i)) title word(names, i) noenhanced
unset multiplot
