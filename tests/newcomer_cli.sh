#!/bin/sh
# newcomer_cli.sh CASE REPO BUILD — the rough edges a new user meets in the first hour,
# each one CTest case (tests/CMakeLists.txt). REPO is the source tree (its ./weft script),
# BUILD the build folder whose bin/ holds compare, accuracy and sweep; the weft script
# runs with WEFT_NO_BUILD=1 WEFT_BUILD_DIR=BUILD, so it uses those binaries and builds
# nothing.
#   user_paths        ./weft run, demo, sweep plan/run/merge started from another folder
#                     take the user's relative paths (scene, spec, --out) from that folder
#   typo_suggestions  one suggestion routine for sections, keys and values: [materail] ->
#                     [material], stretch_stifness -> stretch_stiffness, solver.iteration ->
#                     solver.iterations, gird -> grid; nothing offered for a word unlike any
#   malformed_header  an unclosed "[pins" is reported at its own line as a malformed
#                     section header, not as an unknown key of the line after it
#   missing_obj       a missing [mesh] OBJ: the scene file, line and key, then the OBJ path
#   directory_input   a folder given as a sweep spec or a scene: "is a directory"
#   plot_step         --plot-step beyond the run's steps is refused, naming the step count
#   reference_dt      accuracy refuses a reference dt larger than a dt it judges
#   solver_prefix     a solver's refusal names the solver once (projective_dynamics)
#   gnuplot_quiet     gnuplot's chatter ("N frames in animation sequence") does not reach
#                     the output; a failing gnuplot script's messages do (skipped, exit 77,
#                     without gnuplot)
#   stale_cache       ./weft build in a copied tree: starts its build folder afresh instead
#                     of failing on CMake's cache error; a WEFT_BUILD_DIR from another tree
#                     is refused with what to do
#   empty_scene       an empty scene file (0 bytes, only comments, only a header) is an
#                     error naming the file
#   sweep_help        ./weft sweep, ./weft sweep --help and -h print the verbs, exit 0
# Prints "ok: ..." / "FAIL: ..." lines; exits 1 on any failure, 77 when skipped.
# POSIX sh (tested with dash); everything is written under a private mktemp -d.
set -u

usage="usage: newcomer_cli.sh CASE REPO BUILD"
case_name=${1:?$usage}
repo=${2:?$usage}
build=${3:?$usage}
bin="$build/bin"
weft="$repo/weft"

. "$(dirname "$0")/lib.sh"
weft_tmpdir newcomer-$case_name


# run NAME PROGRAM ARGS...: runs PROGRAM; sets rc, keeps $tmp/NAME.out and $tmp/NAME.err.
run() {
    rname=$1
    shift
    "$@" >"$tmp/$rname.out" 2>"$tmp/$rname.err"
    rc=$?
}

# weft_in DIR NAME ARGS...: runs the weft script from DIR on the test's build, as run does.
weft_in() {
    wdir=$1
    rname=$2
    shift 2
    (cd "$wdir" && WEFT_NO_BUILD=1 WEFT_NO_INSTALL=1 WEFT_BUILD_DIR="$build" sh "$weft" "$@") \
        >"$tmp/$rname.out" 2>"$tmp/$rname.err"
    rc=$?
}

# expect_error NAME STATUS FRAGMENT...: the last run exited STATUS (any non-zero status
# below 128 when STATUS is '-') with one stderr line holding every fragment (fixed
# strings).
expect_error() {
    ename=$1
    want=$2
    shift 2
    why=""
    if [ "$want" = - ]; then
        { [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ]; } || why="exit status $rc, expected an error; "
    else
        [ "$rc" -eq "$want" ] || why="exit status $rc, expected $want; "
    fi
    lines=$(wc -l <"$tmp/$rname.err")
    [ "$lines" -eq 1 ] || why="${why}stderr has $lines lines, expected 1; "
    for frag in "$@"; do
        grep -qF -e "$frag" "$tmp/$rname.err" || why="${why}stderr lacks '$frag'; "
    done
    if [ -z "$why" ]; then
        ok "$ename: $(cat "$tmp/$rname.err")"
    else
        fail "$ename: $why"
        sed 's/^/    stderr: /' "$tmp/$rname.err"
    fi
}

# lacks NAME FRAGMENT: the last run's stderr does not hold FRAGMENT.
lacks() {
    if grep -qF -e "$2" "$tmp/$rname.err"; then
        fail "$1: stderr holds '$2': $(cat "$tmp/$rname.err")"
    fi
}

# compare NAME ARGS...: the compare binary, 2 steps, no figures, its own output folder.
compare() {
    cname=$1
    shift
    run "$cname" "$bin/compare" --no-plot --steps 2 --out "$tmp/out-$cname" "$@"
}

# A small valid scene: a 5 x 5 grid hanging from two corners, 2 steps.
small_scene() {
    printf '[scene]\nsteps = 2\n[mesh]\nnx = 5\nny = 5\n[pins]\ncorners = top_left top_right\n' >"$1"
}

case $case_name in

user_paths)
    mkdir -p "$tmp/user/scenes"
    small_scene "$tmp/user/scenes/sheet.ini"
    weft_in "$tmp/user" run run compare --scene scenes/sheet.ini --solvers pbd_jacobi --no-plot \
        --out here
    if [ "$rc" -eq 0 ] && [ -f "$tmp/user/here/sheet/summary.tsv" ]; then
        ok "run compare --scene scenes/sheet.ini --out here: the user's folder"
    else
        fail "run: exit $rc, no $tmp/user/here/sheet/summary.tsv: $(cat "$tmp/run.err")"
    fi
    # Without --out, the default results/ is the user's folder's too, not the repository's.
    weft_in "$tmp/user" default run compare --scene scenes/sheet.ini --solvers pbd_jacobi \
        --no-plot
    [ "$rc" -eq 0 ] && [ -f "$tmp/user/results/sheet/summary.tsv" ] &&
        ok "run without --out: results/ in the user's folder" ||
        fail "run without --out: exit $rc, no $tmp/user/results/sheet/summary.tsv: $(cat "$tmp/default.err")"
    weft_in "$tmp/user" demo demo --steps 1 --set mesh.nx=5 --set mesh.ny=5 --no-plot \
        --out demo_out
    [ "$rc" -eq 0 ] && [ -f "$tmp/user/demo_out/hanging_cloth/summary.tsv" ] &&
        ok "demo --out demo_out: the user's folder" ||
        fail "demo: exit $rc, no $tmp/user/demo_out/hanging_cloth/summary.tsv: $(cat "$tmp/demo.err")"
    # A sweep spec in the user's folder naming a scene beside it.
    cat >"$tmp/user/scenes/tiny.ini" <<'EOF'
[sweep]
name = tiny
program = compare
scene = sheet.ini
solvers = pbd_jacobi
metrics = final_cmax
options = --no-plot
[set]
mesh.nx = 5
mesh.ny = 5

[axes]
solver.iterations = 1, 2
EOF
    weft_in "$tmp/user" plan sweep plan scenes/tiny.ini --out planned
    [ "$rc" -eq 0 ] && [ -s "$tmp/user/planned/jobs.txt" ] &&
        ok "sweep plan scenes/tiny.ini --out planned: the user's folder" ||
        fail "sweep plan: exit $rc, no $tmp/user/planned/jobs.txt: $(cat "$tmp/plan.err")"
    # sweep run merges with a figure: without gnuplot, plan and run the jobs by hand.
    if command -v gnuplot >/dev/null 2>&1; then
        weft_in "$tmp/user" sweep sweep run scenes/tiny.ini --no-parallel --out swept
        [ "$rc" -eq 0 ] && [ -s "$tmp/user/swept/merged.tsv" ] &&
            ok "sweep run scenes/tiny.ini --out swept: planned, run and merged there" ||
            fail "sweep run: exit $rc, no $tmp/user/swept/merged.tsv: $(cat "$tmp/sweep.err")"
        rm -f "$tmp/user/swept/merged.tsv"
    else
        echo "skip: $case_name: sweep run (its merge draws a figure; gnuplot is not installed)"
        weft_in "$tmp/user" sweep sweep plan scenes/tiny.ini --out swept
        sh "$repo/experiments/sweep_run.sh" "$tmp/user/swept" --no-parallel >/dev/null 2>&1 ||
            fail "running the jobs of $tmp/user/swept failed"
    fi
    weft_in "$tmp/user" merge sweep merge swept --no-plot
    [ "$rc" -eq 0 ] && [ -s "$tmp/user/swept/merged.tsv" ] &&
        ok "sweep merge swept: the user's folder" ||
        fail "sweep merge swept: exit $rc: $(cat "$tmp/merge.err")"
    # Nothing was written into the repository.
    for d in "$repo/here" "$repo/demo_out" "$repo/planned" "$repo/swept"; do
        [ -e "$d" ] && fail "$d was created in the repository"
    done
    ;;

typo_suggestions)
    f="$tmp/materail.ini"
    printf '[scene]\nsteps = 2\n[materail]\ndensity = 0.2\n' >"$f"
    compare materail --scene "$f"
    expect_error materail_section - "$f:3: [materail]: unknown section (nearest: [material])"
    lacks materail_section boomeramg
    f="$tmp/stifness.ini"
    printf '[material]\nstretch_stifness = 100\n' >"$f"
    compare stifness --scene "$f"
    expect_error stretch_stifness - \
        "$f:2: material.stretch_stifness: unknown key (nearest: material.stretch_stiffness)"
    compare stifness_set --set material.stretch_stifness=100
    expect_error stretch_stifness_set - "material.stretch_stifness: unknown key (nearest: material.stretch_stiffness)"
    f="$tmp/iteration.ini"
    printf '[scene]\nsteps = 2\n[solver]\niteration = 3\n' >"$f"
    compare iteration --scene "$f"
    expect_error solver_iteration - "$f:4: solver.iteration: unknown key (nearest: solver.iterations)"
    f="$tmp/gird.ini"
    printf '[mesh]\ntype = gird\n' >"$f"
    compare gird --scene "$f"
    expect_error mesh_type_value - "$f:2: mesh.type: 'gird' is not one of:" "(nearest: grid)"
    compare linear --set solver.linear=chlomod
    expect_error plugin_value - "solver.linear: 'chlomod' is not one of:" "(nearest: cholmod)"
    compare solver_name --solvers newton_eular
    expect_error solver_name - "unknown solver 'newton_eular' (nearest: newton_euler;"
    # A word like no known one gets no suggestion.
    f="$tmp/far.ini"
    printf '[scene]\nsteps = 2\n[qqqqqqqq]\nx = 1\n' >"$f"
    compare far --scene "$f"
    expect_error far_section - "$f:3: [qqqqqqqq]: unknown section"
    lacks far_section nearest
    ;;

malformed_header)
    f="$tmp/pins.ini"
    printf '[scene]\nsteps = 2\n[pins\ncorners = 0 1\n' >"$f"
    compare pins --scene "$f"
    expect_error unclosed_pins - "$f:3: malformed section header '[pins'"
    lacks unclosed_pins "unknown key"
    ;;

missing_obj)
    f="$tmp/obj.ini"
    printf '[scene]\nsteps = 2\n[mesh]\ntype = obj\npath = meshes/missing.obj\n' >"$f"
    compare obj --scene "$f"
    expect_error missing_obj - "$f:5: mesh.path: $tmp/meshes/missing.obj: cannot open"
    ;;

directory_input)
    mkdir -p "$tmp/specs"
    printf '[sweep]\nname = a\n' >"$tmp/specs/a.ini"
    run spec_dir "$bin/sweep" plan "$tmp/specs/"
    expect_error sweep_plan_folder 2 "$tmp/specs/: is a directory" "a.ini"
    lacks sweep_plan_folder "larger than"
    weft_in "$tmp" weft_spec_dir sweep plan specs
    expect_error weft_sweep_plan_folder 2 "specs: is a directory"
    compare scene_dir --scene "$tmp/specs/"
    expect_error scene_folder - "$tmp/specs/: is a directory, not a scene file"
    ;;

plot_step)
    run beyond "$bin/compare" --steps 5 --plot-step 50 --solvers pbd_jacobi --set mesh.nx=5 \
        --set mesh.ny=5 --out "$tmp/out"
    expect_error plot_step_beyond 2 "--plot-step 50: the run has 5 steps (0 to 4)"
    [ -e "$tmp/out" ] && fail "plot_step_beyond: $tmp/out was created before the refusal"
    run last "$bin/compare" --steps 5 --plot-step 4 --solvers pbd_jacobi --set mesh.nx=5 \
        --set mesh.ny=5 --no-plot --out "$tmp/out4"
    [ "$rc" -eq 0 ] && ok "--plot-step 4 of 5 steps runs" || fail "--plot-step 4: exit $rc: $(cat "$tmp/last.err")"
    ;;

reference_dt)
    run coarse "$bin/accuracy" --reference-dt 1/30 --dts 1/60 --solvers pbd_jacobi \
        --set mesh.nx=5 --set mesh.ny=5 --no-plot --out "$tmp/out"
    expect_error coarse_reference 2 "--reference-dt: 0.0333333 s is larger than dt = 0.0166667 s"
    [ -e "$tmp/out" ] && fail "coarse_reference: $tmp/out was created before the refusal"
    ;;

solver_prefix)
    compare pd --solvers projective_dynamics --set material.fiber=anisotropic_fiber
    n=$(grep -o 'projective_dynamics:' "$tmp/pd.err" | wc -l)
    [ "$rc" -ne 0 ] && [ "$n" -eq 1 ] &&
        ok "refusal names projective_dynamics once: $(cat "$tmp/pd.err")" ||
        fail "exit $rc, 'projective_dynamics:' $n times: $(cat "$tmp/pd.err")"
    grep -qF "has no projective form" "$tmp/pd.err" || fail "the refusal lacks its reason"
    ;;

gnuplot_quiet)
    if ! command -v gnuplot >/dev/null 2>&1; then
        echo "SKIP: $case_name: gnuplot is not installed (Debian package 'gnuplot-nox')"
        exit 77
    fi
    run anim "$bin/compare" --steps 3 --solvers pbd_jacobi --set mesh.nx=5 --set mesh.ny=5 \
        --animate --out "$tmp/out"
    [ "$rc" -eq 0 ] || fail "--animate: exit $rc: $(cat "$tmp/anim.err")"
    [ -s "$tmp/out/hanging_cloth/animation.gif" ] || fail "no animation.gif"
    if grep -q 'frames in animation sequence' "$tmp/anim.out" "$tmp/anim.err"; then
        fail "gnuplot's chatter reached the output: $(grep -h 'frames in animation' "$tmp/anim.out" "$tmp/anim.err")"
    else
        ok "no 'frames in animation sequence' in the output"
    fi
    [ -s "$tmp/anim.err" ] && fail "stderr is not empty: $(cat "$tmp/anim.err")"
    head -n 1 "$tmp/anim.out" | grep -q '^scene hanging_cloth' ||
        fail "stdout does not start with the scene line: $(head -n 1 "$tmp/anim.out")"
    # A script gnuplot fails on: its own message is shown.
    mkdir -p "$tmp/plots"
    printf 'this_is_not_gnuplot 1 2 3\n' >"$tmp/plots/convergence.gp"
    WEFT_PLOTS_DIR="$tmp/plots"
    export WEFT_PLOTS_DIR
    run broken "$bin/compare" --steps 2 --solvers pbd_jacobi --set mesh.nx=5 --set mesh.ny=5 \
        --out "$tmp/out2"
    unset WEFT_PLOTS_DIR
    [ "$rc" -ne 0 ] && grep -q 'this_is_not_gnuplot' "$tmp/broken.err" &&
        grep -qF "gnuplot failed on $tmp/plots/convergence.gp" "$tmp/broken.err" &&
        ok "a failing script's gnuplot messages are shown" ||
        fail "failing script: exit $rc, stderr: $(cat "$tmp/broken.err")"
    ;;

stale_cache)
    command -v cmake >/dev/null 2>&1 || { echo "SKIP: $case_name: cmake is not installed"; exit 77; }
    # A tree with the weft script and a CMake project that configures in a moment.
    mkdir -p "$tmp/a"
    cp "$weft" "$tmp/a/weft"
    printf 'cmake_minimum_required(VERSION 3.13)\nproject(stale NONE)\n' >"$tmp/a/CMakeLists.txt"
    (cd "$tmp/a" && WEFT_NO_INSTALL=1 sh ./weft build) >"$tmp/a.out" 2>"$tmp/a.err" ||
        { fail "first build in $tmp/a failed: $(cat "$tmp/a.err")"; exit 1; }
    cp -R "$tmp/a" "$tmp/b"
    (cd "$tmp/b" && WEFT_NO_INSTALL=1 sh ./weft build) >"$tmp/b.out" 2>"$tmp/b.err"
    rc=$?
    home=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$tmp/b/build/CMakeCache.txt")
    if [ "$rc" -eq 0 ] && grep -qF "build/ was configured for the source tree $tmp/a" "$tmp/b.err" &&
        [ "$home" = "$(cd "$tmp/b" && pwd)" ]; then
        ok "copied tree: build/ configured afresh for $home"
    else
        fail "copied tree: exit $rc, cache home '$home', stderr: $(cat "$tmp/b.err")"
    fi
    # A WEFT_BUILD_DIR of another tree is the user's: refused, with what to do.
    cp -R "$tmp/a/build" "$tmp/theirs"
    (cd "$tmp/b" && WEFT_NO_INSTALL=1 WEFT_BUILD_DIR="$tmp/theirs" sh ./weft build) \
        >"$tmp/c.out" 2>"$tmp/c.err"
    rc=$?
    rname=c
    expect_error foreign_build_dir 1 "$tmp/theirs/ was configured for the source tree $tmp/a" \
        "Remove $tmp/theirs/"
    [ -f "$tmp/theirs/CMakeCache.txt" ] || fail "the user's $tmp/theirs was changed"
    ;;

empty_scene)
    : >"$tmp/zero.ini"
    compare zero --scene "$tmp/zero.ini"
    expect_error zero_bytes - "$tmp/zero.ini: the scene file sets nothing"
    printf '# a scene to write later\n; nothing yet\n\n' >"$tmp/comments.ini"
    compare comments --scene "$tmp/comments.ini"
    expect_error only_comments - "$tmp/comments.ini: the scene file sets nothing"
    printf '[scene]\n' >"$tmp/header.ini"
    compare header --scene "$tmp/header.ini"
    expect_error only_header - "$tmp/header.ini: the scene file sets nothing"
    ;;

sweep_help)
    for a in --help -h help ''; do
        # shellcheck disable=SC2086  # '' is no argument at all
        weft_in "$tmp" help sweep $a
        if [ "$rc" -eq 0 ] && grep -q '^  plan SPEC' "$tmp/help.out" &&
            grep -q '^  run SPEC' "$tmp/help.out" && grep -q '^  slurm SPEC' "$tmp/help.out" &&
            grep -q '^  merge DIR' "$tmp/help.out" && [ ! -s "$tmp/help.err" ]; then
            ok "./weft sweep ${a:-(no verb)}: the verbs, exit 0"
        else
            fail "./weft sweep ${a:-(no verb)}: exit $rc, stdout: $(head -n 3 "$tmp/help.out"), stderr: $(cat "$tmp/help.err")"
        fi
    done
    weft_in "$tmp" bad sweep plna
    [ "$rc" -eq 2 ] && grep -qF "unknown verb 'plna'" "$tmp/bad.err" &&
        ok "an unknown verb: exit 2, $(head -n 1 "$tmp/bad.err")" ||
        fail "unknown verb: exit $rc, $(cat "$tmp/bad.err")"
    ;;

*)
    echo "$usage" >&2
    echo "unknown case '$case_name'" >&2
    exit 2
    ;;
esac

exit "$failed"
