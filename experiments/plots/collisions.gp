# collisions.gp — one run of each configuration (the collision pipeline's, and ipc: the
# contact model [contact] model = ipc with no pipeline), per step: the smallest distance
# between non-adjacent primitives (top, log scale, capped as the experiment caps it) and
# the number of intersecting triangle pairs (bottom); one curve per configuration, the
# legend naming it.
# Usage (experiments/collisions.c calls it for each scene and solver):
#   gnuplot -e "files='a.tsv b.tsv'; names='A B'; out='f.png'; title='scene, solver'; \
#               note='...'" collisions.gp
# Each file is a per-step table of the collisions experiment (columns step, t_s,
# intersections, min_dist_m, collision_ms, unresolved, after a header line). note
# (optional) is a second title line: what the ipc curve runs.
if (!exists("title")) title = ''
if (exists("note") && strlen(note) > 0) title = title . "\n" . note
set datafile separator tab
set datafile columnheaders
set terminal pngcairo size 1100,900 font ",11"
set output out
set multiplot layout 2,1 title title noenhanced
set grid
set key outside right
set xlabel "step"
n = words(files)
set logscale y
set format y "10^{%L}"
set ylabel "min distance, non-adjacent primitives (m)"
# A distance of exactly 0 (touching) is drawn at 1e-12 m so that the log scale keeps it.
plot for [i=1:n] word(files, i) using 1:($4 > 1e-12 ? $4 : 1e-12) with lines linewidth 2 \
    title word(names, i) noenhanced
unset logscale y
set format y "%g"
set ylabel "intersecting triangle pairs"
plot for [i=1:n] word(files, i) using 1:3 with lines linewidth 2 title word(names, i) noenhanced
unset multiplot
