# shapes.gp — final cloth shape of each solver, drawn as 3-D triangle wireframes.
# Usage: gnuplot -e "shapes='a_shape.dat b_shape.dat'; names='A B'; out='f.png'" shapes.gp
# Each .dat file holds one closed triangle per block (x y z in m), as compare writes it.
n = words(shapes)
set terminal pngcairo size (500 * n), 520 font ",11"
set output out
set multiplot layout 1, n title "final shape per solver (y up, m)"
set view 65, 30, 1, 1
set view equal xyz
set xyplane 0
set xlabel "x"; set ylabel "z"; set zlabel "y"
set tics scale 0.5 font ",8"
do for [i=1:n] {
    set title word(names, i) noenhanced
    # x, -z, y: so the scene's y axis points up on the page
    splot word(shapes, i) using 1:(-$3):2 with lines linewidth 0.5 linecolor i notitle
}
unset multiplot
