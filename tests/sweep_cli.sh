#!/bin/sh
# sweep_cli.sh CASE ACCURACY DAMPING STABILITY — end-to-end runs of the solver-comparison
# studies (experiments/accuracy.c, damping.c, stability.c) on tiny grids.
# Each CASE is one CTest test (tests/CMakeLists.txt):
#   accuracy   complete summary.tsv (header, one row per solver x iterations x dt, finite
#              errors); the reference solver at the reference's own settings has error 0
#              and a coarser run does not; the reference is cached and a rerun reuses it
#              with identical errors
#   damping    PBD with k_damping = 0 on swinging_cloth: complete per-solver tables, one
#              row per step plus the initial state with ratio 1, finite ratios, the terms'
#              energies adding up to elastic_J, a summary row per solver with finite
#              ratios at 1 s and 2 s
#   stability  symplectic_euler is unstable at the largest dt and stiffness and stable at
#              the smallest; PBD is stable at the smallest dt; without --exhaustive a dt
#              below a stable one is marked assumed instead of run
#   bad_input  unknown solver, bad list value, dt not dividing the duration: one-line
#              error naming it, exit status 2, no summary
#   help       -h of each names its options and output columns
#   defaults   --list-solvers: with no --solvers every study runs every registered solver
#              that can run its scene (vbd, projective_dynamics, xpbd among them;
#              stability the explicit ones too), and none that refuses the model (PBD
#              on tetrahedra; with [contact] model = ipc, all but the Newton solvers and vbd)
# Prints "ok: ..." / "FAIL: ..." lines; exits 1 on any failure. POSIX sh (dash); all
# files live under a private mktemp -d.
set -u

usage="usage: sweep_cli.sh CASE ACCURACY DAMPING STABILITY"
case_name=${1:?$usage}
accuracy=${2:?$usage}
damping=${3:?$usage}
stability=${4:?$usage}

. "$(dirname "$0")/lib.sh"
weft_tmpdir sweep-$case_name


# run_ok NAME PROGRAM ARGS...: the program must exit 0; stdout/stderr kept in $tmp.
run_ok() {
    rname=$1
    shift
    "$@" >"$tmp/$rname.out" 2>"$tmp/$rname.err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "$* exited with $rc"
        sed 's/^/    stderr: /' "$tmp/$rname.err"
        return 1
    fi
    return 0
}

# header FILE: the first line of FILE that does not start with '#', tabs as spaces.
header() {
    awk '!/^#/ { print; exit }' "$1" | tr '\t' ' '
}

# no_partials DIR: no ".partial" file is left under DIR.
no_partials() {
    left=$(find "$1" -name '*.partial')
    [ -z "$left" ] || fail "partial files left after a complete run: $left"
}

tiny="--set mesh.nx=6 --set mesh.ny=6"

case $case_name in

accuracy)
    out="$tmp/out"
    # The reference is pbd_gauss_seidel itself at dt = 1/240 s, 50 iterations: the
    # (1/240, 50) run repeats it exactly.
    set -- --solvers pbd_gauss_seidel,pbd_jacobi --dts 1/30,1/240 --iteration-counts 2,50 \
        --duration 0.5 --reference pbd_gauss_seidel --reference-dt 1/240 \
        --reference-iterations 50 --reference-tolerance 0 $tiny --no-plot --out "$out"
    run_ok run1 "$accuracy" "$@" || exit 1
    s="$out/accuracy/summary.tsv"
    [ -f "$s" ] || { fail "no $s"; exit 1; }
    h=$(header "$s")
    want='solver dt_s steps iterations wall_s ms_per_step error_rms_m error_max_m status'
    [ "$h" = "$want" ] || fail "summary header is '$h'"
    rows=$(awk -F '\t' '!/^#/ && $1 != "solver"' "$s" | wc -l)
    [ "$rows" -eq 8 ] || fail "$rows rows, expected 2 solvers x 2 counts x 2 dts = 8"
    bad=$(awk -F '\t' '!/^#/ && $1 != "solver" && (NF != 9 || $9 != "ok" || $7 !~ /^[0-9.e+-]+$/ ||
                       $8 !~ /^[0-9.e+-]+$/ || $7 < 0 || $8 < $7)' "$s")
    [ -z "$bad" ] || fail "rows that are not ok with finite errors (rms <= max): $bad"
    self=$(awk -F '\t' '$1 == "pbd_gauss_seidel" && $3 == 120 && $4 == 50 { print $7 + 0 }' "$s")
    [ "$self" = "0" ] && ok "the reference's own settings give error 0" ||
        fail "pbd_gauss_seidel at dt 1/240, 50 iterations: error '$self', expected 0"
    coarse=$(awk -F '\t' '$1 == "pbd_gauss_seidel" && $3 == 15 && $4 == 2 { print ($7 > 1e-6) }' "$s")
    [ "$coarse" = "1" ] && ok "dt 1/30, 2 iterations differs from the reference" ||
        fail "dt 1/30, 2 iterations: error not above 1e-6"
    ls "$out"/accuracy/reference-hanging_cloth-*.pos >/dev/null 2>&1 || fail "no cached reference"
    grep -q 'reference: ran' "$tmp/run1.out" || fail "first run did not say it ran the reference"
    no_partials "$out"
    cp "$s" "$tmp/first.tsv"
    run_ok run2 "$accuracy" "$@" || exit 1
    grep -q 'reference: cached' "$tmp/run2.out" && ok "rerun reuses the cached reference" ||
        fail "rerun did not use the cached reference"
    awk -F '\t' '!/^#/ { print $1, $2, $4, $7, $8 }' "$tmp/first.tsv" >"$tmp/a.txt"
    awk -F '\t' '!/^#/ { print $1, $2, $4, $7, $8 }' "$s" >"$tmp/b.txt"
    cmp -s "$tmp/a.txt" "$tmp/b.txt" && ok "identical errors on rerun" ||
        fail "errors differ between the run and its rerun"
    # Another duration is another reference.
    run_ok run3 "$accuracy" --solvers pbd_gauss_seidel --dts 1/30 --iteration-counts 2 \
        --duration 1 --reference pbd_gauss_seidel --reference-dt 1/240 \
        --reference-iterations 50 --reference-tolerance 0 $tiny --no-plot --out "$out" || exit 1
    grep -q 'reference: ran' "$tmp/run3.out" || fail "a new duration reused the old reference"
    ;;

damping)
    out="$tmp/out"
    steps=125
    run_ok run "$damping" --solvers pbd_gauss_seidel,pbd_jacobi $tiny --steps $steps --no-plot \
        --out "$out" || exit 1
    dir="$out/damping"
    for sv in pbd_gauss_seidel pbd_jacobi; do
        f="$dir/$sv.tsv"
        [ -f "$f" ] || { fail "no $f"; continue; }
        grep -q 'scene=swinging_cloth' "$f" || fail "$sv.tsv does not name swinging_cloth"
        h=$(header "$f")
        [ "$h" = "step t_s kinetic_J gravity_J elastic_J total_J ratio ratio_mech mass_spring_J dihedral_bending_J cmax crms" ] ||
            fail "$sv.tsv header is '$h'"
        # the terms' energies add up to elastic_J (to the 10 digits written), and the strain
        # is a fraction in [0, 1) with cmax >= crms
        split=$(awk -F '\t' '!/^#/ && $1 != "step" {
                    d = $5 - $9 - $10; if (d < 0) d = -d
                    if (d > 1e-8 * ($5 > 1e-6 ? $5 : 1e-6) || $11 < $12 || $11 >= 1) print $1 }' "$f")
        [ -z "$split" ] || fail "$sv.tsv: terms do not add up to elastic_J, or bad strain, at steps $split"
        peak=$(awk -F '\t' '!/^#/ && $1 != "step" && $9 > m { m = $9 } END { print m + 0 }' "$f")
        awk -v p="$peak" 'BEGIN { exit !(p > 0) }' || fail "$sv.tsv: mass_spring_J never above 0"
        rows=$(awk -F '\t' '!/^#/ && $1 != "step"' "$f" | wc -l)
        [ "$rows" -eq $((steps + 1)) ] || fail "$sv.tsv: $rows rows, expected $((steps + 1))"
        first=$(awk -F '\t' '!/^#/ && $1 == "0" { print $7 + 0; exit }' "$f")
        [ "$first" = "1" ] || fail "$sv.tsv: ratio at step 0 is '$first', expected 1"
        [ "$(grep -v '^#' "$f" | grep -ciE 'nan|inf')" -eq 0 ] || fail "$sv.tsv holds nan or inf"
        ok "$sv.tsv: $rows rows from ratio 1"
    done
    s="$dir/summary.tsv"
    [ -f "$s" ] || { fail "no $s"; exit 1; }
    h=$(header "$s")
    want='solver dt_s steps ms_per_step ratio_1s ratio_2s ratio_end ratio_min ratio_max mech_1s mech_2s mech_end status'
    [ "$h" = "$want" ] || fail "summary header is '$h'"
    bad=$(awk -F '\t' '!/^#/ && $1 != "solver" && (NF != 13 || $13 != "ok" || $5 !~ /^-?[0-9.]+$/ ||
                       $6 !~ /^-?[0-9.]+$/ || $11 !~ /^-?[0-9.]+$/)' "$s")
    [ -z "$bad" ] || fail "rows without finite ratios at 1 s and 2 s: $bad"
    [ "$(awk -F '\t' '!/^#/ && $1 != "solver"' "$s" | wc -l)" -eq 2 ] || fail "expected 2 rows"
    no_partials "$out"
    ;;

stability)
    out="$tmp/out"
    run_ok run "$stability" --solvers symplectic_euler,pbd_gauss_seidel --stiffnesses 1e2,1e6 \
        --dts 1/2000,1/10 --max-steps 100 --exhaustive $tiny --no-plot --out "$out" || exit 1
    s="$out/stability/summary.tsv"
    [ -f "$s" ] || { fail "no $s"; exit 1; }
    h=$(header "$s")
    want='solver stiffness_N_per_m dt_s steps steps_done status max_strain max_kinetic_ratio ms_per_step'
    [ "$h" = "$want" ] || fail "summary header is '$h'"
    [ "$(awk -F '\t' '!/^#/ && $1 != "solver"' "$s" | wc -l)" -eq 8 ] ||
        fail "expected 2 solvers x 2 stiffnesses x 2 dts = 8 rows"
    st() { awk -F '\t' -v s="$1" -v k="$2" -v d="$3" '$1 == s && $2 == k && $3 + 0 == d + 0 { print $6 }' "$s"; }
    a=$(st symplectic_euler 1e6 0.1)
    b=$(st symplectic_euler 1e2 0.0005)
    c=$(st pbd_gauss_seidel 1e2 0.0005)
    [ -n "$a" ] && [ "$a" != stable ] && ok "symplectic_euler at 1e6 N/m, dt 0.1 s: $a" ||
        fail "symplectic_euler at 1e6 N/m, dt 0.1 s: '$a', expected unstable"
    [ "$b" = stable ] && ok "symplectic_euler at 1e2 N/m, dt 1/2000 s: stable" ||
        fail "symplectic_euler at 1e2 N/m, dt 1/2000 s: '$b', expected stable"
    [ "$c" = stable ] && ok "pbd_gauss_seidel at dt 1/2000 s: stable" ||
        fail "pbd_gauss_seidel at 1e2 N/m, dt 1/2000 s: '$c', expected stable"
    no_partials "$out"
    # Without --exhaustive, a dt below a stable one is not run but marked assumed.
    run_ok pruned "$stability" --solvers symplectic_euler --stiffnesses 1e2 \
        --dts 1/4000,1/2000 --max-steps 100 $tiny --no-plot --out "$out/p" || exit 1
    s="$out/p/stability/summary.tsv"
    a=$(st symplectic_euler 1e2 0.0005)
    b=$(st symplectic_euler 1e2 0.00025)
    [ "$a" = stable ] && [ "$b" = assumed ] && ok "below a stable dt: assumed, not run" ||
        fail "1/2000 s: '$a' (expected stable), 1/4000 s: '$b' (expected assumed)"
    ;;

bad_input)
    # expect_error NAME PATTERN PROGRAM ARGS...: exit 2, one-line error matching PATTERN.
    expect_error() {
        ename=$1 pat=$2 prog=$3
        shift 3
        "$prog" --out "$tmp/bad" --no-plot "$@" >"$tmp/$ename.out" 2>"$tmp/$ename.err"
        rc=$?
        if [ "$rc" -ne 2 ]; then
            fail "$ename: exit status $rc, expected 2"
        elif [ "$(wc -l <"$tmp/$ename.err")" -ne 1 ] || ! grep -q -e "$pat" "$tmp/$ename.err"; then
            fail "$ename: stderr is not one line matching '$pat':"
            sed 's/^/    /' "$tmp/$ename.err"
        else
            ok "$ename: $(cat "$tmp/$ename.err")"
        fi
    }
    expect_error acc_solver "unknown solver 'nosuch'" "$accuracy" --solvers pbd_jacobi,nosuch
    expect_error acc_ref "unknown solver 'nosuch'" "$accuracy" --solvers pbd_jacobi --reference nosuch
    expect_error acc_dt "does not divide" "$accuracy" --solvers pbd_jacobi --reference pbd_jacobi --dts 0.3
    expect_error acc_its "--iteration-counts" "$accuracy" --solvers pbd_jacobi --reference pbd_jacobi --iteration-counts 2,x
    expect_error damp_solver "unknown solver 'nosuch'" "$damping" --solvers nosuch
    expect_error damp_dt "--dt" "$damping" --solvers pbd_jacobi --dt -1
    expect_error stab_solver "unknown solver 'nosuch'" "$stability" --solvers nosuch
    expect_error stab_list "--stiffnesses" "$stability" --solvers pbd_jacobi --stiffnesses 1e3,0
    expect_error stab_missing "--dts: missing" "$stability" --dts
    [ -e "$tmp/bad" ] && [ -n "$(find "$tmp/bad" -name summary.tsv)" ] && fail "a summary was written"
    ;;

help)
    # check_help PROGRAM WORDS...: -h exits 0 and its text names every word.
    check_help() {
        prog=$1
        shift
        if ! "$prog" -h >"$tmp/help.txt" 2>&1; then
            fail "${prog##*/} -h failed"
            return
        fi
        for w in "$@"; do
            grep -q -- "$w" "$tmp/help.txt" || fail "${prog##*/} -h does not mention $w"
        done
        ok "${prog##*/} -h names $*"
    }
    check_help "$accuracy" --scene --solvers --dts --iteration-counts --duration --reference \
        --reference-dt --reference-iterations --reference-tolerance --set --out --no-plot \
        summary.tsv error_rms_m accuracy.png
    check_help "$damping" --scene --solvers --dt --steps --set --out --no-plot ratio_mech \
        summary.tsv energy.png
    check_help "$stability" --scene --solvers --stiffnesses --dts --duration --max-steps \
        --strain-limit --energy-factor --exhaustive --set --out --no-plot max_strain stability.png
    ;;

defaults)
    # list_has NAME PROGRAM ARGS... WORDS: "PROGRAM ARGS --list-solvers" exits 0 with one
    # line "solvers: a,b,..." that holds every solver in WORDS (space-separated) and none
    # of those in $absent.
    list_has() {
        lname=$1 words=$2
        shift 2
        run_ok "$lname" "$@" --list-solvers || return
        line=$(cat "$tmp/$lname.out")
        case $line in solvers:\ *) ;; *) fail "$lname: not 'solvers: ...': $line"; return ;; esac
        for w in $words; do
            printf '%s\n' "${line#solvers: }" | tr ',' '\n' | grep -qx "$w" ||
                fail "$lname: default solvers lack $w: $line"
        done
        for w in $absent; do
            printf '%s\n' "${line#solvers: }" | tr ',' '\n' | grep -qx "$w" &&
                fail "$lname: default solvers hold $w: $line"
        done
        ok "$lname: $line"
    }
    new="vbd projective_dynamics xpbd newton_euler pbd_gauss_seidel"
    absent=symplectic_euler
    list_has damping "$new" "$damping"
    list_has accuracy "$new" "$accuracy"
    absent=
    list_has stability "$new symplectic_euler" "$stability"
    # A solver that refuses the scene's model is left out: PBD has no tetrahedra.
    absent="pbd_gauss_seidel pbd_jacobi xpbd"
    list_has damping_tet "newton_euler vbd" "$damping" --scene tet_beam
    # A contact model is run only by the solvers that declare it (caps.contact_models):
    # with [contact] model = ipc every study lists newton_euler, bdf2_newton and vbd alone.
    ipc="--scene drape_sphere --set contact.model=ipc --set collider.ball.friction=0"
    ipc="$ipc --set collider.ground.friction=0"
    absent="pbd_gauss_seidel pbd_jacobi implicit_euler bdf2 xpbd projective_dynamics symplectic_euler"
    # shellcheck disable=SC2086  # $ipc is a list of options
    list_has damping_ipc "newton_euler bdf2_newton vbd" "$damping" $ipc
    # shellcheck disable=SC2086
    list_has accuracy_ipc "newton_euler bdf2_newton vbd" "$accuracy" $ipc
    # shellcheck disable=SC2086
    list_has stability_ipc "newton_euler bdf2_newton vbd" "$stability" $ipc
    ;;

*)
    echo "sweep_cli.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac

exit $failed
