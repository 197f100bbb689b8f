# sweep.gp — the figure of a merged sweep (sweep merge, experiments/sweep_merge.c).
# Usage (sweep merge sets every variable):
#   gnuplot -e "data='figure.dat'; out='x.png'; mode='heatmap'; names='A B'; title='...';
#     xlabel='scene.dt'; ylabel='material.stretch_stiffness'; vlabel='status';
#     xlabels='1/60 1/30'; ylabels='1e3 1e4'; cats='stable diverged'; xnum=1; logx=1;
#     logy=1; logv=0; flagged=0" sweep.gp
# colours (optional): the categories' colours in order (default: green, red, orange, ...).
# data: a block per solver (name i of names), a row per cell or point:
#   ix iy x value flag   (ix, iy: value indices; x: the x value (xnum=1) ; value '-' when
#                         flag is 1: no complete run, or 2: not finite)
# heatmap: a panel per solver, one cell per (x, y) pair, coloured by value (a text metric
#          by category, cats in order); '?' marks a cell without a complete run, 'n/f' one
#          whose value is not finite (flagged: how many such cells there are).
# lines:   one curve per solver over x; points without a complete run are left out.
n = words(names)
nc = words(cats)
set datafile missing '-'
if (nc > 0) {
    # A step palette: category k is the band [k, k+1], drawn at k + 0.5.
    if (!exists("colours")) { colours = "#1a9850 #d73027 #fc8d59 #7b3294 #4575b4 #999999 #e6ab02 #000000" }
    ncol = words(colours)
    pal = ""
    do for [k=1:nc] {
        c = word(colours, (k - 1) % ncol + 1)
        pal = pal.sprintf("%s%d '%s', %d '%s'", (k > 1 ? ", " : ""), k - 1, c, k, c)
    }
    eval "set palette defined (".pal.")"
    set cbrange [0:nc]
    set cbtics ()
    do for [k=1:nc] { set cbtics add (word(cats, k) k - 0.5) }
} else {
    set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')
    if (logv) { set logscale cb }
}
set xlabel xlabel
set xtics ()
if (!xnum || mode eq 'heatmap') {
    do for [k=1:words(xlabels)] { set xtics add (word(xlabels, k) k - 1) }
    if (words(xlabels) == 0) { do for [k=1:n] { set xtics add (word(names, k) k - 1) } }
} else {
    set xtics autofreq
    if (logx) { set logscale x }
}
set grid
if (mode eq 'heatmap') {
    cols = (n <= 3) ? n : 3
    rows = int((n + cols - 1) / cols)
    set terminal pngcairo noenhanced size 520 * cols, 470 * rows + 70 font ",10"
    set output out
    set multiplot layout rows, cols title title
    set ylabel ylabel
    set ytics ()
    do for [k=1:words(ylabels)] { set ytics add (word(ylabels, k) k - 1) }
    set xrange [-0.5:words(xlabels) - 0.5]
    set yrange [-0.5:words(ylabels) - 0.5]
    set xtics rotate by 45 right
    unset grid
    do for [i=1:n] {
        set title word(names, i)
        if (flagged) {
            plot data index (i - 1) using 1:2:(0.5):(0.5):($5 == 0 ? $4 : NaN) \
                     with boxxyerror fs solid 1.0 noborder fc palette notitle, \
                 '' index (i - 1) using 1:2:($5 == 1 ? "?" : ($5 == 2 ? "n/f" : "")) with labels notitle
        } else {
            plot data index (i - 1) using 1:2:(0.5):(0.5):4 \
                     with boxxyerror fs solid 1.0 noborder fc palette notitle
        }
    }
    unset multiplot
} else {
    set terminal pngcairo noenhanced size 900, 560 font ",10"
    set output out
    set title title
    set ylabel vlabel
    if (nc > 0) {
        set ytics ()
        do for [k=1:nc] { set ytics add (word(cats, k) k - 0.5) }
        set yrange [0:nc]
    } else {
        if (logv) { set logscale y }
    }
    set key outside right
    if (words(xlabels) == 0) {
        # No varied axis: one point per solver, at x = its index.
        set offsets 0.5, 0.5, 0, 0
        plot for [i=1:n] data index (i - 1) using (i - 1):4 with points pt 7 ps 1.5 title word(names, i)
    } else {
        plot for [i=1:n] data index (i - 1) using (xnum ? $3 : $1):4 with linespoints pt 7 title word(names, i)
    }
}
