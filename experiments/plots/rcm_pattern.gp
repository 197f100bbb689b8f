# rcm_pattern.gp — sparsity patterns of one Hessian in several vertex orders, side by
# side: a point per nonzero 3×3 block (i, j), row i down the page as a matrix is drawn
# (Kim & Eberle, "Dynamic Deformables" §9.2, the figure of the default mesh ordering and
# the reverse Cuthill-McKee one).
# Usage (experiments/rcm.c calls it for each size up to --pattern-max):
#   gnuplot -e "files='a.tsv b.tsv'; names='A B'; out='f.png'; title='...'" rcm_pattern.gp
# Each file holds a header line and then the block row and column (tab-separated) of
# every nonzero block.
if (!exists("title")) title = ''
set datafile separator tab
set datafile columnheaders
n = words(files)
set terminal pngcairo size 520*n,600 font ",11"
set output out
set multiplot layout 1,n title title noenhanced
set size ratio -1
set yrange [*:*] reverse
set autoscale xfix
set autoscale yfix
set xtics out nomirror
set ytics out nomirror
set xlabel "block column j"
set ylabel "block row i"
unset key
do for [i=1:n] {
    set title word(names, i) noenhanced
    plot word(files, i) using 2:1 with dots linecolor rgb "#1f4e9c"
}
unset multiplot
