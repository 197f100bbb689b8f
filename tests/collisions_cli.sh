#!/bin/sh
# collisions_cli.sh CASE COLLISIONS BENCH_COLLISIONS COMPARE — end-to-end runs of the
# collision experiments (experiments/collisions.c, experiments/bench_collisions.c). Each
# CASE is one CTest test (tests/CMakeLists.txt):
#   summary    collisions with its default solvers (pbd_gauss_seidel, pbd_jacobi,
#              newton_euler) on drape_sphere (8 x 8) and a scene file with a mesh obstacle
#              with friction: a complete summary.tsv with the documented columns, one row
#              per scene x solver x configuration, the obstacle scene's "none" rows and the
#              PBD solvers' "ipc" rows refused, every other run complete (newton_euler's
#              ipc run on the obstacle, with its friction, included); the full pipeline and
#              ipc leave no intersecting or unresolved step; per-run step tables complete;
#              figures are PNGs (with gnuplot)
#   diverged   runs that diverge are rows with status "diverged", not a crash (and the
#              ipc row of a solver that does not run it, "refused")
#   ipc        the ipc configuration on cloth_on_cloth (8 x 8 and 6 x 6, 30 steps, cap 50
#              iterations) with newton_euler and pbd_gauss_seidel, beside none
#              (--configs ipc,none: those rows alone, none first): Newton's row complete
#              with no intersecting step, the cloths closer than 10 x thickness yet apart,
#              Newton iterations per step in (1, 50] with every step converged, and a
#              contact-model time and share > 0; the run's resolved input keeps the
#              scene's friction (ball 0.3, ground 0.5, cloth-cloth [collision] friction
#              0.1 as [contact] friction) and the model's default barrier distance (as
#              the "none" run's config lists it);
#              pbd_gauss_seidel's row refused, stderr naming the solvers that run it
#   bad_input  unknown scene, solver or configuration, --scene with --scenes, --scenes
#              or --configs given to compare: one-line error, non-zero exit, no summary
#   bench      bench_collisions on drape_sphere, 1 step: 64^2 and 128^2 rows for bvh and
#              hash, the hash run agreeing with the BVH run
# Prints "ok: ..." / "FAIL: ..." lines; exits 1 on any failure. POSIX sh (dash); all
# files live under a private mktemp -d.
set -u

usage="usage: collisions_cli.sh CASE COLLISIONS BENCH_COLLISIONS COMPARE"
case_name=${1:?$usage}
collisions=${2:?$usage}
bench=${3:?$usage}
compare=${4:?$usage}

. "$(dirname "$0")/lib.sh"
weft_tmpdir collisions-$case_name


columns='scene solver config status steps steps_done vertices triangles thickness_m min_dist_m intersecting_steps max_intersections unresolved_steps iterations_per_step unconverged_steps ms_per_step collision_ms_per_step collision_share check_ms_per_step'

# header FILE: the first line of FILE that does not start with '#', tabs as spaces.
header() {
    awk '!/^#/ { print; exit }' "$1" | tr '\t' ' '
}

# is_png FILE: PNG signature and more than 5 kB.
is_png() {
    sig=$(head -c 8 "$1" | od -An -tx1 | tr -s ' \n' ' ')
    [ "$sig" = " 89 50 4e 47 0d 0a 1a 0a " ] && [ "$(wc -c <"$1")" -gt 5120 ]
}

case $case_name in

summary)
    # A ramp rising along z (y = z / 2) under a flat cloth that starts 1 cm above its
    # highest point and falls 5, 10, 15, 20, 25 mm in the five steps (g = 50 m/s^2).
    printf 'v -0.5 -0.25 -0.5\nv 0.5 -0.25 -0.5\nv 0.5 0.25 0.5\nv -0.5 0.25 0.5\n' \
        >"$tmp/plate.obj"
    printf 'f 1 3 2\nf 1 4 3\n' >>"$tmp/plate.obj"
    cat >"$tmp/plate_drop.ini" <<'EOF'
; a cloth dropped onto a ramp obstacle (a mesh collider)
[scene]
name = plate_drop
dt = 0.01
steps = 5
gravity = 0 -50 0

[mesh]
type = grid
width = 0.3
height = 0.3
plane = xz
origin = -0.15 0.085 0.15

[collision]
pipeline = bridson

[collider.plate]
type = mesh
path = plate.obj
friction = 0.5
EOF
    plot=--no-plot
    command -v gnuplot >/dev/null 2>&1 && plot=
    # shellcheck disable=SC2086  # $plot is empty or one option
    "$collisions" --scenes "drape_sphere,$tmp/plate_drop.ini" --steps 5 --set mesh.nx=8 \
        --set mesh.ny=8 $plot --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "collisions exited with $rc"
        sed 's/^/    stderr: /' "$tmp/stderr"
        exit 1
    fi
    s="$tmp/out/collisions/summary.tsv"
    [ -f "$s" ] || { fail "no $s"; exit 1; }
    [ -e "$s.partial" ] && fail "$s.partial left next to the summary"
    h=$(header "$s")
    [ "$h" = "$columns" ] || fail "summary header is '$h'"
    rows=$(awk '!/^#/ { n++ } END { print n - 1 }' "$s")
    [ "$rows" -eq 36 ] || fail "$rows rows, expected 2 scenes x 3 solvers x 6 configurations = 36"
    # Every combination once, in order.
    awk -F '\t' '!/^#/ && n++ { print $1, $2, $3 }' "$s" >"$tmp/got"
    for scene in drape_sphere plate_drop; do
        for solver in pbd_gauss_seidel pbd_jacobi newton_euler; do
            for c in none bridson no_repulsions no_ccd no_zones ipc; do
                echo "$scene $solver $c"
            done
        done
    done >"$tmp/want"
    cmp -s "$tmp/got" "$tmp/want" || fail "rows are not scene x solver x configuration in order"
    # 19 fields; complete runs did 5 steps with numbers in every column, PBD's 10
    # iterations per step, Newton's at most the scene's cap of 10; the plate's "none" runs
    # are refused (a mesh obstacle needs the pipeline, or a contact model that handles
    # it), as are the PBD solvers' "ipc" runs on both scenes (they do not run the contact
    # model), and stderr says why; newton_euler runs ipc on both, the plate's friction 0.5
    # kept.
    bad=$(awk -F '\t' '!/^#/ && n++ {
            refused = ($1 == "plate_drop" && $3 == "none") || ($3 == "ipc" && $2 != "newton_euler")
            if (NF != 19) { print "fields " NF ": " $0; exit }
            if (refused && ($4 != "refused" || $5 != 5 || $6 != 0)) { print "not refused: " $0; exit }
            if (!refused && ($4 != "complete" || $5 != 5 || $6 != 5)) { print "not complete: " $0; exit }
            if (!refused) for (i = 9; i <= 19; i++) if ($i !~ /^[0-9.e+-]+$/) { print "field " i ": " $0; exit }
            if (!refused && $2 != "newton_euler" && ($14 != 10 || $15 != 0)) { print "iterations per step: " $0; exit }
            if (!refused && $2 == "newton_euler" && !($14 >= 0 && $14 <= 10)) { print "Newton iterations per step: " $0; exit }
          }' "$s")
    [ -z "$bad" ] || fail "unexpected row: $bad"
    n=$(grep -c 'plate_drop.* none: refused: .*needs \[collision\] pipeline = bridson, or \[contact\] model = ipc' "$tmp/stderr")
    [ "$n" -eq 3 ] || fail "stderr explains $n obstacle refusals, expected 3"
    n=$(grep -c ' pbd_[a-z_]* ipc: refused: \[contact\] model = ipc .*is run by newton_euler, bdf2_newton, vbd; set contact.model=none' "$tmp/stderr")
    [ "$n" -eq 4 ] || fail "stderr explains $n contact-model refusals, expected 4"
    # The full pipeline (and the configurations that keep CCD) leave nothing crossed and
    # nothing unresolved on these runs; thickness is the default 1 mm, min_dist within
    # [0, 10 x thickness].
    bad=$(awk -F '\t' '!/^#/ && n++ && $4 == "complete" {
            if ($10 < 0 || $10 > 10 * $9 + 1e-15) { print "min_dist: " $0; exit }
            if ($3 != "none" && $3 != "no_ccd" && ($11 != 0 || $13 != 0)) { print "crossed: " $0; exit }
            if ($3 == "none" && ($13 != 0 || $17 != 0)) { print "pipeline time without it: " $0; exit }
          }' "$s")
    [ -z "$bad" ] || fail "unexpected values: $bad"
    # Not vacuous: on the ramp the cloth comes within 10 x thickness under the full
    # pipeline and under ipc (Newton's, with the ramp's friction), and without CCD it ends
    # steps through the ramp.
    bad=$(awk -F '\t' '!/^#/ && n++ && $1 == "plate_drop" {
            if (($3 == "bridson" || ($3 == "ipc" && $2 == "newton_euler")) && !($10 < 10 * $9)) { print "never close: " $0; exit }
            if ($3 == "no_ccd" && !($11 > 0)) { print "no crossing without CCD: " $0; exit }
          }' "$s")
    [ -z "$bad" ] || fail "plate_drop: $bad"
    # Per-run step tables: complete, one row per step.
    for solver in pbd_gauss_seidel pbd_jacobi; do
        for c in none bridson no_repulsions no_ccd no_zones; do
            t="$tmp/out/collisions/drape_sphere/$solver-$c.tsv"
            if [ ! -f "$t" ]; then
                fail "no ${t#"$tmp"/}"
                continue
            fi
            h=$(header "$t")
            [ "$h" = "step t_s intersections min_dist_m collision_ms unresolved" ] ||
                fail "${t##*/}: header '$h'"
            r=$(awk '!/^#/ { n++ } END { print n - 1 }' "$t")
            [ "$r" -eq 5 ] || fail "${t##*/}: $r rows, expected 5"
        done
    done
    for t in plate_drop/pbd_jacobi-none drape_sphere/pbd_jacobi-ipc; do
        [ -f "$tmp/out/collisions/$t.tsv" ] && fail "a refused run left a step table ($t)"
    done
    grep -q '^scene  *solver  *config  *status' "$tmp/stdout" || fail "no table on stdout"
    if [ -z "$plot" ]; then
        for p in drape_sphere/pbd_gauss_seidel drape_sphere/pbd_jacobi plate_drop/pbd_jacobi; do
            f="$tmp/out/collisions/$p.png"
            if [ -f "$f" ] && is_png "$f"; then ok "$p.png is a PNG"; else fail "$p.png missing or not a PNG"; fi
        done
    fi
    [ "$failed" -eq 0 ] && ok "summary with $rows rows checked"
    ;;

diverged)
    # A huge step and a sideways gravity (no collider in its way) make the explicit
    # solver leave the 1e6 m box in its first step.
    "$collisions" --scenes drape_sphere --solvers symplectic_euler --steps 3 --set mesh.nx=4 \
        --set mesh.ny=4 --set scene.dt=10 --set 'scene.gravity=1e9,0,0' --no-plot \
        --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    [ "$rc" -eq 0 ] || fail "exit status $rc: a diverging run is a result, not a failure"
    s="$tmp/out/collisions/summary.tsv"
    if [ -f "$s" ]; then
        # The five pipeline configurations diverge; symplectic_euler does not run ipc.
        bad=$(awk -F '\t' '!/^#/ && n++ && $3 != "ipc" && ($4 != "diverged" || $6 != 0) { print; exit }
                           !/^#/ && $3 == "ipc" && $4 != "refused" { print; exit }' "$s")
        [ -z "$bad" ] || fail "row not diverged: $bad"
        r=$(awk '!/^#/ { n++ } END { print n - 1 }' "$s")
        [ "$r" -eq 6 ] || fail "$r rows, expected 6"
        ok "5 diverged rows and ipc refused"
    else
        fail "no summary"
    fi
    n=$(grep -c 'diverged' "$tmp/stderr")
    [ "$n" -eq 5 ] || fail "stderr names $n divergences, expected 5"
    ;;

ipc)
    "$collisions" --scenes cloth_on_cloth --solvers newton_euler,pbd_gauss_seidel --steps 30 \
        --configs ipc,none --iterations 50 --set mesh.nx=8 --set mesh.ny=8 --set mesh.top.nx=6 --set mesh.top.ny=6 --no-plot \
        --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "collisions exited with $rc"
        sed 's/^/    stderr: /' "$tmp/stderr"
        exit 1
    fi
    s="$tmp/out/collisions/summary.tsv"
    [ -f "$s" ] || { fail "no $s"; exit 1; }
    [ "$(header "$s")" = "$columns" ] || fail "summary header is '$(header "$s")'"
    # --configs ipc,none: those two alone, in the table's order (none first), per solver
    got=$(awk -F '\t' '!/^#/ && n++ { printf "%s%s:%s", sep, $2, $3; sep = " " }' "$s")
    [ "$got" = "newton_euler:none newton_euler:ipc pbd_gauss_seidel:none pbd_gauss_seidel:ipc" ] ||
        fail "--configs ipc,none ran '$got'"
    # Newton under ipc: every step done, none ending with intersecting triangles, the two
    # cloths within 10 x thickness of each other (they met) and apart, converged in at most
    # every step converged within the cap of 50 Newton steps (the issue's bound), the contact
    # model's time (the pair set and the CCD filter) in the collision columns. Without
    # pipeline or contact model: no time.
    bad=$(awk -F '\t' '!/^#/ && n++ && $2 == "newton_euler" {
            if ($3 == "ipc") {
                seen = 1
                if ($4 != "complete" || $6 != 30) { print "not complete: " $0; exit }
                if ($11 != 0 || $12 != 0) { print "intersecting: " $0; exit }
                if (!($10 > 0 && $10 < 10 * $9)) { print "min_dist: " $0; exit }
                if (!($14 > 1 && $14 <= 50 && $15 == 0)) { print "iterations: " $0; exit }
                if (!($17 > 0 && $18 > 0 && $18 <= 1)) { print "contact time: " $0; exit }
            }
            if ($3 == "none" && ($17 != 0 || $18 != 0)) { print "time without contact: " $0; exit }
          } END { if (!seen) print "no newton_euler ipc row" }' "$s")
    [ -z "$bad" ] || fail "newton_euler: $bad"
    row=$(awk -F '\t' '!/^#/ && $2 == "pbd_gauss_seidel" && $3 == "ipc" { print $4, $6, $14 }' "$s")
    [ "$row" = "refused 0 -" ] || fail "pbd_gauss_seidel ipc row is '$row', expected refused"
    grep -q 'pbd_gauss_seidel ipc: refused: \[contact\] model = ipc .*is run by newton_euler, bdf2_newton, vbd; set contact.model=none' \
        "$tmp/stderr" || fail "stderr does not explain pbd_gauss_seidel's refusal"
    grep -q '^cloth_on_cloth  *newton_euler  *ipc  *complete ' "$tmp/stdout" ||
        fail "no ipc row in the table on stdout"
    # ini_value FILE SECTION KEY: the value of KEY in [SECTION] of a written config.
    ini_value() {
        awk -v s="[$2]" -v k="$3" '/^\[/ { in_s = ($1 == s); next }
            in_s && $1 == k && $2 == "=" { print $3; exit }' "$1"
    }
    ini="$tmp/out/collisions/cloth_on_cloth/newton_euler-ipc.ini"
    got="$(ini_value "$ini" collider.ball friction) $(ini_value "$ini" collider.ground friction)"
    got="$got $(ini_value "$ini" contact friction)"
    [ "$got" = "0.3 0.5 0.1" ] ||
        fail "ipc run's ball, ground and cloth friction are '$got', expected '0.3 0.5 0.1'"
    # d^ as the model gives it: what the "none" run's config lists as the default
    dhat=$(ini_value "$ini" contact barrier_distance)
    want=$(ini_value "${ini%-ipc.ini}-none.ini" contact barrier_distance)
    # (the key is written; its default is empty: 1 mm, or relative to the scene's size)
    listed=$(awk '/^\[/ { in_s = ($1 == "[contact]"); next }
        in_s && $1 == "barrier_distance" { print "yes"; exit }' "$ini")
    [ "$listed" = yes ] && [ "$dhat" = "$want" ] ||
        fail "ipc run's d^ is '$dhat' (listed: '$listed'), the default '$want'"
    [ "$failed" -eq 0 ] && ok "ipc rows: newton_euler intersection-free, pbd_gauss_seidel refused"
    ;;

bad_input)
    # expect_error NAME FRAGMENT CMD...: non-zero exit below 128, one stderr line holding
    # FRAGMENT, no summary.
    expect_error() {
        name=$1 frag=$2
        shift 2
        rm -rf "$tmp/out"
        "$@" >"$tmp/stdout" 2>"$tmp/stderr"
        rc=$?
        lines=$(wc -l <"$tmp/stderr")
        if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then
            fail "$name: exit status $rc"
        elif [ "$lines" -ne 1 ]; then
            fail "$name: $lines stderr lines"
        elif ! grep -qF -e "$frag" "$tmp/stderr"; then
            fail "$name: stderr lacks '$frag'"
        elif [ -e "$tmp/out/collisions/summary.tsv" ]; then
            fail "$name: a summary was written"
        else
            ok "$name"
            return 0
        fi
        sed 's/^/    stderr: /' "$tmp/stderr"
    }
    expect_error unknown_scene "no_such_scene" \
        "$collisions" --scenes drape_sphere,no_such_scene --steps 1 --out "$tmp/out"
    expect_error unknown_solver "unknown solver 'pbd_gauss'" \
        "$collisions" --scenes drape_sphere --solvers pbd_gauss --out "$tmp/out"
    expect_error scene_and_scenes "--scene and --scenes" \
        "$collisions" --scene drape_sphere --scenes drape_sphere --out "$tmp/out"
    expect_error bad_set "collision.ccd" \
        "$collisions" --scenes drape_sphere --set collision.ccd=perhaps --out "$tmp/out"
    expect_error compare_scenes "--scenes" "$compare" --scenes a,b --out "$tmp/out"
    expect_error unknown_config "unknown configuration 'bridsen'" \
        "$collisions" --scenes drape_sphere --configs ipc,bridsen --out "$tmp/out"
    expect_error compare_configs "--configs" "$compare" --configs ipc --out "$tmp/out"
    expect_error bench_scene "no_such_scene" "$bench" --scene no_such_scene --out "$tmp/out"
    ;;

bench)
    "$bench" --scene drape_sphere --steps 1 --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "bench_collisions exited with $rc"
        sed 's/^/    stderr: /' "$tmp/stderr"
        exit 1
    fi
    b="$tmp/out/bench_collisions.tsv"
    [ -f "$b" ] || { fail "no $b"; exit 1; }
    h=$(header "$b")
    want='scene solver res vertices triangles broad_phase steps_done ms_per_step collision_ms_per_step collision_share proximity_pairs_per_step swept_pairs_per_step ccd_passes_per_step zone_rounds unresolved_steps agree'
    [ "$h" = "$want" ] || fail "header is '$h'"
    awk -F '\t' '!/^#/ && n++ { print $1, $2, $3, $4, $6, $7, $16 }' "$b" >"$tmp/got"
    cat >"$tmp/want" <<'EOF'
drape_sphere pbd_gauss_seidel 64 4096 bvh 1 -
drape_sphere pbd_gauss_seidel 64 4096 hash 1 yes
drape_sphere pbd_gauss_seidel 128 16384 bvh 1 -
drape_sphere pbd_gauss_seidel 128 16384 hash 1 yes
EOF
    if cmp -s "$tmp/got" "$tmp/want"; then
        ok "4 rows: 64^2 and 128^2, bvh and hash agreeing"
    else
        fail "rows differ from the expected ones:"
        diff "$tmp/want" "$tmp/got" | sed 's/^/    /'
    fi
    # The pipeline took time, and a share of the step in (0, 1].
    bad=$(awk -F '\t' '!/^#/ && n++ && !($9 > 0 && $10 > 0 && $10 <= 1) { print; exit }' "$b")
    [ -z "$bad" ] || fail "timing columns: $bad"
    ;;

*)
    echo "FAIL: unknown case '$case_name'"
    exit 1
    ;;
esac
exit "$failed"
