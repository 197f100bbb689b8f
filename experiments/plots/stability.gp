# stability.gp — stable and unstable runs over stretch stiffness x time step (stability.c).
# Usage:
#   gnuplot -e "summary='summary.tsv'; names='A B'; out='stability.png'; scene='hanging_cloth'" stability.gp
# summary.tsv columns: solver stiffness_N_per_m dt_s steps steps_done status max_strain
# max_kinetic_ratio ms_per_step, one row per run after a header row.
if (!exists("scene")) scene = ''
n = words(names)
cols = (n <= 3) ? n : 3
rows = int((n + cols - 1) / cols)

set terminal pngcairo size 500 * cols, 470 * rows + 60 font ",10"
set output out
set multiplot layout rows, cols title sprintf("%s: stability over stretch stiffness and time step", scene) noenhanced
set datafile separator "\t"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xlabel "dt (s)"
set ylabel "stretch stiffness (N/m)"
set grid
set key below horizontal maxrows 2 font ",8"
set offsets graph 0.08, graph 0.08, graph 0.08, graph 0.08
is(s, st) = (strcol(1) eq s && strcol(6) eq st)
do for [i=1:n] {
    s = word(names, i)
    set title s noenhanced
    plot summary every ::1 using (is(s, "stable") ? $3 : NaN):2 with points pt 7 ps 1.6 lc rgb "#2a9d3a" title "stable", \
         summary every ::1 using (is(s, "assumed") ? $3 : NaN):2 with points pt 6 ps 1.6 lc rgb "#2a9d3a" title "stable (assumed: a larger dt was)", \
         summary every ::1 using (is(s, "diverged") ? $3 : NaN):2 with points pt 2 ps 1.6 lw 2 lc rgb "#d62728" title "diverged", \
         summary every ::1 using (is(s, "strain") ? $3 : NaN):2 with points pt 9 ps 1.6 lc rgb "#ff7f0e" title "strain > limit", \
         summary every ::1 using (is(s, "energy") ? $3 : NaN):2 with points pt 5 ps 1.4 lc rgb "#9467bd" title "energy > bound", \
         summary every ::1 using (is(s, "failed") ? $3 : NaN):2 with points pt 6 ps 1.6 lc rgb "black" title "solver failed"
}
unset multiplot
