# animate.gp — every solver's cloth side by side as one animated GIF (compare --animate).
# Usage: gnuplot -e "files='a_frames.dat b_frames.dat'; names='A B'; blocks=64; frames=41;
#                    every=3; dt=0.0166667; scene='hanging_cloth'; out='f.gif';
#                    xlo=..; xhi=..; ylo=..; yhi=..; zlo=..; zhi=.." animate.gp
# Each frames file holds `frames` frames of `blocks` index blocks (frames.h); all panels
# share one view and one box (the union of every solver's positions), so sizes and
# motions compare directly. The title gives the step and the time of the frame.
load system(sprintf("dirname '%s'", ARG0))."/palette.gp"
n = words(files)
set terminal gif animate delay 8 optimize size (340 * n), 380 font ",9"
set output out
set view 65, 30, 1, 1
set view equal xyz
set xyplane 0
# The scene's y axis points up on the page: plot (x, -z, y).
pad = 0.02 * (xhi - xlo + yhi - ylo + zhi - zlo) + 1e-3
set xrange [xlo - pad : xhi + pad]
set yrange [-zhi - pad : -zlo + pad]
set zrange [ylo - pad : yhi + pad]
set xlabel "x"; set ylabel "z"; set zlabel "y"
set tics scale 0.5 font ",7"
set format x "%.1f"; set format y "%.1f"; set format z "%.1f"
unset key
do for [f = 0:frames - 1] {
    set multiplot layout 1, n title sprintf("%s: step %d, t = %.3f s", scene, f * every, \
                                            f * every * dt) noenhanced
    do for [i = 1:n] {
        set title word(names, i) noenhanced
        splot word(files, i) index (f * blocks):((f + 1) * blocks - 1) \
              using 1:(-$3):2 with lines linewidth 0.6 \
              linecolor rgb solver_rgb(word(names, i)) notitle
    }
    unset multiplot
}
unset output
