#!/bin/sh
# same_model.sh COMPARE — a solver that runs another model than the scene's is marked
# everywhere and refused by --same-model: on hanging_cloth projective_dynamics runs
# quadratic_bending for the scene's dihedral_bending, so its row in compare's table is
# marked '*' with a footnote naming the replacement, summary.tsv's model column and its
# log header's "# model:" line say so, and newton_euler's say "same"; --same-model exits
# non-zero with one line naming the --set that makes the models agree, writing no result;
# with that --set applied the same run passes unmarked. On balloon the pressure ([pbd]
# k_pressure) is dropped by implicit_euler (refused, suggesting pbd.k_pressure=0) and run
# by xpbd and newton_euler (unmarked), as are PBD's self-collision constraints under xpbd.
# A contact model is refused rather than marked: vbd on a scene with [contact] model = ipc
# exits non-zero with one line naming the solvers that run it and contact.model=none.
# POSIX sh; files live in a private mktemp -d directory. Prints ok/FAIL per check.
set -u
compare=${1:?usage: same_model.sh PATH_TO_COMPARE}
. "$(dirname "$0")/lib.sh"
weft_tmpdir same-model
run="--scene hanging_cloth --solvers projective_dynamics,newton_euler --steps 2 --no-plot"

# shellcheck disable=SC2086
"$compare" $run --out "$tmp/a" >"$tmp/a.out" 2>"$tmp/a.err"
check "marked run exits 0" $?
d="$tmp/a/hanging_cloth"
grep -q '^projective_dynamics .*  \*$' "$tmp/a.out" && ! grep -q '^newton_euler .*\*$' "$tmp/a.out" &&
    grep -q '^\* projective_dynamics: model differs: bending dihedral_bending -> quadratic_bending' \
        "$tmp/a.out"
check "table marks projective_dynamics's row and names the replacement in a footnote" $?
grep -qx '# model: differs: bending dihedral_bending -> quadratic_bending' \
    "$d/projective_dynamics.log" && grep -qx '# model: same' "$d/newton_euler.log"
check "log headers say which model each solver ran" $?
awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "model") c = i; next }
    { m[$1] = $c } END { exit !(c && m["projective_dynamics"] ~ /^differs: bending dihedral_bending -> quadratic_bending$/ &&
                                m["newton_euler"] == "same") }' "$d/summary.tsv"
check "summary.tsv has the model column" $?

# shellcheck disable=SC2086
"$compare" $run --same-model --out "$tmp/b" >"$tmp/b.out" 2>"$tmp/b.err"
st=$?
[ "$st" -ne 0 ] && [ "$st" -lt 128 ] && [ "$(wc -l <"$tmp/b.err")" -eq 1 ] &&
    grep -q 'projective_dynamics' "$tmp/b.err" &&
    grep -qF -e '--set material.bending=quadratic_bending' "$tmp/b.err" &&
    [ ! -e "$tmp/b/hanging_cloth/summary.tsv" ]
check "--same-model refuses with one line naming --set material.bending=quadratic_bending" $?

fix=$(sed -n 's/.*--set \([^ ]*\) makes them agree$/\1/p' "$tmp/b.err")
# shellcheck disable=SC2086
"$compare" $run --same-model --set "$fix" --out "$tmp/c" >"$tmp/c.out" 2>"$tmp/c.err"
st=$?
d="$tmp/c/hanging_cloth"
[ "$st" -eq 0 ] && ! grep -q '\*' "$tmp/c.out" &&
    grep -qx '# model: same' "$d/projective_dynamics.log" &&
    grep -qx '# model: same' "$d/newton_euler.log" &&
    [ "$(awk -F '\t' 'NR > 1 && $NF != "same"' "$d/summary.tsv")" = "" ]
check "with the suggested --set ($fix) it runs unmarked" $?

"$compare" --scene balloon --solvers implicit_euler --same-model --no-plot --out "$tmp/d" \
    >/dev/null 2>"$tmp/d.err"
st=$?
[ "$st" -ne 0 ] && [ "$st" -lt 128 ] && grep -qF -e '--set pbd.k_pressure=0' "$tmp/d.err" &&
    grep -q 'pbd.k_pressure dropped' "$tmp/d.err"
check "balloon: implicit_euler drops the pressure, refused naming pbd.k_pressure=0" $?

"$compare" --scene balloon --solvers xpbd --same-model --steps 1 --no-plot --out "$tmp/e" \
    >/dev/null 2>&1 && grep -qx '# model: same' "$tmp/e/balloon/xpbd.log"
check "balloon: xpbd runs the pressure (same model)" $?

"$compare" --scene balloon --solvers newton_euler --same-model --steps 1 --no-plot \
    --out "$tmp/h" >/dev/null 2>&1 && grep -qx '# model: same' "$tmp/h/balloon/newton_euler.log"
check "balloon: newton_euler runs the pressure (same model)" $?

"$compare" --scene hanging_cloth --solvers xpbd --same-model --steps 1 --no-plot \
    --set pbd.self_collision=true --set material.bending=quadratic_bending --out "$tmp/f" \
    >/dev/null 2>&1 && grep -qx '# model: same' "$tmp/f/hanging_cloth/xpbd.log"
check "xpbd runs pbd.self_collision (same model)" $?

"$compare" --scene hanging_cloth --solvers pbd_gauss_seidel --same-model --no-plot \
    --out "$tmp/g" >/dev/null 2>"$tmp/g.err"
st=$?
[ "$st" -ne 0 ] && [ "$st" -lt 128 ] && grep -q 'no scene key changes' "$tmp/g.err"
check "PBD's own constraints: refused, no --set suggested" $?
"$compare" --scene drape_sphere --solvers xpbd --set contact.model=ipc --steps 1 --no-plot \
    --out "$tmp/i" >"$tmp/i.out" 2>"$tmp/i.err"
st=$?
[ "$st" -ne 0 ] && [ "$st" -lt 128 ] && [ "$(wc -l <"$tmp/i.err")" -eq 1 ] &&
    grep -q '^error: xpbd: \[contact\] model = ipc .*is run by newton_euler, bdf2_newton, vbd; set contact.model=none$' \
        "$tmp/i.err" && [ ! -e "$tmp/i/drape_sphere/xpbd.log" ]
check "contact model: xpbd refused with one line naming newton_euler, bdf2_newton, vbd" $?
exit $failed
