# bench_implicit.gp — the linear-solver figure (three panels), from
# bench_implicit.tsv: left, PPCG iterations to relative residual 1e-6 (solid) and 1e-8
# (dashed) against the number of unknowns (3 × vertices), one curve per registered
# preconditioner (whatever ppcg_* rows the table holds); middle, the cost of one further
# Newton system of the same sparsity pattern: each preconditioner's PPCG solve to 1e-6 on
# its set-up state (update + iterations, cpu_ms, median of the solves after the first)
# and CHOLMOD's filter + factorise + solve with its analysis kept (cpu_ms of the
# cholmod_factor_solve row); right, the cost of one Newton
# system from nothing against unknowns: each preconditioner's first PPCG solve to 1e-6
# (set-up + first update + iterations) by its process CPU time (first_cpu_ms), its
# set-up alone (setup_ms, wall clock, dotted), and a whole cold CHOLMOD solve, analyse +
# filter + factorise + solve (first_cpu_ms of the cholmod_factor_solve row). CPU time,
# because on a machine shared with other jobs the wall clock also counts waiting; both run
# on one thread. Log-log; every curve's key gives its least-squares slope in
# log-log (time ∝ unknowns^slope over the sizes measured), in closed form by awk.
# Usage (experiments/bench_implicit.c calls it):
#   gnuplot -e "file='results/bench_implicit.tsv'; out='results/bench_implicit.png'" bench_implicit.gp
# Columns: res vertices dofs blocks method threads tol iterations ms cpu_ms reps rel_diff
# status setup_ms first_ms first_cpu_ms ratio rss_mib system_ratio.
set datafile separator tab
set terminal pngcairo size 2100,700 font ",11"
set output out
set grid
set logscale xy
set xlabel "unknowns (3 x vertices)"
set format x "10^{%L}"
set format y "10^{%L}"

# The registered preconditioners present in the table, in order of appearance.
pcs = system(sprintf("awk -F '\t' '$5 ~ /^ppcg_/ && !seen[$5]++ { printf \"%%s \", $5 }' '%s'", file))
npc = words(pcs)
# The rows of method m at tolerance t (the tol column as written, "-" for CHOLMOD) with a
# number in column c; a PPCG solve stopped by --ppcg-cap (status "iteration cap") is left
# out of every curve and slope: its time is not the cost of a solution.
rows(m, t, c) = sprintf("< awk -F '\t' '$5 == \"%s\" && $7 == \"%s\" && $%d != \"-\" && $13 != \"iteration cap\"' '%s'", m, t, c, file)
label(m) = m[6:]

# Least-squares slope of log(column c) against log(unknowns) over the rows of method m at
# tolerance t with a positive number in column c (closed form, in awk; NaN below two
# sizes).
lsq(m, t, c) = system(sprintf("awk -F '\t' '$5 == \"%s\" && $7 == \"%s\" && $%d != \"-\" && $%d > 0 && $13 != \"iteration cap\" { x = log($3); y = log($%d); n++; sx += x; sy += y; sxx += x * x; sxy += x * y } END { d = n * sxx - sx * sx; if (n >= 2 && d > 0) printf \"%%.6f\", (n * sxy - sx * sy) / d; else printf \"NaN\" }' '%s'", m, t, c, c, c, file))
slope(v) = v eq "NaN" ? "" : sprintf(" (slope %.2f)", v + 0)
# The rows of (m, t) with a positive number in column c (set-up times of 0 ms are left
# out of a log axis).
pos(m, t, c) = sprintf("< awk -F '\t' '$5 == \"%s\" && $7 == \"%s\" && $%d != \"-\" && $%d > 0 && $13 != \"iteration cap\"' '%s'", m, t, c, c, file)

set multiplot layout 1,3 title "hanging cloth, one backward-Euler Newton system" noenhanced
set key below noenhanced
set title "PPCG iterations"
set ylabel "PPCG iterations"
plot for [i=1:npc] rows(word(pcs, i), '1e-06', 8) using 3:8 with linespoints lw 2 lc i pt 7 \
         title label(word(pcs, i))." 1e-6", \
     for [i=1:npc] rows(word(pcs, i), '1e-08', 8) using 3:8 with linespoints lw 2 lc i dt 2 pt 6 \
         title label(word(pcs, i))." 1e-8"

set ylabel "ms, CPU time"
set title "one further Newton system (set-up / analysis kept)"
plot for [i=1:npc] rows(word(pcs, i), '1e-06', 10) using 3:10 with linespoints lw 2 lc i pt 7 \
         title "PPCG ".label(word(pcs, i))." 1e-6".slope(lsq(word(pcs, i), '1e-06', 10)), \
     rows("cholmod_factor_solve", '-', 10) using 3:10 with linespoints lw 3 lc rgb "black" pt 5 \
         title "CHOLMOD filter+factorise+solve".slope(lsq("cholmod_factor_solve", '-', 10))

set title "one Newton system from nothing"
set ylabel "ms (CPU time; set-up: wall clock)"
plot for [i=1:npc] rows(word(pcs, i), '1e-06', 16) using 3:16 with linespoints lw 2 lc i pt 7 \
         title "PPCG ".label(word(pcs, i))." 1e-6, first solve".slope(lsq(word(pcs, i), '1e-06', 16)), \
     for [i=1:npc] pos(word(pcs, i), '1e-06', 14) using 3:14 with linespoints lw 1 lc i dt 3 pt 1 \
         title label(word(pcs, i))." set-up".slope(lsq(word(pcs, i), '1e-06', 14)), \
     rows("cholmod_factor_solve", '-', 16) using 3:16 with linespoints lw 3 lc rgb "black" pt 5 \
         title "CHOLMOD analyse+filter+factorise+solve".slope(lsq("cholmod_factor_solve", '-', 16))
unset multiplot
