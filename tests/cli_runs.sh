#!/bin/sh
# cli_runs.sh CASE COMPARE LIST [REPO] — end-to-end runs of the experiment binaries.
# Each CASE is one CTest test (tests/CMakeLists.txt). REPO (the source tree, for the
# shipped scene files) defaults to the directory above this script.
#   determinism    two identical runs give identical logs (apart from '#' lines, wall_s)
#   interrupted    SIGINT mid-run: non-zero exit, 'interrupted', only .partial logs
#   complete_log   a finished log: status line, header, row count, finite values;
#                  summary.tsv's steps_capped and cap_reasons agree with its stop lines
#   set_override   --set reaches solver.iterations and collider.NAME.friction
#   builtin_files  each built-in scene equals its shipped .ini file
#   tet_scene      a tetrahedral scene runs with the scene's own solver (symplectic_euler)
#   collisions     [collision] pipeline=bridson: complete <log>.collisions per solver,
#                  nothing unresolved or intersecting, reproducible counts
#   collision_scenes  the collision scenes (several meshes, a turning pin) run with the
#                  default solvers: complete logs, finite rows, the mesh sizes they declare
#   list_output    list --tsv has a row of ten fields for the registered solvers, energies
#                  (each with its paper) and the built-in scenes
#   readme_keys    every setting key of ./weft list is documented in docs/scenes.md's key table
#   bench_implicit bench_implicit (next to COMPARE) at 8², 12²: complete table (newton_euler
#                  rows included), PPCG agrees with CHOLMOD, bad --sizes refused
#   help           compare --help names every option
#   plots          figures are real PNGs (skipped, exit 77, without gnuplot)
#   animate        --animate: complete frame files (frame 0 = the scene's start, one frame
#                  per step on a short run, the grid's rows and columns per frame) and a GIF
#                  (skipped, exit 77, without gnuplot)
#   time_budget    --time-budget: the iterations it fitted reach the summary and the log
#                  header; a solver with a fixed count keeps it; bad budgets refused
#   rerun          config.ini holds the resolved input (every --set, the provenance);
#                  compare --scene DIR/config.ini and --rerun DIR reproduce the logs (data
#                  and header but the date and wall_s), on every built-in scene too; the log
#                  header names the model; scene.dt=1/120 is read as a fraction
#   force          a second run into a folder with results is refused naming --force; with
#                  --force the earlier run's files are gone and summary.tsv lists exactly
#                  the logs in the folder; a scene file's section for a solver not in the
#                  run is allowed
# Prints "ok: ..." / "FAIL: ..." lines; exits 1 on any failure.
# POSIX sh (tested with dash); everything is written under a private mktemp -d.
set -u

usage="usage: cli_runs.sh CASE COMPARE LIST [REPO]"
case_name=${1:?$usage}
compare=${2:?$usage}
list=${3:?$usage}
if [ $# -ge 4 ]; then
    repo=$4
else
    repo=$(cd "$(dirname "$0")/.." && pwd) || exit 1
fi

. "$(dirname "$0")/lib.sh"
weft_tmpdir cli-$case_name

# Log data without '#' lines and without the wall_s column (3), which is timing.
strip_log() {
    awk '!/^#/ { $3 = ""; print }' "$1"
}

# compare_logs DIR_A DIR_B: every *.log in A has an equal twin in B and vice versa.
compare_logs() {
    found=0
    for a in "$1"/*.log; do
        [ -f "$a" ] || continue
        found=$((found + 1))
        b="$2/${a##*/}"
        if [ ! -f "$b" ]; then
            fail "$b missing (present in $1)"
            continue
        fi
        strip_log "$a" >"$tmp/a.txt"
        strip_log "$b" >"$tmp/b.txt"
        if [ ! -s "$tmp/a.txt" ]; then
            fail "$a has no data rows"
        elif cmp -s "$tmp/a.txt" "$tmp/b.txt"; then
            ok "${1#"$tmp"/}/${a##*/}: identical data ($(wc -l <"$tmp/a.txt") rows)"
        else
            fail "${a##*/} differs between $1 and $2:"
            diff "$tmp/a.txt" "$tmp/b.txt" | head -n 6 | sed 's/^/    /'
        fi
    done
    for b in "$2"/*.log; do
        [ -f "$b" ] || continue
        [ -f "$1/${b##*/}" ] || fail "$1/${b##*/} missing (present in $2)"
    done
    [ "$found" -gt 0 ] || fail "no logs in $1"
}

# same_headers DIR_A DIR_B: every *.log of A has the '#' lines of its twin in B, the first
# (weft version and date) and the last (status) excepted.
same_headers() {
    for a in "$1"/*.log; do
        [ -f "$a" ] || continue
        b="$2/${a##*/}"
        grep '^#' "$a" | sed '1d;$d' >"$tmp/ha.txt"
        grep '^#' "$b" 2>/dev/null | sed '1d;$d' >"$tmp/hb.txt"
        if cmp -s "$tmp/ha.txt" "$tmp/hb.txt"; then
            ok "${a##*/}: same header ($(wc -l <"$tmp/ha.txt") lines)"
        else
            fail "${a##*/}: headers differ between $1 and $2:"
            diff "$tmp/ha.txt" "$tmp/hb.txt" | head -n 6 | sed 's/^/    /'
        fi
    done
}

# run_ok NAME ARGS...: runs compare, which must exit 0; keeps stdout/stderr in $tmp.
run_ok() {
    rname=$1
    shift
    "$compare" "$@" >"$tmp/$rname.out" 2>"$tmp/$rname.err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "compare $* exited with $rc"
        sed 's/^/    stderr: /' "$tmp/$rname.err"
        return 1
    fi
    return 0
}

# Data rows of a log that contain nan or inf (any case).
nonfinite_rows() {
    grep -v '^#' "$1" | grep -ciE 'nan|inf'
}

case $case_name in

determinism)
    for k in 1 2; do
        run_ok "run$k" --scene hanging_cloth --solvers pbd_gauss_seidel,pbd_jacobi --steps 20 \
            --no-plot --out "$tmp/out$k" || exit 1
    done
    compare_logs "$tmp/out1/hanging_cloth" "$tmp/out2/hanging_cloth"
    for s in pbd_gauss_seidel pbd_jacobi; do
        [ -f "$tmp/out1/hanging_cloth/$s.log" ] || fail "no $s.log"
    done
    ;;

interrupted)
    out="$tmp/out"
    "$compare" --steps 100000 --no-plot --out "$out" >"$tmp/stdout" 2>"$tmp/stderr" &
    pid=$!
    sleep 1
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid"
        fail "compare ended (status $?) before it could be interrupted"
        sed 's/^/    stderr: /' "$tmp/stderr"
        exit 1
    fi
    kill -INT "$pid"
    # Watchdog: an interrupt that is not honoured must not hang the test. It keeps no
    # descriptor of ours open and takes its sleep with it when it is stopped.
    sh -c 'sleep 30 & s=$!; trap "kill \$s; exit 0" TERM; wait $s && kill -KILL "$1"' \
        watchdog "$pid" >/dev/null 2>&1 </dev/null &
    dog=$!
    wait "$pid"
    status=$?
    kill "$dog" 2>/dev/null
    if [ "$status" -eq 0 ]; then
        fail "exit status 0 after SIGINT"
    elif [ "$status" -ge 128 ]; then
        fail "exit status $status: killed by the signal instead of stopping cleanly"
    else
        ok "exit status $status"
    fi
    if grep -q 'interrupted' "$tmp/stderr"; then
        ok "message says interrupted"
    else
        fail "stderr does not say 'interrupted'"
        sed 's/^/    stderr: /' "$tmp/stderr"
    fi
    dir="$out/hanging_cloth"
    for f in "$dir"/pbd_*.log; do
        [ -f "$f" ] && fail "complete-looking log $f after an interrupt"
    done
    [ -f "$dir/summary.tsv" ] && fail "summary.tsv written after an interrupt"
    nparts=0
    for p in "$dir"/pbd_*.log.partial; do
        [ -f "$p" ] || continue
        nparts=$((nparts + 1))
        last=$(tail -n 1 "$p")
        if [ "$last" = "# status=incomplete reason=interrupted" ]; then
            ok "${p##*/} ends with '$last'"
        else
            fail "${p##*/} ends with '$last'"
        fi
        [ "$(nonfinite_rows "$p")" -eq 0 ] || fail "${p##*/} holds nan or inf"
    done
    [ "$nparts" -gt 0 ] || fail "no pbd_*.log.partial in $dir"
    ;;

complete_log)
    steps=3
    iters=4
    run_ok run --scene hanging_cloth --steps $steps --iterations $iters --no-plot \
        --out "$tmp/out" || exit 1
    dir="$tmp/out/hanging_cloth"
    header='# step iter wall_s residual residual_rel cmax crms energy volume'
    nlogs=0
    for f in "$dir"/*.log; do
        [ -f "$f" ] || continue
        nlogs=$((nlogs + 1))
        name=${f##*/}
        last=$(tail -n 1 "$f")
        [ "$last" = "# status=complete" ] || fail "$name: last line is '$last'"
        # The header: the last '#' line before the first data row.
        h=$(awk '/^#/ { h = $0; next } { print h; exit }' "$f")
        [ "$h" = "$header" ] || fail "$name: header is '$h'"
        # Rows in order, 9 columns each: every step starts at iter 0 and counts up by one,
        # to the scene's iterations (PBD), the solver's fixed count (one linear solve), or
        # fewer when Newton reaches its tolerance first.
        fixed=$(sed -n 's/^#.*[[:space:]]iterations=\([0-9]*\).*/\1/p' "$f" | head -n 1)
        bad=$(awk -v cap="$fixed" -v steps=$steps '!/^#/ {
                  if (NF != 9 || $2 > cap) { print NR ": " $0; exit }
                  if ($2 == 0) { if ($1 != s) { print NR ": " $0; exit } s++ }
                  else if ($1 != s - 1 || $2 != last + 1) { print NR ": " $0; exit }
                  last = $2 }
              END { if (s != steps) print "end: " s " steps, expected " steps }' "$f")
        [ -z "$bad" ] || fail "$name: unexpected row at line $bad"
        case "$name" in
        pbd_*)
            rows=$(grep -vc '^#' "$f")
            want=$((steps * (iters + 1)))
            [ "$rows" -eq "$want" ] || fail "$name: $rows data rows, expected $want" ;;
        esac
        [ "$(nonfinite_rows "$f")" -eq 0 ] || fail "$name: nan or inf in data rows"
        # summary.tsv's steps_capped and cap_reasons are what the log's stop lines say:
        # "REASON:STEPS" sorted by reason, joined by commas, "-" for none.
        want=$(awk '/^# step .* stop=cap( |$)/ { r = ""
                   for (i = 1; i <= NF; i++) if ($i ~ /^reason=/) r = substr($i, 8)
                   if (r != "") n[r]++ }
               END { for (k in n) print k ":" n[k] }' "$f" | LC_ALL=C sort -t : -k 1,1 |
               paste -s -d , -)
        [ -n "$want" ] || want=-
        capped=$(grep -c '^# step .* stop=cap' "$f")
        got=$(awk -F '\t' -v s="${name%.log}" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                  $1 == s { print $c["steps_capped"] "|" $c["cap_reasons"] }' "$dir/summary.tsv")
        [ "$got" = "$capped|$want" ] ||
            fail "$name: summary.tsv steps_capped|cap_reasons '$got', the log says '$capped|$want'"
        ok "$name checked ($capped capped: $want)"
    done
    [ "$nlogs" -gt 0 ] || fail "no logs in $dir"
    [ -f "$dir/summary.tsv" ] || fail "no summary.tsv"
    [ "$(awk 'END { print NR }' "$dir/summary.tsv" 2>/dev/null)" = $((nlogs + 1)) ] ||
        fail "summary.tsv does not have a header and one row per log"
    leftovers=$(find "$dir" -name '*.partial')
    [ -z "$leftovers" ] || fail "partial files left after a complete run: $leftovers"
    ;;

collisions)
    steps=12
    for k in 1 2; do
        run_ok "run$k" --scene drape_sphere --set mesh.nx=9 --set mesh.ny=9 --steps $steps \
            --set collision.pipeline=bridson --set collision.count_intersections=true \
            --no-plot --out "$tmp/out$k" || exit 1
    done
    dir="$tmp/out1/drape_sphere"
    header='# step proximity_pairs swept_pairs repulsions ccd_hits ccd_iterations zone_iterations zones max_zone collider_contacts unresolved remaining ms'
    main_header='# step iter wall_s residual residual_rel cmax crms energy volume'
    nlogs=0
    for f in "$dir"/*.log; do
        [ -f "$f" ] || continue
        nlogs=$((nlogs + 1))
        c="$f.collisions"
        name=${c##*/}
        if [ ! -f "$c" ]; then
            fail "no $name next to ${f##*/}"
            continue
        fi
        last=$(tail -n 1 "$c")
        [ "$last" = "# status=complete" ] || fail "$name: last line is '$last'"
        h=$(awk '/^#/ { h = $0; next } { print h; exit }' "$c")
        [ "$h" = "$header" ] || fail "$name: header is '$h'"
        rows=$(grep -vc '^#' "$c")
        [ "$rows" -eq "$steps" ] || fail "$name: $rows data rows, expected $steps"
        # One row per step, 13 columns, nothing unresolved (11) or intersecting (12).
        bad=$(awk '!/^#/ { if (NF != 13 || $1 != k || $11 != 0 || $12 != 0) { print NR ": " $0; exit }
                           k++ }' "$c")
        [ -z "$bad" ] || fail "$name: unexpected row at line $bad"
        # Identical runs, identical counts (the last column is timing).
        awk '!/^#/ { $13 = ""; print }' "$c" >"$tmp/a.txt"
        awk '!/^#/ { $13 = ""; print }' "$tmp/out2/drape_sphere/$name" >"$tmp/b.txt"
        cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "$name: counts differ between identical runs"
        mh=$(awk '/^#/ { h = $0; next } { print h; exit }' "$f")
        [ "$mh" = "$main_header" ] || fail "${f##*/}: main log header changed to '$mh'"
        ok "$name checked"
    done
    [ "$nlogs" -gt 0 ] || fail "no logs in $dir"
    ;;

set_override)
    run_ok iters --scene hanging_cloth --set solver.iterations=3 --steps 2 --no-plot \
        --out "$tmp/out1" || exit 1
    nlogs=0
    for f in "$tmp/out1/hanging_cloth"/*.log; do
        [ -f "$f" ] || continue
        nlogs=$((nlogs + 1))
        name=${f##*/}
        iters=$(awk '!/^#/ { print $2 }' "$f" | sort -un | tr '\n' ' ')
        case "$name" in
        implicit_euler.log | bdf2.log) # one linear solve per step, whatever the scene says
            [ "$iters" = "0 1 " ] || fail "$name: iter values are '$iters', expected '0 1 '"
            continue ;;
        xpbd.log) # its own [xpbd] substeps x iterations (20 x 1), whatever [solver] says
            [ "$iters" = "$(seq 0 20 | tr '\n' ' ')" ] ||
                fail "$name: iter values are '$iters', expected 0..20 (substeps x iterations)"
            grep -qE '^#.*(^|[[:space:]])iterations=20([[:space:]]|$)' "$f" ||
                fail "$name: no metadata line with iterations=20"
            ok "$name keeps its own 20 iterations"
            continue ;;
        newton_euler.log | bdf2_newton.log) # the cap is 3; Newton may stop before it
            [ "$(awk '!/^#/ && $2 > m { m = $2 } END { print m + 0 }' "$f")" -le 3 ] ||
                fail "$name: more than 3 Newton iterations in a step" ;;
        *)
            [ "$iters" = "0 1 2 3 " ] ||
                fail "$name: iter values are '$iters', expected '0 1 2 3 '"
            [ "$(grep -vc '^#' "$f")" -eq 8 ] || fail "$name: expected 2 x 4 = 8 data rows" ;;
        esac
        grep -qE '^#.*(^|[[:space:]])iterations=3([[:space:]]|$)' "$f" ||
            fail "$name: no metadata line with iterations=3"
        ok "$name has iterations 0..3"
    done
    [ "$nlogs" -gt 0 ] || fail "no logs in $tmp/out1/hanging_cloth"

    if run_ok friction --scene drape_sphere --set collider.ball.friction=0.9 --steps 2 \
        --no-plot --out "$tmp/out2"; then
        n=0
        for f in "$tmp/out2/drape_sphere"/*.log; do
            [ -f "$f" ] || continue
            n=$((n + 1))
            [ "$(tail -n 1 "$f")" = "# status=complete" ] || fail "${f##*/} is not complete"
        done
        [ "$n" -gt 0 ] && ok "drape_sphere with collider.ball.friction=0.9 ran"
        [ "$n" -gt 0 ] || fail "no logs in $tmp/out2/drape_sphere"
    fi

    # The override really reaches the collider: an out-of-range value is refused.
    "$compare" --scene drape_sphere --set collider.ball.friction=-1 --steps 2 --no-plot \
        --out "$tmp/out3" >/dev/null 2>"$tmp/friction.err"
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] &&
        grep -qF -e '--set collider.ball.friction=-1' "$tmp/friction.err" &&
        grep -qF -e 'collider.ball.friction' "$tmp/friction.err"; then
        ok "collider.ball.friction=-1 refused"
    else
        fail "collider.ball.friction=-1: exit $rc, stderr: $(cat "$tmp/friction.err")"
    fi
    ;;

rerun)
    run_ok first --scene hanging_cloth --solvers newton_euler,xpbd,pbd_gauss_seidel --steps 3 \
        --set mesh.nx=9 --set mesh.ny=7 --set material.stretch_stiffness=5000 \
        --set xpbd.substeps=4 --set solver.tolerance=1e-5 --set scene.dt=1/120 \
        --no-plot --out "$tmp/a" || exit 1
    dir="$tmp/a/hanging_cloth"
    ini="$dir/config.ini"
    [ -f "$ini" ] || { fail "no config.ini in $dir"; exit 1; }
    [ ! -e "$ini.partial" ] || fail "config.ini.partial left"
    for line in 'nx = 9' 'ny = 7' 'stretch_stiffness = 5000' 'substeps = 4' 'tolerance = 1e-05' \
        'dt = 0.008333333333333333' 'solvers = newton_euler,xpbd,pbd_gauss_seidel' \
        'diagonals = alternating' 'bending = dihedral_bending' 'steps = 3'; do
        grep -qxF -e "$line" "$ini" || fail "config.ini has no line '$line'"
    done
    for p in '# weft: version' '# build: ' '# machine: cpu' '# date: ' '# command: compare'; do
        grep -q "^$p" "$ini" || fail "config.ini has no provenance line '$p...'"
    done
    # The header names the model: mesh, its grid, material, energies, gravity.
    h="$dir/newton_euler.log"
    grep -q '^# model: mesh vertices=63 triangles=96 ' "$h" || fail "no mesh line in $h"
    grep -q '^# model: part mesh: grid nx=9 ny=7 diagonals=alternating' "$h" || fail "no grid line"
    grep -q '^# model: material .*stretch_stiffness=5000 ' "$h" || fail "no material line"
    grep -q '^# model: energy membrane=mass_spring(' "$h" || fail "no energy line"
    grep -q '^# model: gravity=0 -9.81 0 ' "$h" || fail "no gravity line"
    grep -q '^# dt=0.0083333333333333332 ' "$h" && ok "scene.dt=1/120 read as a fraction" ||
        fail "scene.dt=1/120 did not give dt = 1/120"
    run_ok again --scene "$ini" --no-plot --out "$tmp/b" || exit 1
    compare_logs "$dir" "$tmp/b/hanging_cloth"
    same_headers "$dir" "$tmp/b/hanging_cloth"
    run_ok rerun --rerun "$dir" --no-plot --out "$tmp/c" || exit 1
    compare_logs "$dir" "$tmp/c/hanging_cloth"
    # Rerunning into the folder it reads from (even with --force) is refused, input kept.
    if "$compare" --rerun "$dir" --force --no-plot --out "$tmp/a" >/dev/null 2>"$tmp/self.err"; then
        fail "a rerun into its own folder ran"
    else
        grep -q "fresh folder" "$tmp/self.err" && [ -f "$ini" ] &&
            ok "a rerun into its own folder refused: $(cat "$tmp/self.err")" ||
            fail "rerun into its own folder: $(cat "$tmp/self.err")"
    fi
    # Every built-in scene round-trips (generated meshes, parts, pins, colliders, solids).
    "$list" --tsv >"$tmp/list.txt" || { fail "list failed"; exit 1; }
    nscenes=0
    for s in $(awk -F '\t' '$1 == "scene" { print $2 }' "$tmp/list.txt"); do
        nscenes=$((nscenes + 1))
        # Newton, and PBD (many rows a step) on the surface scenes.
        solvers=newton_euler,pbd_gauss_seidel
        [ "$s" = tet_beam ] && solvers=newton_euler
        run_ok "$s-1" --scene "$s" --solvers "$solvers" --steps 3 --no-plot \
            --out "$tmp/s1" || continue
        run_ok "$s-2" --rerun "$tmp/s1/$s" --no-plot --out "$tmp/s2" || continue
        compare_logs "$tmp/s1/$s" "$tmp/s2/$s"
        same_headers "$tmp/s1/$s" "$tmp/s2/$s"
    done
    [ "$nscenes" -ge 8 ] || fail "list --tsv named $nscenes built-in scenes, expected 8 or more"
    ;;

force)
    run_ok first --scene hanging_cloth --solvers pbd_gauss_seidel,xpbd --steps 2 --no-plot \
        --out "$tmp/out" || exit 1
    dir="$tmp/out/hanging_cloth"
    "$compare" --scene hanging_cloth --solvers pbd_gauss_seidel --steps 2 --no-plot \
        --out "$tmp/out" >/dev/null 2>"$tmp/again.err"
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ "$(wc -l <"$tmp/again.err")" -eq 1 ] &&
        grep -qF -e "--force" "$tmp/again.err" && grep -qF "fresh folder" "$tmp/again.err" &&
        grep -qF "$dir" "$tmp/again.err"; then
        ok "a second run into $dir refused: $(cat "$tmp/again.err")"
    else
        fail "second run into the same folder: exit $rc, stderr: $(cat "$tmp/again.err")"
    fi
    [ -f "$dir/xpbd.log" ] || fail "the refused run removed xpbd.log"
    run_ok forced --scene hanging_cloth --solvers pbd_gauss_seidel --steps 2 --no-plot \
        --force --out "$tmp/out" || exit 1
    [ ! -e "$dir/xpbd.log" ] && ok "--force removed the earlier run's xpbd.log" ||
        fail "xpbd.log of the earlier run left beside the new results"
    logs=$(cd "$dir" && ls -- *.log | sed 's/\.log$//' | sort | tr '\n' ' ')
    rows=$(awk -F '\t' 'NR > 1 { print $1 }' "$dir/summary.tsv" | sort | tr '\n' ' ')
    [ "$logs" = "$rows" ] && ok "summary.tsv lists exactly the logs ($logs)" ||
        fail "logs '$logs' but summary.tsv rows '$rows'"
    grep -qx 'solvers = pbd_gauss_seidel' "$dir/config.ini" || fail "config.ini not replaced"
    # A scene file may hold sections for solvers the run does not use.
    printf '[scene]\nname = withxpbd\nsteps = 2\n[xpbd]\nsubsteps = 3\n' >"$tmp/x.ini"
    run_ok file --scene "$tmp/x.ini" --solvers newton_euler --no-plot --out "$tmp/out" &&
        ok "a scene file's [xpbd] section is allowed in a run without xpbd"
    ;;

builtin_files)
    "$list" --tsv >"$tmp/list.txt" || { fail "list failed"; exit 1; }
    scenes=$(awk -F '\t' '$1 == "scene" && $5 == "" { print $2 }' "$tmp/list.txt")
    energies=$(awk -F '\t' '$1 == "energy" && $5 == "" { print $2 }' "$tmp/list.txt")
    [ -n "$scenes" ] || fail "list printed no scenes"
    for s in $scenes; do
        file="$repo/experiments/scenes/$s.ini"
        if [ ! -f "$file" ]; then
            fail "$s: no shipped file $file"
            continue
        fi
        # Energies the scene names that this build does not register (a scene may ship
        # ahead of its energy): then both versions must be refused with the same message.
        missing=""
        for e in $(grep -E '^[[:space:]]*(membrane|bending|volume|fiber)[[:space:]]*=' "$file" |
            sed 's/^[^=]*=[[:space:]]*//; s/[[:space:];].*//'); do
            [ "$e" = none ] && continue
            printf '%s\n' "$energies" | grep -qx -e "$e" || missing="$missing $e"
        done
        if [ -n "$missing" ]; then
            "$compare" --scene "$s" --steps 3 --no-plot --out "$tmp/builtin" \
                >/dev/null 2>"$tmp/b.err"
            rb=$?
            "$compare" --scene "$file" --steps 3 --no-plot --out "$tmp/file" \
                >/dev/null 2>"$tmp/f.err"
            rf=$?
            sed "s|<builtin:$s>|SCENE|" "$tmp/b.err" >"$tmp/b.txt"
            sed "s|$file|SCENE|" "$tmp/f.err" >"$tmp/f.txt"
            if [ "$rb" -ne 0 ] && [ "$rf" -ne 0 ] && cmp -s "$tmp/b.txt" "$tmp/f.txt" &&
                grep -q "unknown energy" "$tmp/b.txt"; then
                echo "skip: $case_name: $s needs energy$missing, not registered in this build;" \
                    "built-in and file are refused alike: $(cat "$tmp/b.txt")"
            else
                fail "$s (needs$missing): built-in (exit $rb) and file (exit $rf) not refused alike"
                sed 's/^/    builtin: /' "$tmp/b.err"
                sed 's/^/    file:    /' "$tmp/f.err"
            fi
            continue
        fi
        run_ok "$s-builtin" --scene "$s" --steps 3 --no-plot --out "$tmp/builtin" || continue
        run_ok "$s-file" --scene "$file" --steps 3 --no-plot --out "$tmp/file" || continue
        compare_logs "$tmp/builtin/$s" "$tmp/file/$s"
    done
    ;;

readme_keys)
    # Every scene key a plug-in's settings table declares (./weft list --tsv's setting
    # rows of the plug-ins, not the model's own keys) is documented in docs/scenes.md's
    # scene-key table, in its section's row.
    "$list" --tsv >"$tmp/list.txt" 2>"$tmp/list.err" || fail "list exited non-zero"
    readme="$repo/docs/scenes.md"
    n=0
    for sk in $(awk -F '\t' 'NR > 1 && $1 != "key" && $5 != "" { print $4 "." $5 }' \
            "$tmp/list.txt" | sort -u); do
        section=${sk%.*} # keys have no dot; a section may ([collider.NAME]: a shape's keys)
        key=${sk##*.}
        n=$((n + 1))
        row=$(grep -F -e "| \`[$section]\`" "$readme" | head -n 1)
        if [ -z "$row" ]; then
            fail "docs/scenes.md has no row for [$section] (setting $sk)"
        else
            case $row in
            *"\`$key\`"*) ;;
            *) fail "docs/scenes.md's [$section] row does not document \`$key\` (setting $sk)" ;;
            esac
        fi
    done
    [ "$n" -gt 20 ] || fail "list printed only $n setting keys"
    ok "$n setting keys documented in docs/scenes.md"
    ;;
list_output)
    "$list" --tsv >"$tmp/list.txt" 2>"$tmp/list.err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "list exited with $rc"
    for want in solver:pbd_gauss_seidel solver:pbd_jacobi solver:symplectic_euler \
        energy:mass_spring energy:dihedral_bending scene:hanging_cloth scene:drape_sphere \
        scene:balloon scene:tet_beam scene:cloth_on_cloth scene:twisting_cloth \
        scene:fast_drop_through_thin_sheet; do
        kind=${want%%:*}
        name=${want#*:}
        line=$(awk -F '\t' -v k="$kind" -v n="$name" \
            '$1 == k && $2 == n && $5 == "" { print NF "|" $3 "|" $10; exit }' "$tmp/list.txt")
        case $line in
        "") fail "no '$kind<TAB>$name' row" ;;
        10\|\|*) [ "$kind" = scene ] && ok "$kind $name: ${line#10||}" ||
            fail "$kind $name: empty paper field" ;;
        10\|*) ok "$kind $name: ${line#10|}" ;;
        *) fail "$kind $name: ${line%%|*} tab-separated fields, expected 10" ;;
        esac
    done
    ;;

tet_scene)
    # A 0.4 m x 0.1 m x 0.1 m block of 4 x 1 x 1 cells (5 x 2 x 2 vertices) clamped at
    # x = 0 by a box pin, springs on its surface edges, no volume energy, above the
    # ground; no --solvers, so the scene's own list picks symplectic_euler.
    f="$tmp/tet.ini"
    cat >"$f" <<'EOF'
[scene]
name = tet
dt = 0.001
steps = 7
solvers = symplectic_euler
[mesh]
type = tet_block
size = 0.4 0.1 0.1
cells = 4 1 1
origin = 0 0.5 0
[material]
membrane = mass_spring
volume = none
stretch_stiffness = 1000
[pins]
box = -0.001 0 -1 0.001 1 1
[collider.ground]
type = plane
EOF
    run_ok tet --scene "$f" --no-plot --out "$tmp/out" || exit 1
    dir="$tmp/out/tet"
    log="$dir/symplectic_euler.log"
    [ -f "$log" ] || { fail "no $log"; ls "$dir" | sed 's/^/    /'; exit 1; }
    others=$(ls "$dir" | grep -v '^symplectic_euler' | grep -v '^summary.tsv$' |
        grep -v '^config.ini$')
    [ -z "$others" ] || fail "solvers the scene does not name ran: $others"
    [ "$(tail -n 1 "$log")" = "# status=complete" ] || fail "log is not complete"
    grep -qE '^#.* iterations=1( |$)' "$log" || fail "metadata does not say iterations=1"
    # 5 x 2 x 2 vertices, 6 tetrahedra per cell, 4 (4 + 1 + 4) surface triangles.
    grep -qE '^# vertices=20 .* triangles=36  tetrahedra=24$' "$log" ||
        fail "metadata does not give 20 vertices, 36 triangles, 24 tetrahedra"
    rows=$(grep -vc '^#' "$log")
    [ "$rows" -eq 14 ] || fail "$rows data rows, expected 7 steps x iterations 0, 1 = 14"
    bad=$(awk '!/^#/ { if ($2 != (k % 2) || $1 != int(k / 2)) { print NR; exit } k++ }' "$log")
    [ -z "$bad" ] || fail "unexpected step/iter at line $bad"
    [ "$(nonfinite_rows "$log")" -eq 0 ] || fail "nan or inf in data rows"
    # The closed surface encloses the block: 0.4 m x 0.1 m x 0.1 m = 0.004 m^3 at step 0.
    vol=$(awk '!/^#/ { print $9; exit }' "$log")
    awk -v v="$vol" 'BEGIN { exit !(v > 0.0039999999 && v < 0.0040000001) }' ||
        fail "volume column at step 0 is $vol, expected 0.004"
    awk -F '\t' 'NR == 2 && $1 == "symplectic_euler" && $2 == 1 { ok = 1 } END { exit !ok }' \
        "$dir/summary.tsv" || fail "summary.tsv lacks 'symplectic_euler<TAB>1'"
    grep -q '^symplectic_euler  *1 ' "$tmp/tet.out" || fail "table does not show 1 iteration"
    ok "tet_block scene ran with symplectic_euler: $rows rows"

    # The explicit solver runs only when named: not by default on a cloth scene.
    run_ok cloth --scene hanging_cloth --steps 2 --no-plot --out "$tmp/cloth" || exit 1
    [ -f "$tmp/cloth/hanging_cloth/symplectic_euler.log" ] &&
        fail "symplectic_euler ran on hanging_cloth without being named"
    [ -f "$tmp/cloth/hanging_cloth/pbd_jacobi.log" ] || fail "default solvers did not run"
    ;;

collision_scenes_clean)
    # The Collisions issue's acceptance: with the full Bridson pipeline, every step of the
    # twisting and fast-drop scenes ends intersection-free, for both PBD solvers. The
    # pipeline counts intersecting triangle pairs after every step (count_intersections,
    # an exact triangle-triangle test) into column 12 (`remaining`) of <log>.collisions.
    # fast_drop runs in full (60 steps); twisting_cloth runs its full 2.5 turns (300
    # steps) on a 12 x 12 grid so the case stays fast under the sanitizers.
    for spec in "fast_drop_through_thin_sheet 60" "twisting_cloth 300 --set mesh.nx=12 --set mesh.ny=12"; do
        set -- $spec
        s=$1
        want=$2
        shift 2
        run_ok "$s" --scene "$s" --solvers pbd_gauss_seidel,pbd_jacobi --no-plot --log steps \
            --out "$tmp/out" --set collision.count_intersections=true "$@" || continue
        for solver in pbd_gauss_seidel pbd_jacobi; do
            clog="$tmp/out/$s/$solver.log.collisions"
            if [ ! -f "$clog" ]; then
                fail "$s: no $solver.log.collisions"
                continue
            fi
            [ "$(tail -n 1 "$clog")" = "# status=complete" ] || fail "$s/$solver: collision log not complete"
            grep -q '^# step .* unresolved remaining ms$' "$clog" ||
                fail "$s/$solver: collision log columns changed (expected ... unresolved remaining ms)"
            summary=$(grep -v '^#' "$clog" | awk '{ n++; if ($12 != 0) bad++; if ($11 != 0) un++; hits += $5 }
                END { print n + 0, bad + 0, un + 0, hits + 0 }')
            set -- $summary
            [ "$1" -eq "$want" ] || fail "$s/$solver: $1 steps logged, expected $want"
            [ "$2" -eq 0 ] || fail "$s/$solver: $2 steps ended with intersecting triangles"
            [ "$3" -eq 0 ] || fail "$s/$solver: $3 steps ended unresolved"
            [ "$4" -gt 0 ] || fail "$s/$solver: no CCD hits: the scene did not test the CCD"
            ok "$s/$solver: $1 steps, 0 intersecting, 0 unresolved, $4 CCD hits"
        done
    done
    # Tunnelling leaves no intersection at the ends of the steps, so also check where the
    # fast cloth ends: without the pipeline it passes the sheet (at y ≈ 0.9 m) within one
    # step and lands on the ground (mean y ≈ 0); with it, it is caught by the sheet.
    for cfg in bridson none; do
        run_ok "drop_$cfg" --scene fast_drop_through_thin_sheet --solvers pbd_gauss_seidel \
            --steps 10 --no-plot --log none --obj-every 10 --out "$tmp/drop_$cfg" \
            --set collision.pipeline=$cfg || continue
        obj=$(ls "$tmp/drop_$cfg"/fast_drop_through_thin_sheet/*.obj 2>/dev/null | tail -n 1)
        [ -n "$obj" ] || { fail "drop_$cfg: no OBJ frame"; continue; }
        # Vertices 1024.. are the small cloth (the 32 x 32 sheet comes first).
        y=$(awk '/^v / { n++; if (n > 1024) { s += $3; c++ } } END { printf "%.3f", s / c }' "$obj")
        case $cfg in
        bridson) awk -v y="$y" 'BEGIN { exit !(y > 0.3) }' ||
            fail "with the pipeline the fast cloth ends at mean y = $y m: it passed the sheet" ;;
        none) awk -v y="$y" 'BEGIN { exit !(y < 0.1) }' ||
            fail "without the pipeline the fast cloth ends at mean y = $y m (expected on the ground: the case would be vacuous)" ;;
        esac
        ok "fast cloth after 10 steps, pipeline $cfg: mean y = $y m"
    done
    ;;
collision_scenes)
    # Each scene with its vertex and triangle counts: the parts add up (24² + 20² and
    # 32² + 8² vertices, 2 (n - 1)² triangles per n x n grid).
    for want in "cloth_on_cloth 976 1780" "twisting_cloth 1024 1922" \
        "fast_drop_through_thin_sheet 1088 2020"; do
        set -- $want
        s=$1
        run_ok "$s" --scene "$s" --steps 4 --no-plot --out "$tmp/out" || continue
        for solver in pbd_gauss_seidel pbd_jacobi; do
            log="$tmp/out/$s/$solver.log"
            if [ ! -f "$log" ]; then
                fail "$s: no $solver.log"
                continue
            fi
            [ "$(tail -n 1 "$log")" = "# status=complete" ] || fail "$s/$solver: log not complete"
            grep -qE "^# vertices=$2 .* triangles=$3\$" "$log" ||
                fail "$s/$solver: metadata does not say vertices=$2 ... triangles=$3"
            rows=$(grep -vc '^#' "$log")
            [ "$rows" -eq 44 ] || fail "$s/$solver: $rows data rows, expected 4 x 11"
            [ "$(nonfinite_rows "$log")" -eq 0 ] || fail "$s/$solver: nan or inf in data rows"
        done
        ok "$s ran 4 steps with the default solvers"
    done
    ;;

bench_implicit)
    # The linear-solver benchmark at tiny sizes: a complete table (20 columns; per size the
    # fixed assembly, CHOLMOD and newton rows and a 1e-6 and a 1e-8 PPCG row for every
    # preconditioner `list` names as registered), no .partial left, PPCG at 1e-8 agreeing
    # with CHOLMOD, set-up / first-solve / ratio / memory figures on every PPCG row, and
    # bad --sizes refused. No timing is asserted.
    bench="$(dirname "$compare")/bench_implicit"
    "$bench" --sizes 8,12 --steps 3 --threads 2 --no-plot --out "$tmp/out" >"$tmp/bench.out" 2>"$tmp/bench.err"
    rc=$?
    [ "$rc" -eq 0 ] || { fail "bench_implicit exited with $rc"; sed 's/^/    stderr: /' "$tmp/bench.err"; }
    tsv="$tmp/out/bench_implicit.tsv"
    if [ ! -f "$tsv" ]; then
        fail "no $tsv"
        exit 1
    fi
    [ -f "$tsv.partial" ] && fail "$tsv.partial left after a complete run"
    bad=$(awk -F '\t' '!/^#/ && NF != 20 { print NR; exit }' "$tsv")
    [ -z "$bad" ] || fail "line $bad of the table does not have 20 columns"
    # The registered preconditioners, as `list` prints them.
    pcs=$("$list" --tsv | awk -F '\t' '$1 == "preconditioner" && $5 == "" { print $2 }')
    [ -n "$pcs" ] || fail "list names no preconditioner"
    echo "$pcs" | grep -qx boomeramg || fail "boomeramg is not a registered preconditioner"
    pc_rows=$(for p in $pcs; do printf 'ppcg_%s@2@1e-06\nppcg_%s@2@1e-08\n' "$p" "$p"; done)
    for res in 8 12; do
        got=$(awk -F '\t' -v r=$res '$1 == r { print $5 "@" $6 "@" $7 }' "$tsv" | LC_ALL=C sort | tr '\n' ' ')
        fixed="assembly@1@- assembly@2@- cholmod_analyse@1@- cholmod_factor@1@- cholmod_factor_solve@1@- cholmod_filter@1@- cholmod_solve@1@- newton_assemble@2@- newton_clamp_assemble@2@- newton_clamp_factor_solve@2@- newton_clamp_filter@2@- newton_clamp_iteration@2@- newton_clamp_line_search@2@- newton_clamp_linear@2@- newton_exact_assemble@2@- newton_exact_factor_solve@2@- newton_exact_filter@2@- newton_exact_iteration@2@- newton_exact_line_search@2@- newton_exact_linear@2@- newton_factor_solve@2@- newton_filter@2@- newton_iteration@2@- newton_line_search@2@- newton_linear@2@-"
        want=$(printf '%s\n%s\n' "$(echo $fixed | tr ' ' '\n')" "$pc_rows" | LC_ALL=C sort | tr '\n' ' ')
        [ "$got" = "$want" ] || fail "size $res: rows '$got'"
        verts=$(awk -F '\t' -v r=$res '$1 == r { print $2; exit }' "$tsv")
        [ "$verts" = $((res * res)) ] || fail "size $res: $verts vertices, expected $((res * res))"
    done
    # Every PPCG solve converged and, at 1e-8, is within 1e-4 of CHOLMOD's solution;
    # every time is a positive finite number.
    awk -F '\t' '$5 ~ /^ppcg/ && ($13 != "converged" || ($7 == "1e-08" && !($12 <= 1e-4))) { exit 1 }' \
        "$tsv" || fail "a PPCG row did not converge or disagrees with CHOLMOD"
    awk -F '\t' '!/^#/ && $1 != "res" && !($9 > 0) { exit 1 }' "$tsv" ||
        fail "a time that is not positive"
    # Every PPCG row: a set-up time >= 0, a positive first solve (its CPU time >= 0) and ratio to CHOLMOD, and
    # a memory figure >= 0 (no order between times: they are separate measurements).
    # Every PPCG row also: at least 3 timed solves after the first (--repeats' default) and
    # a per-system ratio to CHOLMOD's factorise + solve that is cpu_ms over that row's, to
    # the table's 4 decimals (half a unit of the last, plus 1e-3 of the ratio for the times').
    awk -F '\t' '$5 ~ /^ppcg/ && !($14 >= 0 && $15 > 0 && $16 >= 0 && $17 > 0 && $18 >= 0) { print; exit 1 }' \
        "$tsv" || fail "a PPCG row without its set-up, first-solve, ratio or memory figure"
    awk -F '\t' '$5 == "cholmod_factor_solve" { fs[$1] = $10 }
        $5 ~ /^ppcg/ && !($11 >= 3 && $19 > 0 &&
                          ($19 - $10 / fs[$1]) ^ 2 <= (5e-5 + 1e-3 * $19) ^ 2) { print; exit 1 }' \
        "$tsv" || fail "a PPCG row with fewer than 3 repeats or a system_ratio that is not cpu_ms / CHOLMOD's"
    # The first solve is timed apart from the per-matrix ones, on at least 3 fresh solvers.
    awk -F '\t' '$5 ~ /^ppcg/ && !($20 >= 3) { print; exit 1 }' "$tsv" ||
        fail "a PPCG row whose first solve was timed fewer than 3 times"
    [ "$(nonfinite_rows "$tsv")" -eq 0 ] || fail "nan or inf in the table"
    grep -q '^PPCG (1e-8) and CHOLMOD agree within' "$tmp/bench.out" || fail "no agreement line"
    grep -qE '^PPCG (overtakes|does not overtake) CHOLMOD' "$tmp/bench.out" || fail "no overtake line"
    ok "bench_implicit table complete: $(grep -vc '^#' "$tsv") lines"
    "$bench" --sizes 8,x --out "$tmp/bad" >/dev/null 2>"$tmp/bad.err"
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q -e '--sizes' "$tmp/bad.err"; then
        ok "--sizes 8,x refused"
    else
        fail "--sizes 8,x: exit $rc, stderr: $(cat "$tmp/bad.err")"
    fi
    ;;

help)
    "$compare" --help >"$tmp/help.txt" 2>"$tmp/help.err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "compare --help exited with $rc"
    for opt in --scene --solvers --iterations --steps --set --log --out --animate --time-budget; do
        if grep -qF -e "$opt" "$tmp/help.txt"; then
            ok "help mentions $opt"
        else
            fail "help does not mention $opt"
        fi
    done
    ;;

plots)
    if ! command -v gnuplot >/dev/null 2>&1; then
        echo "SKIP: $case_name: gnuplot is not installed (Debian package 'gnuplot-nox')"
        exit 77
    fi
    run_ok plot --scene hanging_cloth --steps 6 --plot-step 3 --out "$tmp/out" || exit 1
    # "  (a) PATH" lines after "figures:".
    pngs=$(awk '/^figures:/ { f = 1; next } f && $1 ~ /^\([a-z]\)$/ { print $2 }' "$tmp/plot.out")
    count=0
    for p in $pngs; do
        count=$((count + 1))
        if [ ! -f "$p" ]; then
            fail "$p named in the output but missing"
            continue
        fi
        sig=$(head -c 8 "$p" | od -An -tx1 | tr -s ' \n' ' ')
        size=$(wc -c <"$p")
        if [ "$sig" != " 89 50 4e 47 0d 0a 1a 0a " ]; then
            fail "${p##*/} is not a PNG (signature '$sig')"
        elif [ "$size" -le 5120 ]; then
            fail "${p##*/} is only $size bytes"
        else
            ok "${p##*/}: PNG, $size bytes"
        fi
    done
    [ "$count" -eq 3 ] || fail "output names $count figures, expected 3"
    ;;

animate)
    # The GIF and the output line naming it come from gnuplot.
    if ! command -v gnuplot >/dev/null 2>&1; then
        echo "SKIP: $case_name: gnuplot is not installed (Debian package 'gnuplot-nox')"
        exit 77
    fi
    # 12 steps: a frame every step (at most 41 frames), frame 0 the start; the 32 x 32
    # grid is 32 rows + 32 columns = 64 index blocks per frame.
    run_ok anim --scene hanging_cloth --steps 12 --solvers pbd_gauss_seidel,newton_euler \
        --animate --out "$tmp/out" || exit 1
    d="$tmp/out/hanging_cloth"
    for s in pbd_gauss_seidel newton_euler; do
        f="$d/${s}_frames.dat"
        if [ ! -f "$f" ] || [ -e "$f.partial" ]; then
            fail "$s: frames file missing or left .partial"
            continue
        fi
        # Index blocks: a data line after a double blank line (or the header) starts one.
        blocks=$(awk '/^#/ { next } NF == 0 { blank++; next }
                      { if (blank >= 2 || first == 0) n++; blank = 0; first = 1 }
                      END { print n + 0 }' "$f")
        [ "$blocks" -eq $((13 * 64)) ] && ok "$s: 13 frames of 64 polylines" ||
            fail "$s: $blocks index blocks, expected $((13 * 64))"
    done
    # Frame 0 is the same start for both solvers; the last frames differ (they moved).
    first() { awk '/^#/ { next } NF == 3 { c++; if (c <= 32 * 64) print }' "$1"; }
    last() { awk '/^#/ { next } NF == 3 { print }' "$1" | tail -n 64; }
    if [ "$(first "$d/pbd_gauss_seidel_frames.dat")" = "$(first "$d/newton_euler_frames.dat")" ]; then
        ok "frame 0 is the scene's start for both solvers"
    else
        fail "frame 0 differs between the solvers"
    fi
    [ "$(last "$d/pbd_gauss_seidel_frames.dat")" != "$(last "$d/newton_euler_frames.dat")" ] ||
        fail "the last frames are identical: nothing moved"
    grep -q '(d) .*animation.gif (13 frames, every 1 steps)' "$tmp/anim.out" ||
        fail "output does not name the GIF with 13 frames: $(grep '(d)' "$tmp/anim.out")"
    sig=$(head -c 6 "$d/animation.gif" 2>/dev/null)
    [ "$sig" = "GIF89a" ] && ok "animation.gif is a GIF" || fail "animation.gif: signature '$sig'"
    ;;

time_budget)
    run_ok budget --scene hanging_cloth --steps 4 --solvers pbd_gauss_seidel,implicit_euler \
        --time-budget 5 --no-plot --out "$tmp/out" || exit 1
    # The fitted count ("... -> N iterations", possibly followed by "(the budget is below
    # one iteration)" on a slow machine), or, when the machine's noise made the longer run
    # no slower ("... not spent per iteration; keeps N"), the kept count: the timing is
    # not asserted, only that the table and the log use what compare printed.
    its=$(awk '$1 == "time" && $3 == "pbd_gauss_seidel" && match($0, /(-> |keeps )[0-9]+/) {
                   n = substr($0, RSTART, RLENGTH); sub(/^[^0-9]*/, "", n); print n }' \
              "$tmp/budget.out")
    case $its in
    '' | *[!0-9]*) fail "no fitted iteration count for pbd_gauss_seidel in: $(cat "$tmp/budget.out")" ;;
    *)
        row=$(awk '$1 == "pbd_gauss_seidel" && $2 ~ /^[0-9]+$/ { print $2 }' "$tmp/budget.out")
        [ "$row" = "$its" ] && ok "table row has the fitted $its iterations" ||
            fail "table row says '$row' iterations, the fit $its"
        grep -q "^# \[solver\] iterations=$its " "$tmp/out/hanging_cloth/pbd_gauss_seidel.log" &&
            ok "log header records iterations=$its" ||
            fail "log header lacks [solver] iterations=$its"
        ;;
    esac
    grep -q 'time budget: implicit_euler' "$tmp/budget.out" &&
        fail "implicit_euler (one solve per step) was fitted"
    row=$(awk '$1 == "implicit_euler" && $2 ~ /^[0-9]+$/ { print $2 }' "$tmp/budget.out")
    [ "$row" = 1 ] || fail "implicit_euler row says '$row' iterations, expected 1"
    for bad in 0 -3 abc 1e99; do
        "$compare" --steps 1 --time-budget "$bad" --no-plot --out "$tmp/bad" >/dev/null 2>"$tmp/bad.err"
        rc=$?
        if [ "$rc" -eq 2 ] && grep -q -- "--time-budget: '$bad'" "$tmp/bad.err"; then
            ok "--time-budget $bad refused"
        else
            fail "--time-budget $bad: exit $rc, stderr: $(cat "$tmp/bad.err")"
        fi
    done
    ;;

*)
    echo "$usage" >&2
    echo "unknown case '$case_name'" >&2
    exit 2
    ;;
esac

exit "$failed"
