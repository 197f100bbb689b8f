# palette.gp — one colour and one point type per solver, chosen by the solver's name, so
# that a solver looks the same in every figure weft draws, whatever its place in the list.
# The figure scripts load it from their own directory:
#   load system(sprintf("dirname '%s'", ARG0))."/palette.gp"
# and draw a curve of solver NAME with
#   linecolor rgb solver_rgb(NAME) pointtype solver_pt(NAME)
# Colours are dark enough to read on white (no yellow, no pale tints). A name not in the
# table (a new solver) gets a colour and point type from a hash of its letters: still one
# per name, the same in every figure.
# It also sets the terminal helper variable svg (0 unless the caller set it): with svg=1
# the scripts that honour it write SVG instead of PNG (the palette test reads the colours
# back from the SVG).

if (!exists("svg")) svg = 0

palette_names = "pbd_gauss_seidel pbd_jacobi symplectic_euler implicit_euler newton_euler " \
                . "bdf2 bdf2_newton xpbd vbd projective_dynamics"
palette_rgb   = "#1f5fbf #17857a #808000 #2ca02c #d62728 " \
                . "#8e44ad #c2185b #e66100 #222222 #8c564b"
palette_pt    = "7 5 3 6 9 4 8 13 11 12"
# For names outside the table.
palette_extra_rgb = "#4d4d4d #6a3d9a #1b9e77 #b15928 #3b5ba5 #a6336b"
palette_extra_pt  = "1 2 10 14 15"

palette_letters = "abcdefghijklmnopqrstuvwxyz0123456789_-+.:"
# Position of name s in the table, 0 when it is not there.
palette_index(s) = sum [k=1:words(palette_names)] (word(palette_names, k) eq s ? k : 0)
# A number from the letters of s (the same for the same name).
palette_hash(s) = sum [k=1:strlen(s)] (k * strstrt(palette_letters, s[k:k]))

solver_rgb(s) = palette_index(s) > 0 ? word(palette_rgb, palette_index(s)) \
    : word(palette_extra_rgb, palette_hash(s) % words(palette_extra_rgb) + 1)
solver_pt(s) = palette_index(s) > 0 ? int(word(palette_pt, palette_index(s))) \
    : int(word(palette_extra_pt, palette_hash(s) % words(palette_extra_pt) + 1))
