# shapes.gp — final cloth shape of each solver, drawn as 3-D triangle wireframes, every
# panel in the same frame (one view, one scale), so shapes can be compared by eye; each
# solver in its colour of palette.gp.
# Usage: gnuplot -e "shapes='a_shape.dat b_shape.dat'; names='A B'; out='f.png';
#                    offframe='0 1'; xlo=...; xhi=...; ylo=...; yhi=...; zlo=...; zhi=..." shapes.gp
# Each .dat file holds one closed triangle per block (x y z in m), as compare writes it.
# offframe: one 0/1 per solver, 1 when its cloth reaches past the frame (compare makes
# the frame from the start shape and the final shapes, clipped to twice the cloth's size
# around the start, so a cloth that flew off or blew up is flagged instead of shrinking
# the others). The box, m: x in [xlo, xhi], y (up) in [ylo, yhi], z in [zlo, zhi].
load system(sprintf("dirname '%s'", ARG0))."/palette.gp"
n = words(shapes)
set terminal pngcairo size (500 * n), 520 font ",11"
set output out
set multiplot layout 1, n title "final shape per solver (y up, m; one frame for all panels)"
set view 65, 30, 1, 1
set view equal xyz
set xyplane 0
set xlabel "x"; set ylabel "z"; set zlabel "y"
set tics scale 0.5 font ",8"
# x, -z, y: so the scene's y axis points up on the page
pad(a, b) = 0.02 * (b - a > 0 ? b - a : 1)
set xrange [xlo - pad(xlo, xhi) : xhi + pad(xlo, xhi)]
set yrange [-zhi - pad(zlo, zhi) : -zlo + pad(zlo, zhi)]
set zrange [ylo - pad(ylo, yhi) : yhi + pad(ylo, yhi)]
do for [i=1:n] {
    flag = word(offframe, i) eq "1" ? " (leaves the frame)" : ""
    set title word(names, i) . flag noenhanced
    splot word(shapes, i) using 1:(-$3):2 with lines linewidth 0.5 \
          linecolor rgb solver_rgb(word(names, i)) notitle
}
unset multiplot
