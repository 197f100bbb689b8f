# damping.gp — energy retained by each solver on a swing without damping (damping.c).
# Usage:
#   gnuplot -e "files='a.tsv b.tsv'; names='A B'; out='energy.png'; scene='swinging_cloth'; dt=0.0167" damping.gp
# Each solver keeps its colour from palette.gp (svg=1: SVG instead of PNG).
# Each file has a header row (step t_s ... ratio ratio_mech) after its '#' lines: column 2
# is the time (s), 7 the total energy above the floor relative to its initial value, 8 the
# same without the elastic energy.
if (!exists("scene")) scene = ''
if (!exists("dt")) dt = 0
load system(sprintf("dirname '%s'", ARG0))."/palette.gp"

if (svg) { set terminal svg size 1100,1000 font ",11" } else { set terminal pngcairo size 1100,1000 font ",11" }
set output out
set multiplot layout 2,1 title sprintf("%s: energy without damping, dt = %.4g s", scene, dt) noenhanced
set xlabel "simulated time (s)"
set grid
set key outside right
set datafile separator "\t"
set yrange [0:1.5]   # PBD states, measured with the material stiffness, leave it: see the lower panel
set ylabel "(E - E_{floor}) / (E_0 - E_{floor}),  E = kinetic + gravity + elastic"
plot for [i=1:words(files)] word(files, i) every ::1 using 2:7 with lines linewidth 2 \
    linecolor rgb solver_rgb(word(names, i)) title word(names, i) noenhanced, 1 with lines dashtype 2 linecolor "gray" notitle
set autoscale y
set ylabel "the same without the elastic energy"
plot for [i=1:words(files)] word(files, i) every ::1 using 2:8 with lines linewidth 2 \
    linecolor rgb solver_rgb(word(names, i)) title word(names, i) noenhanced, 1 with lines dashtype 2 linecolor "gray" notitle
unset multiplot
