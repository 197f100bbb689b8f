#!/bin/sh
# list_cli.sh CASE LIST REPO — `./weft list` (experiments/list.c) for people and scripts.
# Each CASE is one CTest test (tests/CMakeLists.txt):
#   groups     the human listing has every group's heading, every solver of the registry
#              (solvers/registry.c's WEFT_SOLVERS lines) on a line of its own, every scene
#              key of the parser's table (lib/scene/scene.c's weft_scene_keys rows) under
#              its section, and no line longer than 120 characters
#   tsv        --tsv: the header row names ten columns, every row has ten, every solver
#              and every scene key of those tables has a row, every setting row a type
#   filter     a group word, a plug-in name and a scene-key section narrow the listing;
#              an unknown word is refused (exit 2) with the groups named; --help exits 0
#   docs       docs/settings.md is what `list --markdown` prints now (regenerate it with
#              ./weft list --markdown > docs/settings.md)
# Prints "ok: ..." / "FAIL: ..." lines; exits 1 on any failure. POSIX sh.
set -u

usage="usage: list_cli.sh CASE LIST REPO"
case_name=${1:?$usage}
list=${2:?$usage}
repo=${3:?$usage}

. "$(dirname "$0")/lib.sh"
weft_tmpdir list-$case_name

# The registered solvers, from the registry's own list (not from list's output).
solvers=$(sed -n 's/^ *X(\([a-z0-9_]*\)).*/\1/p' "$repo/solvers/registry.c")
# The scene keys, "section.key", from the rows of the parser's table (NUM("mesh", "width",
# ... or {"scene", "steps", WEFT_KEY_...).
awk '/^const weft_scene_key weft_scene_keys\[\]/ { on = 1; next }
     on && /^};/ { exit }
     on { if (match($0, /^ *([A-Z]+\(|\{)"[a-z_]+", "[a-z_]+"/)) {
              s = substr($0, RSTART, RLENGTH); gsub(/^ *([A-Z]+\(|\{)"/, "", s)
              gsub(/", "/, ".", s); gsub(/"$/, "", s); print s } }' \
    "$repo/lib/scene/scene.c" >"$tmp/keys.txt"
nkeys=$(wc -l <"$tmp/keys.txt")

case $case_name in
groups)
    "$list" >"$tmp/out.txt" 2>"$tmp/err.txt" || fail "list exited non-zero: $(cat "$tmp/err.txt")"
    for h in "SOLVERS:" "LINEAR SOLVERS:" "PRECONDITIONERS:" "POST-STEP STAGES:" "ENERGIES:" \
        "PBD CONSTRAINT TYPES:" "COLLIDER SHAPES:" "BUILT-IN SCENES:" "SCENE KEYS:"; do
        grep -q "^$h" "$tmp/out.txt" || fail "no heading '$h'"
    done
    n=0
    for s in $solvers; do
        n=$((n + 1))
        grep -q "^  $s " "$tmp/out.txt" || fail "solver $s has no line of its own"
    done
    [ "$n" -ge 8 ] || fail "read only $n solvers from solvers/registry.c"
    ok "$n solvers listed"
    # Each key on a line of its own ("      key" or "      key = default") after its
    # section's heading ("  [section]..." at two spaces) and before the next one.
    [ "$nkeys" -ge 50 ] || fail "read only $nkeys scene keys from lib/scene/scene.c"
    while IFS=. read -r sec key; do
        awk -v h="  [$sec" -v k="$key" '
            index($0, h) == 1 { in_sec = 1; next }
            /^  \[/ || /^[A-Z]/ { in_sec = 0 }
            in_sec && ($0 ~ "^      " k "( |$)") { found = 1 }
            END { exit !found }' "$tmp/out.txt" || fail "scene key $sec.$key not listed under [$sec]"
    done <"$tmp/keys.txt"
    ok "$nkeys scene keys listed under their sections"
    long=$(awk 'length($0) > 120 { n++ } END { print n + 0 }' "$tmp/out.txt")
    [ "$long" -eq 0 ] || fail "$long lines longer than 120 characters"
    lines=$(wc -l <"$tmp/out.txt")
    ok "$lines lines, none longer than 120 characters"
    ;;
tsv)
    "$list" --tsv >"$tmp/out.tsv" 2>"$tmp/err.txt" || fail "list --tsv exited non-zero"
    header=$(head -n 1 "$tmp/out.tsv")
    want=$(printf 'kind\tname\tpaper\tsection\tkey\ttype\trange\tunit\tdefault\tdoc')
    [ "$header" = "$want" ] || fail "header row is '$header'"
    bad=$(awk -F '\t' 'NF != 10 { n++ } END { print n + 0 }' "$tmp/out.tsv")
    [ "$bad" -eq 0 ] || fail "$bad rows without ten columns"
    for s in $solvers; do
        awk -F '\t' -v s="$s" '$1 == "solver" && $2 == s && $5 == "" { f = 1 } END { exit !f }' \
            "$tmp/out.tsv" || fail "no row for solver $s"
    done
    while IFS=. read -r sec key; do
        awk -F '\t' -v s="$sec" -v k="$key" '$1 == "key" && $4 == s && $5 == k { f = 1 }
            END { exit !f }' "$tmp/out.tsv" || fail "no row for scene key $sec.$key"
    done <"$tmp/keys.txt"
    untyped=$(awk -F '\t' 'NR > 1 && $5 != "" && $6 == "" { n++ } END { print n + 0 }' "$tmp/out.tsv")
    [ "$untyped" -eq 0 ] || fail "$untyped setting rows without a type"
    nrows=$(awk 'END { print NR - 1 }' "$tmp/out.tsv")
    ok "$nrows rows of ten columns; every solver and all $nkeys scene keys have a row"
    ;;
filter)
    "$list" solvers >"$tmp/s.txt" 2>&1 || fail "list solvers exited non-zero"
    grep -q "^SOLVERS:" "$tmp/s.txt" || fail "list solvers: no SOLVERS heading"
    grep -q "^ENERGIES:\|^SCENE KEYS:" "$tmp/s.txt" && fail "list solvers printed other groups"
    "$list" newton_euler >"$tmp/n.txt" 2>&1 || fail "list newton_euler exited non-zero"
    grep -q "^  newton_euler " "$tmp/n.txt" || fail "list newton_euler: no newton_euler line"
    grep -q "^      \[solver\] tolerance" "$tmp/n.txt" || fail "list newton_euler: no [solver] tolerance"
    [ "$(grep -c '^  [a-z]' "$tmp/n.txt")" -eq 1 ] || fail "list newton_euler printed other plug-ins"
    # plain Newton: no smoother's keys; the patch-smoothed variant is its own solver
    grep -q "smooth\|patch" "$tmp/n.txt" && fail "list newton_euler shows smoothing keys"
    "$list" newton_patch >"$tmp/np.txt" 2>&1 || fail "list newton_patch exited non-zero"
    grep -q "^      \[newton_patch\] smoothing_sweeps" "$tmp/np.txt" || fail "list newton_patch: no [newton_patch] smoothing_sweeps"
    "$list" pins >"$tmp/p.txt" 2>&1 || fail "list pins exited non-zero"
    grep -q "^      corners" "$tmp/p.txt" || fail "list pins: no corners key"
    grep -q "^      width" "$tmp/p.txt" && fail "list pins printed [mesh] keys"
    "$list" --tsv energies >"$tmp/e.tsv" 2>&1 || fail "list --tsv energies exited non-zero"
    others=$(awk -F '\t' 'NR > 1 && $1 != "energy" { n++ } END { print n + 0 }' "$tmp/e.tsv")
    [ "$others" -eq 0 ] || fail "list --tsv energies printed $others rows of other kinds"
    "$list" no_such_thing >"$tmp/x.txt" 2>&1
    rc=$?
    [ "$rc" -eq 2 ] || fail "list no_such_thing exited $rc, expected 2"
    grep -q "no_such_thing.*solvers" "$tmp/x.txt" || fail "list no_such_thing: $(cat "$tmp/x.txt")"
    [ "$(wc -l <"$tmp/x.txt")" -eq 1 ] || fail "list no_such_thing: not one line"
    "$list" --help >"$tmp/h.txt" 2>&1 || fail "list --help exited non-zero"
    grep -q -- "--tsv" "$tmp/h.txt" || fail "list --help does not name --tsv"
    [ "$failed" -eq 0 ] && ok "group, name and section filters; unknown word refused; --help"
    ;;
docs)
    "$list" --markdown >"$tmp/settings.md" 2>"$tmp/err.txt" || fail "list --markdown exited non-zero"
    if ! diff -u "$repo/docs/settings.md" "$tmp/settings.md" >"$tmp/diff.txt"; then
        head -n 40 "$tmp/diff.txt"
        fail "docs/settings.md is stale: regenerate it with ./weft list --markdown > docs/settings.md"
    else
        ok "docs/settings.md is list --markdown's output"
    fi
    ;;
*)
    echo "list_cli.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac
exit "$failed"
