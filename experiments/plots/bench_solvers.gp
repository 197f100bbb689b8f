# bench_solvers.gp — cost of one inner iteration against vertices, from bench_solvers.tsv:
# one panel per thread count, one curve per solver (its palette.gp colour and point type)
# and the yardsticks (dashed, thicker), log-log, each key entry with its least-squares
# slope in log-log (ms ∝ vertices^slope over the sizes measured), in closed form by awk.
# Usage (experiments/bench_solvers.c calls it):
#   gnuplot -e "file='results/bench_solvers.tsv'; out='results/bench_solvers.png'" bench_solvers.gp
# Columns: solver n vertices threads iterations ms_per_iteration ns_per_vertex peak_mib
# repeats.
load system(sprintf("dirname '%s'", ARG0))."/palette.gp"
set datafile separator tab
set datafile commentschars "#"

# The names and thread counts in the table, in order of appearance.
# Solvers and yardsticks (drawn dashed and thicker) apart.
solvers = system(sprintf("awk -F '\t' '!/^#/ && $1 != \"solver\" && $1 !~ /^yardstick_/ && !seen[$1]++ { printf \"%%s \", $1 }' '%s'", file))
yards = system(sprintf("awk -F '\t' '!/^#/ && $1 ~ /^yardstick_/ && !seen[$1]++ { printf \"%%s \", $1 }' '%s'", file))
thr = system(sprintf("awk -F '\t' '!/^#/ && $1 != \"solver\" && !seen[$4]++ { printf \"%%s \", $4 }' '%s'", file))
nthr = words(thr)

set terminal pngcairo size 900 * nthr, 700 font ",11"
set output out
set grid
set logscale xy
set xlabel "vertices"
set ylabel "ms per iteration (wall clock)"
set format x "10^{%L}"
set format y "10^{%L}"
set key below noenhanced

# The rows of name s at thread count t.
rows(s, t) = sprintf("< awk -F '\t' '!/^#/ && $1 == \"%s\" && $4 == \"%s\" && $6 > 0' '%s'", s, t, file)
# Least-squares slope of log(ms) against log(vertices) for (s, t); NaN below two sizes.
lsq(s, t) = system(sprintf("awk -F '\t' '!/^#/ && $1 == \"%s\" && $4 == \"%s\" && $6 > 0 { x = log($3); y = log($6); n++; sx += x; sy += y; sxx += x * x; sxy += x * y } END { d = n * sxx - sx * sx; if (n >= 2 && d > 0) printf \"%%.6f\", (n * sxy - sx * sy) / d; else printf \"NaN\" }' '%s'", s, t, file))
slope(v) = v eq "NaN" ? "" : sprintf(" (slope %.2f)", v + 0)

set multiplot layout 1, nthr title "hanging cloth, one inner iteration of each solver" noenhanced
do for [k = 1:nthr] {
    t = word(thr, k)
    set title sprintf("%s thread(s)", t)
    plot for [i = 1:words(solvers)] rows(word(solvers, i), t) using 3:6 with linespoints lw 2 \
             lc rgb solver_rgb(word(solvers, i)) pt solver_pt(word(solvers, i)) \
             title word(solvers, i).slope(lsq(word(solvers, i), t)), \
         for [i = 1:words(yards)] rows(word(yards, i), t) using 3:6 with linespoints lw 3 dt 2 \
             lc rgb solver_rgb(word(yards, i)) pt solver_pt(word(yards, i)) \
             title word(yards, i).slope(lsq(word(yards, i), t))
}
unset multiplot
