# bench_implicit.gp — the linear-solver figure of weft issue 4, from bench_implicit.tsv:
# left, PPCG iterations to relative residual 1e-6 (solid) and 1e-8 (dashed) against the
# number of vertices, per preconditioner; right, the time of the same solves against
# CHOLMOD's analyse, numeric factorisation, triangular solve and factor+solve, and one
# iteration of newton_euler with CHOLMOD. Log-log.
# Usage (experiments/bench_implicit.c calls it):
#   gnuplot -e "file='results/bench_implicit.tsv'; out='results/bench_implicit.png'" bench_implicit.gp
# Columns: res vertices dofs blocks method threads tol iterations ms cpu_ms reps rel_diff
# status.
set datafile separator tab
set terminal pngcairo size 1400,600 font ",11"
set output out
set multiplot layout 1,2 title "hanging cloth, one backward-Euler Newton system" noenhanced
set grid
set logscale xy
set xlabel "vertices"
set key below
set format x "10^{%L}"
set format y "10^{%L}"

pcs = "ppcg_none ppcg_jacobi ppcg_block_jacobi"
pnames = "none jacobi block-Jacobi"
# The rows of method m at tolerance t (the tol column as written, "-" for CHOLMOD).
rows(m, t) = sprintf("< awk -F '\t' '$5 == \"%s\" && $7 == \"%s\"' '%s'", m, t, file)

set ylabel "PPCG iterations"
plot for [i=1:3] rows(word(pcs, i), '1e-06') using 2:8 with linespoints lw 2 lc i pt 7 \
         title word(pnames, i)." 1e-6", \
     for [i=1:3] rows(word(pcs, i), '1e-08') using 2:8 with linespoints lw 2 lc i dt 2 pt 6 \
         title word(pnames, i)." 1e-8"

chol = "cholmod_analyse cholmod_factor cholmod_solve"
set ylabel "ms"
set key below
plot for [i=1:3] rows(word(pcs, i), '1e-06') using 2:9 with linespoints lw 2 lc i pt 7 \
         title "PPCG ".word(pnames, i)." 1e-6", \
     for [i=1:3] rows(word(pcs, i), '1e-08') using 2:9 with linespoints lw 2 lc i dt 2 pt 6 \
         title "PPCG ".word(pnames, i)." 1e-8", \
     for [i=1:3] rows(word(chol, i), '-') using 2:9 with linespoints lw 3 lc (i + 3) pt 5 \
         title "CHOLMOD ".word("analyse factorise solve", i), \
     rows("cholmod_factor_solve", '-') using 2:9 with linespoints lw 2 lc 7 dt 2 pt 4 \
         title "CHOLMOD factor+solve", \
     rows("newton_iteration", '-') using 2:9 with linespoints lw 2 lc rgb "black" pt 9 \
         title "one newton_euler iteration (CHOLMOD)" noenhanced
unset multiplot
