#!/bin/sh
# bad_input.sh COMPARE — feeds the compare binary bad scenes, overrides, meshes and
# options, and checks that each is refused cleanly:
#   - exit status non-zero and < 128 (an error, not a crash or a signal),
#   - exactly one line on stderr naming where the problem is (file:line and
#     section.key, the OBJ path:line, the --set origin, the solver or the option),
#   - no complete-looking result: no *.log or summary.tsv under the out directory, and
#     any *.log.partial ends with '# status=incomplete'.
# One more case makes each solver diverge and checks that the run stops with a one-line
# "diverged" error and that its partial log holds no NaN or inf.
# Prints "ok: CASE" or "FAIL: CASE: why" per case; exits 1 if any case failed.
# POSIX sh (tested with dash); all files live in a private mktemp -d directory.
set -u

compare=${1:?usage: bad_input.sh PATH_TO_COMPARE}
[ -x "$compare" ] || { echo "FAIL: setup: $compare is not executable"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-bad-input.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' HUP INT PIPE TERM

failed=0
n=0
why=""

# run ARGS...: runs compare with ARGS into its own out directory; sets status, out, err.
run() {
    n=$((n + 1))
    out="$tmp/out-$n"
    err="$tmp/stderr-$n"
    "$compare" --no-plot --steps 2 --out "$out" "$@" >"$tmp/stdout-$n" 2>"$err"
    status=$?
}

fail_because() { why="${why:+$why; }$1"; }

# Checks the exit status of the last run: an error, not success and not a signal.
check_status() {
    if [ "$status" -eq 0 ]; then
        fail_because "exit status 0"
    elif [ "$status" -ge 128 ]; then
        fail_because "exit status $status (killed by signal $((status - 128))?)"
    fi
}

# Checks that nothing under $out looks like a finished result.
check_outputs() {
    [ -d "$out" ] || return 0
    find "$out" -type f \( -name '*.log' -o -name 'summary.tsv' \) >"$tmp/found"
    if [ -s "$tmp/found" ]; then
        fail_because "complete-looking result(s) left: $(tr '\n' ' ' <"$tmp/found")"
    fi
    find "$out" -type f -name '*.log.partial' >"$tmp/found"
    while IFS= read -r f; do
        case $(tail -n 1 "$f") in
        "# status=incomplete"*) ;;
        *) fail_because "$f does not end with '# status=incomplete'" ;;
        esac
    done <"$tmp/found"
}

report() {
    if [ -z "$why" ]; then
        echo "ok: $1"
    else
        echo "FAIL: $1: $why"
        sed 's/^/    stderr: /' "$err"
        failed=1
    fi
    why=""
}

# expect CASE FRAGMENT...: the last run failed cleanly with one stderr line holding
# every fragment (fixed strings).
expect() {
    name=$1
    shift
    check_status
    lines=$(wc -l <"$err")
    [ "$lines" -eq 1 ] || fail_because "stderr has $lines lines, expected exactly 1"
    for frag in "$@"; do
        grep -qF -e "$frag" "$err" || fail_because "stderr lacks '$frag'"
    done
    check_outputs
    report "$name"
}

# scene_obj SCENE OBJ: writes a scene whose mesh is the OBJ file.
scene_obj() {
    printf '[scene]\nname = objtest\n\n[mesh]\ntype = obj\npath = %s\n' "$2" >"$1"
}

# --------------------------------------------------------------------------------
# Scene files and overrides
# --------------------------------------------------------------------------------

run --scene "$tmp/missing.ini"
expect missing_scene_file "$tmp/missing.ini"

f="$tmp/unknown_key.ini"
printf '[scene]\nname = unknown_key\ndt = 0.01\nstepz = 3\n' >"$f"
run --scene "$f"
expect unknown_key "$f:4: scene.stepz" "unknown key"

f="$tmp/unknown_section.ini"
printf '[scene]\nname = unknown_section\n[materail]\ndensity = 0.1\n' >"$f"
run --scene "$f"
# The section header is on line 3, its first key on line 4: either names the spot.
check_status
grep -qF -e "$f:3: [materail]" "$err" || grep -qF -e "$f:4: [materail]" "$err" ||
    grep -qF -e "$f:4: materail.density" "$err" ||
    fail_because "stderr names neither $f:3 nor $f:4 with [materail]"
grep -qF -e "unknown section" "$err" || fail_because "stderr lacks 'unknown section'"
lines=$(wc -l <"$err")
[ "$lines" -eq 1 ] || fail_because "stderr has $lines lines, expected exactly 1"
check_outputs
report unknown_section

# A collider section without a name (found by tests/fuzz: its name was read past the end
# of the section string). Colliders are [collider.NAME], in a file and in --set.
f="$tmp/bare_collider.ini"
printf '[scene]\nname = bare_collider\n[collider]\ntype = plane\n' >"$f"
run --scene "$f"
expect bare_collider "$f:3: [collider]" "unknown section"
run --set collider.type=plane
expect bare_collider_set "collider.type=plane" "[collider]: unknown section"

# Plug-in sections are checked against every registered plug-in's settings table; an
# unknown key or section names the nearest known one.
f="$tmp/plugin_key.ini"
printf '[scene]\nname = plugin_key\n[solver]\ntolerence = 1e-8\n' >"$f"
run --scene "$f"
expect plugin_unknown_key "$f:4: solver.tolerence" "unknown key (nearest: solver.tolerance)"

f="$tmp/plugin_section.ini"
printf '[scene]\nname = plugin_section\n[pdb]\nk_stretch = 1\n' >"$f"
run --scene "$f"
expect plugin_unknown_section "$f:3: [pdb]" "unknown section (nearest: [pbd])"

run --set ppcg.preconditioner=amg
expect plugin_unknown_name "--set ppcg.preconditioner=amg" "'amg' is not one of: none, jacobi, block_jacobi"

# A setting no plug-in of the run reads: refused, naming the key and who would read it.
run --solvers newton_euler --set xpbd.substeps=5
expect unread_set_section "--set xpbd.substeps: no plug-in in this run reads [xpbd] (read by: xpbd); add xpbd to --solvers or drop the --set"
run --solvers pbd_gauss_seidel --set solver.tolerance=1e-3
expect unread_set_key "--set solver.tolerance: no plug-in in this run reads solver.tolerance (read by: " "newton_euler" "add one of them to --solvers or drop the --set"
run --solvers newton_euler --set ppcg.iterations=5
expect unread_set_linear "--set ppcg.iterations: no plug-in in this run reads [ppcg] (read by: ppcg (linear solver))"
run --solvers newton_euler --set collision.max_iterations=5
expect unread_set_stage "--set collision.max_iterations: no plug-in in this run reads collision.max_iterations (read by: bridson (stage)); enable it ([collision] pipeline = bridson)"
run --set scene.dt=1/0
expect dt_fraction_zero "--set scene.dt=1/0" "scene.dt" "is not a number (or a fraction A/B)"

run --set scene.dt=-0.01
expect negative_dt_set "--set scene.dt=-0.01" "scene.dt"

f="$tmp/zero_dt.ini"
printf '[scene]\nname = zero_dt\ndt = 0\n' >"$f"
run --scene "$f"
expect zero_dt "$f:3: scene.dt"

f="$tmp/nan.ini"
printf '[scene]\nname = nan\n\n[material]\ndensity = nan\n' >"$f"
run --scene "$f"
expect nan_density "$f:5: material.density"

f="$tmp/k_stretch.ini"
printf '[scene]\nname = k_stretch\n[pbd]\nk_bending = 0.1\nk_stretch = 1.5\n' >"$f"
run --scene "$f"
expect pbd_k_stretch_range "$f:5: pbd.k_stretch"

# [solver] keys of the implicit integrators (solvers/implicit_common.c, newton.c).
f="$tmp/solver_linear.ini"
printf '[scene]\nname = solver_linear\n[solver]\nlinear = foo\n' >"$f"
run --scene "$f" --solvers implicit_euler
expect solver_linear_unknown "$f:4: solver.linear" "'foo' is not one of: cholmod, ppcg"

f="$tmp/solver_tolerance.ini"
printf '[scene]\nname = solver_tolerance\n[solver]\niterations = 20\ntolerance = 0\n' >"$f"
run --scene "$f" --solvers newton_euler
expect solver_tolerance_zero "$f:5: solver.tolerance" "must lie in (0, 1]"

f="$tmp/solver_cg_iterations.ini"
printf '[scene]\nname = solver_cg\n[solver]\nlinear = ppcg\n[ppcg]\niterations = 0\n' >"$f"
run --scene "$f" --solvers newton_euler
expect solver_cg_iterations_zero "$f:6: ppcg.iterations" "must lie in [1,"

run --set 'scene.gravity=0 -9.81'
expect malformed_vector_set "--set scene.gravity=0 -9.81" "scene.gravity"

f="$tmp/gravity.ini"
printf '[scene]\nname = gravity\ngravity = 0 -9.81\n' >"$f"
run --scene "$f"
expect malformed_vector_file "$f:3: scene.gravity"

f="$tmp/pins.ini"
printf '[scene]\nname = pins\n[mesh]\ntype = grid\nnx = 4\nny = 4\n[pins]\nvertices = 0 3 16\n' >"$f"
run --scene "$f"
expect pin_out_of_range "$f:8: pins.vertices" "16"

# Energy choices that cannot apply to the mesh.
f="$tmp/rest_uv.ini"
printf '[scene]\nname = rest_uv\n[mesh]\ntype = icosphere\nrest_shape = uv\n[material]\nmembrane = stvk\n' >"$f"
run --scene "$f"
expect rest_shape_uv_without_vt "$f:5: mesh.rest_shape" "vt"

f="$tmp/volume_on_cloth.ini"
printf '[scene]\nname = volume_on_cloth\n[material]\nvolume = stable_neo_hookean\n' >"$f"
run --scene "$f"
expect volume_energy_on_cloth "$f:4: material.volume" "tetrahedral mesh"

f="$tmp/bending_kind.ini"
printf '[scene]\nname = bending_kind\n[material]\nbending = stvk\n' >"$f"
run --scene "$f"
expect bending_wrong_kind "$f:4: material.bending" "no variant"

run --set material.membrane=stvkk
expect unknown_energy "--set" "material.membrane" "unknown energy 'stvkk'"

f="$tmp/long.ini"
{
    printf '[scene]\nname = long\ndescription = '
    i=0
    while [ $i -lt 25 ]; do printf 'xxxxxxxxxx'; i=$((i + 1)); done
    printf '\ndt = 0.01\n'
} >"$f"
run --scene "$f"
expect long_line "$f:3:"

# The limit the message states is the real one: a line of exactly that many characters
# (newline not counted) is read, one more is refused.
limit=$(sed -n 's/.*limit \([0-9][0-9]*\) characters.*/\1/p' "$err")
if [ -z "$limit" ]; then
    fail_because "the long-line message states no 'limit N characters'"
else
    for len in "$limit" $((limit + 1)); do
        f="$tmp/line$len.ini"
        {
            printf '[scene]\nname = line%s\n' "$len"
            printf 'description = '
            i=14
            while [ $i -lt "$len" ]; do printf 'x'; i=$((i + 1)); done
            printf '\nsteps = 1\n'
        } >"$f"
        run --scene "$f"
        if [ "$len" -eq "$limit" ]; then
            [ "$status" -eq 0 ] ||
                fail_because "a line of $len characters (the stated limit) is refused: $(cat "$err")"
        else
            grep -qF -e "$f:3:" "$err" ||
                fail_because "a line of $len characters (over the limit) is not refused with $f:3"
        fi
    done
fi
report line_limit_matches_message

# The scene name becomes a directory under --out: it must not lead out of it.
run --set scene.name=../escaped
expect scene_name_path "scene.name"
[ -e "$tmp/escaped" ] && {
    fail_because "compare wrote $tmp/escaped, outside --out"
    report scene_name_stays_in_out
}

# The collision pipeline's [collision] keys (lib/collision/weft_collision.h).
f="$tmp/pipeline.ini"
printf '[scene]\nname = pipeline\n[collision]\nthickness = 0.001\npipeline = bridsen\n' >"$f"
run --scene "$f"
expect collision_pipeline_name "$f:5: collision.pipeline" "'bridsen' is not one of: none, bridson"

f="$tmp/thickness.ini"
printf '[scene]\nname = thickness\n[collision]\npipeline = bridson\nthickness = 0\n' >"$f"
run --scene "$f"
expect collision_thickness_zero "$f:5: collision.thickness" "must lie in (0, 1]"

run --set collision.thickness=-0.001
expect collision_thickness_set "--set collision.thickness=-0.001" "collision.thickness"

f="$tmp/broad.ini"
printf '[scene]\nname = broad\n[collision]\nbroad_phase = octree\n' >"$f"
run --scene "$f"
expect collision_broad_phase "$f:4: collision.broad_phase" "'octree' is not one of: bvh, hash"

f="$tmp/iters.ini"
printf '[scene]\nname = iters\n\n[collision]\nmax_iterations = 0\n' >"$f"
run --scene "$f"
expect collision_max_iterations "$f:5: collision.max_iterations" "0 must lie in [1, 1000]"

f="$tmp/cfriction.ini"
printf '[scene]\nname = cfriction\n[collision]\nfriction = nan\n' >"$f"
run --scene "$f"
expect collision_friction_nan "$f:4: collision.friction" "not a finite number"

run --set collision.count_intersections=maybe
expect collision_count_bool "collision.count_intersections" "'maybe' is not a boolean"

run --set collision.repulsion_stiffnes=5
expect collision_unknown_key "collision.repulsion_stiffnes" "unknown key"

# Stage switches: booleans.
f="$tmp/stages.ini"
printf '[scene]\nname = stages\n[collision]\npipeline = bridson\nccd = sometimes\n' >"$f"
run --scene "$f"
expect collision_ccd_bool "$f:5: collision.ccd" "'sometimes' is not a boolean"

run --set collision.repulsions=2
expect collision_repulsions_bool "--set collision.repulsions=2" "'2' is not a boolean"

run --set collision.impact_zones=
expect collision_zones_bool "collision.impact_zones" "is not a boolean"

# Triangle-mesh obstacles: [collider.NAME] type = mesh (lib/scene/scene.c build_obstacle).
# obstacle_scene FILE OBJ_PATH EXTRA_LINES PIPELINE: the default 1 m grid cloth in the xy
# plane, the obstacle section starting at line 5 (type line 6, path line 7, extras from 8).
obstacle_scene() {
    printf '[scene]\nname = obstacle\n[collision]\npipeline = %s\n' "$4" >"$1"
    printf '[collider.ramp]\ntype = mesh\npath = %s\n%b' "$2" "$3" >>"$1"
}
printf 'v 0 0 -0.1\nv 1 0 -0.1\nv 0 1 -0.1\nf 1 2 3\n' >"$tmp/ramp.obj"

f="$tmp/obstacle_nopipe.ini"
obstacle_scene "$f" ramp.obj '' none
run --scene "$f"
expect obstacle_without_pipeline "$f:6: collider.ramp.type" "needs [collision] pipeline = bridson"

f="$tmp/obstacle_missing.ini"
obstacle_scene "$f" nowhere.obj '' bridson
run --scene "$f"
expect obstacle_missing_obj "$f:7: collider.ramp.path" "nowhere.obj: cannot open"

printf 'v 0 0 -0.1\nv 1 zero -0.1\nv 0 1 -0.1\nf 1 2 3\n' >"$tmp/broken.obj"
f="$tmp/obstacle_broken.ini"
obstacle_scene "$f" broken.obj '' bridson
run --scene "$f"
expect obstacle_malformed_obj "$f:7: collider.ramp.path" "$tmp/broken.obj:2: v"

f="$tmp/obstacle_velocity.ini"
obstacle_scene "$f" ramp.obj 'velocity = 0 fast 0\n' bridson
run --scene "$f"
expect obstacle_velocity_word "$f:8: collider.ramp.velocity" "'fast' is not a number"

f="$tmp/obstacle_velocity2.ini"
obstacle_scene "$f" ramp.obj 'velocity = 1 2\n' bridson
run --scene "$f"
expect obstacle_velocity_short "$f:8: collider.ramp.velocity" "needs 3 components"

run --scene "$f" --set collider.ramp.velocity=0,inf,0
expect obstacle_velocity_inf "collider.ramp.velocity" "not a finite number"

f="$tmp/obstacle_scale.ini"
obstacle_scene "$f" ramp.obj 'scale = 0\n' bridson
run --scene "$f"
expect obstacle_scale_zero "$f:8: collider.ramp.scale" "must lie in (0, 1e+09]"

f="$tmp/obstacle_radius.ini"
obstacle_scene "$f" ramp.obj 'radius = 0.5\n' bridson
run --scene "$f"
expect obstacle_radius "$f:8: collider.ramp.radius" "does not apply to a mesh collider"

f="$tmp/obstacle_nopath.ini"
printf '[scene]\nname = nopath\n[collision]\npipeline = bridson\n' >"$f"
printf '[collider.ramp]\ntype = mesh\n' >>"$f"
run --scene "$f"
expect obstacle_no_path "$f:6: collider.ramp.type" "needs a path"

f="$tmp/sphere_path.ini"
printf '[scene]\nname = sp\n[collider.ball]\ntype = sphere\npath = ramp.obj\n' >"$f"
run --scene "$f"
expect sphere_with_path "$f:5: collider.ball.path" "applies only to a mesh collider"

f="$tmp/obstacle_crossing.ini"
obstacle_scene "$f" ramp.obj 'translate = 0.2 0.2 0.1\n' bridson
run --scene "$f"
expect obstacle_crossing_cloth "$f:7: collider.ramp.path" "intersects the cloth at t = 0"

# --------------------------------------------------------------------------------
# OBJ meshes
# --------------------------------------------------------------------------------

obj="$tmp/quad.obj"
printf 'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n' >"$obj"
scene_obj "$tmp/quad.ini" "$obj"
run --scene "$tmp/quad.ini"
expect obj_quad "$obj:5: f" "polygon"

obj="$tmp/nonmanifold.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nf 1 2 3\nf 2 1 4\nf 1 2 5\n' >"$obj"
scene_obj "$tmp/nonmanifold.ini" "$obj"
run --scene "$tmp/nonmanifold.ini"
expect obj_nonmanifold "$obj" "non-manifold"

obj="$tmp/index.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n' >"$obj"
scene_obj "$tmp/index.ini" "$obj"
run --scene "$tmp/index.ini"
expect obj_index_out_of_range "$obj:4: f" "out of range"

obj="$tmp/collinear.obj"
printf 'v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nf 1 4 2\nf 1 2 3\n' >"$obj"
scene_obj "$tmp/collinear.ini" "$obj"
run --scene "$tmp/collinear.ini"
expect obj_degenerate_zero_area "$obj" "degenerate"

obj="$tmp/repeated.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 2\n' >"$obj"
scene_obj "$tmp/repeated.ini" "$obj"
run --scene "$tmp/repeated.ini"
expect obj_degenerate_repeated "$obj:4: f" "degenerate"

scene_obj "$tmp/noobj.ini" "$tmp/no_such_mesh.obj"
run --scene "$tmp/noobj.ini"
expect obj_missing "$tmp/no_such_mesh.obj"

# --------------------------------------------------------------------------------
# Tetrahedral meshes: TetGen files, tet_block keys, box pins, the scene's solver list
# --------------------------------------------------------------------------------

# scene_tetgen SCENE STEM: writes a scene whose mesh is the TetGen pair STEM.node/.ele,
# run by the explicit solver (PBD has no tetrahedral constraints).
scene_tetgen() {
    {
        printf '[scene]\nname = tetgen\nsolvers = symplectic_euler\n'
        printf '[mesh]\ntype = tetgen\npath = %s\n' "$2"
        printf '[material]\nvolume = none\nmembrane = mass_spring\n'
    } >"$1"
}

# A valid corner tetrahedron (nodes 1-4) and a fifth point; each case spoils one thing.
node_ok='5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 0\n'

scene_tetgen "$tmp/tg_missing.ini" "$tmp/no_such_tets"
run --scene "$tmp/tg_missing.ini"
expect tetgen_missing "$tmp/no_such_tets.node" "cannot open"

stem="$tmp/tg_count"
printf '5x 3 0 0\n1 0 0 0\n' >"$stem.node"
printf '1 4 0\n1 1 2 3 4\n' >"$stem.ele"
scene_tetgen "$stem.ini" "$stem"
run --scene "$stem.ini"
expect tetgen_bad_count "$stem.node:1:" "bad point count '5x'"

stem="$tmp/tg_short"
printf '6 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 0\n' >"$stem.node"
printf '1 4 0\n1 1 2 3 4\n' >"$stem.ele"
scene_tetgen "$stem.ini" "$stem"
run --scene "$stem.ini"
expect tetgen_fewer_points "$stem.node:1:" "announces 6 points but the file ends after 5"

stem="$tmp/tg_number"
printf '5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1e0.5 0\n4 0 0 1\n5 1 1 0\n' >"$stem.node"
printf '1 4 0\n1 1 2 3 4\n' >"$stem.ele"
scene_tetgen "$stem.ini" "$stem"
run --scene "$stem.ini"
expect tetgen_bad_number "$stem.node:4:" "bad number '1e0.5' for y"

stem="$tmp/tg_range"
printf "$node_ok" >"$stem.node"
printf '# tets\n1 4 0\n1 1 2 3 9\n' >"$stem.ele"
scene_tetgen "$stem.ini" "$stem"
run --scene "$stem.ini"
expect tetgen_index_out_of_range "$stem.ele:3:" "node 9 out of range" "1..5"

stem="$tmp/tg_repeat"
printf "$node_ok" >"$stem.node"
printf '1 4 0\n1 1 2 3 3\n' >"$stem.ele"
scene_tetgen "$stem.ini" "$stem"
run --scene "$stem.ini"
expect tetgen_repeated_vertex "$stem.ele:2:" "node 3 repeated"

stem="$tmp/tg_flat"
printf "$node_ok" >"$stem.node"
printf '2 4 0\n1 1 2 3 4\n2 1 2 3 5\n' >"$stem.ele"
scene_tetgen "$stem.ini" "$stem"
run --scene "$stem.ini"
expect tetgen_zero_volume "$stem.ele:3:" "zero volume"

stem="$tmp/tg_overlap"
printf '5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 0.1 0.1 0.5\n' >"$stem.node"
printf '2 4 0\n1 1 2 3 4\n2 1 2 3 5\n' >"$stem.ele"
scene_tetgen "$stem.ini" "$stem"
run --scene "$stem.ini"
expect tetgen_overlap "$stem.ele:3:" "same side of their shared face"

stem="$tmp/tg_quadratic"
printf "$node_ok" >"$stem.node"
printf '1 10 0\n1 1 2 3 4 5 5 5 5 5 5\n' >"$stem.ele"
scene_tetgen "$stem.ini" "$stem"
run --scene "$stem.ini"
expect tetgen_quadratic "$stem.ele:1:" "10 nodes per tetrahedron"

f="$tmp/tet_block.ini"
printf '[scene]\nname = tb\nsolvers = symplectic_euler\n[mesh]\ntype = tet_block\n' >"$f"
printf 'cells = 4 0 2\n[material]\nvolume = none\n' >>"$f"
run --scene "$f"
expect tet_block_cells "$f:6: mesh.cells" "0 must lie in [1, 256]"

f="$tmp/box.ini"
printf '[scene]\nname = box\n[pins]\nbox = 0 0 0 1 -1 1\n' >"$f"
run --scene "$f"
expect pins_box_inverted "$f:4: pins.box" "ymin 0 > ymax -1"

run --set 'pins.box=5 5 5 6 6 6'
expect pins_box_empty "--set pins.box=5 5 5 6 6 6: pins.box" "holds no vertex"

run --set 'pins.box=0 0 0 1 1'
expect pins_box_count "pins.box" "needs 6 numbers"

f="$tmp/solvers.ini"
printf '[scene]\nname = solvers\nsolvers = pbd_jacobi, nosuch3\n' >"$f"
run --scene "$f"
expect scene_solvers_unknown "$f:3: scene.solvers: unknown solver 'nosuch3'"

# Position-based solvers have no tetrahedral constraints: named on a solid, they refuse.
f="$tmp/pbd_tets.ini"
printf '[scene]\nname = pbd_tets\n[mesh]\ntype = tet_block\n' >"$f"
printf '[material]\nvolume = none\nmembrane = mass_spring\n' >>"$f"
run --scene "$f" --solvers pbd_jacobi
expect pbd_on_tets "pbd_jacobi" "no tetrahedral constraints"

# --------------------------------------------------------------------------------
# Several meshes ([mesh.NAME] parts) and moving obstacles
# --------------------------------------------------------------------------------

f="$tmp/part_unknown.ini"
printf '[scene]\nname = parts\n[mesh.top]\nnx = 4\nny = 4\n' >"$f"
printf '[pins.a]\nmesh = tpo\ncorners = top_left\n' >>"$f"
run --scene "$f"
expect part_unknown "$f:7: pins.a.mesh" "no part 'tpo'" "top"

f="$tmp/part_tet.ini"
printf '[scene]\nname = parts\n[mesh.solid]\ntype = tet_block\n' >"$f"
run --scene "$f"
expect part_tet_block "$f:4: mesh.solid.type" "a [mesh.NAME] part is a surface"

run --set mesh.extra.type=tetgen
expect part_tetgen "--set mesh.extra.type=tetgen: mesh.extra.type" "part is a surface"

f="$tmp/part_velocity.ini"
printf '[scene]\nname = parts\n[mesh.top]\nvelocity = 0 -20\n' >"$f"
run --scene "$f"
expect part_velocity_vector "$f:4: mesh.top.velocity" "needs 3 components"

run --set 'mesh.velocity=0 nan 0'
expect mesh_velocity_nan "mesh.velocity" "not a finite number"

f="$tmp/part_local_index.ini"
printf '[scene]\nname = parts\n[mesh.top]\nnx = 4\nny = 4\n' >"$f"
printf '[pins]\nmesh = top\nvertices = 16\n' >>"$f"
run --scene "$f"
expect part_local_index "$f:8: pins.vertices" "vertex index 16 out of range" "mesh.top has 16"

f="$tmp/reorder.ini"
printf '[scene]\nname = reorder\n[mesh]\nreorder = rcn\n' >"$f"
run --scene "$f"
expect reorder_value "$f:4: mesh.reorder" "'rcn' is not one of: none, rcm"

f="$tmp/reorder_part.ini"
printf '[scene]\nname = reorder\n[mesh.top]\nnx = 4\nny = 4\nreorder = rcm\n' >"$f"
run --scene "$f"
expect reorder_part "$f:6: mesh.top.reorder" "give it in [mesh]"

f="$tmp/box_half.ini"
printf '[scene]\nname = box\n[collider.b]\ntype = box\nhalf_extents = 0.5 0 0.5\n' >"$f"
run --scene "$f"
expect box_half_extents_zero "$f:5: collider.b.half_extents" "every half extent must lie in (0"

run --set collider.b.type=box --set 'collider.b.half_extents=0.5 -1 0.5'
expect box_half_extents_negative "collider.b.half_extents" "every half extent"

run --set collider.b.type=sphere --set 'collider.b.velocity=1 2'
expect collider_velocity_vector "collider.b.velocity" "needs 3 components"

# A shape reads the keys of its own table only: another shape's key is refused at its line.
f="$tmp/plane_radius.ini"
printf '[scene]\nname = pr\n[collider.g]\ntype = plane\nradius = 0.3\n' >"$f"
run --scene "$f"
expect plane_with_radius "$f:5: collider.g.radius" \
    "does not apply to a plane collider (keys: point, normal,"

# A collider without a type lists the registered shapes and mesh.
f="$tmp/no_type.ini"
printf '[scene]\nname = nt\n[collider.g]\nfriction = 0.2\n' >"$f"
run --scene "$f"
expect collider_no_type "$f:4: collider.g.friction" "collider needs a type (plane, sphere, box,"

# --------------------------------------------------------------------------------
# Size limits (WEFT_MAX_VERTICES, WEFT_MAX_ELEMENTS in lib/mesh/weft_mesh.h): refused before
# anything of that size is allocated, with the limit named. Each case would otherwise
# allocate gigabytes (the fuzzers run with a 2 GiB limit); none may take long.
# --------------------------------------------------------------------------------

run --set mesh.nx=4096 --set mesh.ny=4096
expect limit_grid "mesh.nx" "4096 x 4096 vertices" "WEFT_MAX_VERTICES"

run --scene tet_beam --set 'mesh.cells=256,256,256'
expect limit_tet_block "mesh.cells" "100663296 tetrahedra" "WEFT_MAX_ELEMENTS"

# Parts under the limit one by one but not together.
{
    printf '[mesh]\nnx = 1000\nny = 1000\n[pins]\ncorners = top_left\n'
    printf '[mesh.b]\nnx = 1000\nny = 1000\norigin = 0 0 1\n'
} >"$tmp/limit_parts.ini"
run --scene "$tmp/limit_parts.ini"
expect limit_parts "$tmp/limit_parts.ini:7:" "mesh.b" "2000000 vertices" "WEFT_MAX_VERTICES"

stem="$tmp/tg_huge"
printf '1000000000000 3 0 0\n1 0 0 0\n' >"$stem.node"
printf '1 4 0\n1 1 2 3 4\n' >"$stem.ele"
scene_tetgen "$stem.ini" "$stem"
run --scene "$stem.ini"
expect limit_tetgen_points "$stem.node:1:" "point count 1000000000000" "[1, 1048576]"

stem="$tmp/tg_huge_ele"
printf '4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n' >"$stem.node"
printf '99999999999 4 0\n1 1 2 3 4\n' >"$stem.ele"
scene_tetgen "$stem.ini" "$stem"
run --scene "$stem.ini"
expect limit_tetgen_tets "$stem.ele:1:" "tetrahedron count 99999999999" "[1, 4194304]"

# An endless "scene file" ends at the scene size limit instead of filling memory.
if [ -r /dev/zero ]; then
    run --scene /dev/zero
    expect limit_scene_bytes "/dev/zero" "limit of 1048576 bytes"
fi

# --------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------

run --solvers nosuch
expect unknown_solver "nosuch"

run --solvers pbd_jacobi,nosuch2
expect unknown_solver_in_list "nosuch2"

run --no-such-option
expect unknown_option "--no-such-option"

run --steps -3
expect negative_steps "--steps"

# --------------------------------------------------------------------------------
# Divergence: a huge step and gravity with strong over-relaxation explode at once.
# --------------------------------------------------------------------------------

for solver in pbd_jacobi pbd_gauss_seidel symplectic_euler; do
    # solver.omega only where the solver reads it: an unread --set is refused.
    omega=
    [ "$solver" = pbd_jacobi ] && omega=--set=solver.omega=1.99
    run --solvers "$solver" --steps 50 --set scene.dt=10 $omega --set 'scene.gravity=0,-1e9,0'
    check_status
    # One error line; compare may add an indented note naming the partial log.
    nerr=$(grep -vc '^  (partial log left in ' "$err")
    [ "$nerr" -eq 1 ] || fail_because "stderr has $nerr message lines, expected exactly 1"
    grep -q "^error: .*$solver.*diverged" "$err" || fail_because "no 'error: ... diverged' line naming $solver"
    check_outputs
    p="$out/hanging_cloth/$solver.log.partial"
    if [ ! -f "$p" ]; then
        fail_because "no partial log $p"
    else
        grep -v '^#' "$p" | grep -qiE 'nan|inf' && fail_because "$p holds nan or inf"
        [ "$(tail -n 1 "$p")" = "# status=incomplete reason=diverged" ] ||
            fail_because "$p ends with '$(tail -n 1 "$p")', not '# status=incomplete reason=diverged'"
    fi
    report "diverged_$solver"
done

exit "$failed"
