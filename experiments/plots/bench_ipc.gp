# bench_ipc.gp — one Newton iteration under [contact] model = none and model = ipc, from
# bench_ipc.tsv: a stacked bar per configuration and size, the wall time per iteration
# split into the solver's profile parts (assemble, system, linear, line_search and the
# rest, other), each ipc bar labelled with its ratio to none (ratio_to_none).
# Usage (experiments/bench_ipc.c calls it):
#   gnuplot -e "file='results/bench_ipc.tsv'; out='results/bench_ipc.png'" bench_ipc.gp
# Columns are found by name (the file's header line), so their order may change.
set datafile separator tab
set datafile commentschars "#"
set datafile columnheaders

set terminal pngcairo size 800, 600 font ",11"
set output out
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.6
set grid ytics
set yrange [0:*]
set key outside right top vertical noenhanced
set ylabel "ms per Newton iteration (wall clock)"
set title "one Newton iteration: none beside ipc (medians)" noenhanced

parts = "assemble_ms system_ms linear_ms line_search_ms other_ms"
colours = "#1f5fbf #8e44ad #2ca02c #d62728 #808080"
bar(c, n) = sprintf("%s %d^2", c, n)
ratio(c, r) = c eq "none" ? "" : sprintf("%.2fx", r)
plot for [k = 1:words(parts)] file \
         using (column(word(parts, k))):xtic(bar(strcol("contact"), column("n"))) \
         title word(parts, k) linecolor rgb word(colours, k), \
     file using 0:"ms_per_iteration":(ratio(strcol("contact"), column("ratio_to_none"))) \
         with labels offset 0, 1 notitle
