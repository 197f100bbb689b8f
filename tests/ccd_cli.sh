#!/bin/sh
# ccd_cli.sh CASE CCD_BENCHMARK DATA_DIR — command-line tests of the ccd_benchmark tool.
# Each CASE is one CTest test (tests/CMakeLists.txt); DATA_DIR holds the query sets
# vertex_face.txt and edge_edge.txt of Wang et al. 2021 (tests/data/ccd, from CMake).
#   format          a small hand-made file: exactly one stdout line of the documented
#                   form with the right counts, exit 0
#   false_negative  a clearly separated query labelled colliding: false_negatives=1,
#                   exit 1, the query's file:line on stderr
#   bad_input       malformed lines, wrong field counts, NaN, a bad ground truth, a missing
#                   file and usage errors: exit 2 with one stderr line naming file:line and
#                   the field (or the argument)
#   help            --help exits 0 and documents the output line and the default eta
#   shared_data     both data sets: the documented query counts, no false negatives, and
#                   the same line when FILE is left out (the tool's built-in default)
# Prints "ok: ..." / "FAIL: ..." lines; exits 1 on any failure.
# POSIX sh (tested with dash); everything is written under a private mktemp -d.
set -u

usage="usage: ccd_cli.sh CASE CCD_BENCHMARK DATA_DIR"
case_name=${1:?$usage}
bench=${2:?$usage}
data=${3:?$usage}

. "$(dirname "$0")/lib.sh"
weft_tmpdir ccd-cli-$case_name


# run NAME ARGS...: runs the tool; sets rc and keeps stdout/stderr as $tmp/NAME.out/.err.
run() {
    rname=$1
    shift
    "$bench" "$@" >"$tmp/$rname.out" 2>"$tmp/$rname.err"
    rc=$?
}

# Three vertex-face queries: a vertex falling through a unit triangle's interior (1), the
# same vertex falling 1 m beside it (0), and a resting vertex 0.5 m above it (0).
write_small() {
    {
        echo "# three hand-made vertex-face queries"
        echo "7 1  0.25 0.25 1  0 0 0  1 0 0  0 1 0   0.25 0.25 -1  0 0 0  1 0 0  0 1 0"
        echo "8 0  2 2 1  0 0 0  1 0 0  0 1 0   2 2 -1  0 0 0  1 0 0  0 1 0"
        echo ""
        echo "9 0  0.25 0.25 0.5  0 0 0  1 0 0  0 1 0   0.25 0.25 0.5  0 0 0  1 0 0  0 1 0"
    } >"$1"
}

num='[0-9][0-9]*'
line_re="^queries=$num colliding=$num false_negatives=$num false_positives=$num ns_per_query=$num\\.[0-9]\$"

# expect_error NAME FRAGMENT... : the last run exited 2 with one stderr line holding
# every fragment and printed nothing on stdout.
expect_error() {
    name=$1
    shift
    why=""
    [ "$rc" -eq 2 ] || why="exit status $rc, expected 2; "
    lines=$(wc -l <"$tmp/$rname.err")
    [ "$lines" -eq 1 ] || why="${why}stderr has $lines lines, expected 1; "
    for frag in "$@"; do
        grep -qF -e "$frag" "$tmp/$rname.err" || why="${why}stderr lacks '$frag'; "
    done
    [ -s "$tmp/$rname.out" ] && why="${why}stdout is not empty; "
    if [ -z "$why" ]; then
        ok "$name: $(cat "$tmp/$rname.err")"
    else
        fail "$name: $why"
        sed 's/^/    stderr: /' "$tmp/$rname.err"
    fi
}

case $case_name in

format)
    write_small "$tmp/small.txt"
    run small vertex_face "$tmp/small.txt"
    [ "$rc" -eq 0 ] || fail "exit status $rc, expected 0"
    nlines=$(wc -l <"$tmp/small.out")
    [ "$nlines" -eq 1 ] || fail "stdout has $nlines lines, expected 1"
    if grep -q "$line_re" "$tmp/small.out"; then
        ok "line format: $(cat "$tmp/small.out")"
    else
        fail "line does not match the documented format: $(cat "$tmp/small.out")"
    fi
    case $(cat "$tmp/small.out") in
    "queries=3 colliding=1 false_negatives=0 false_positives=0 "*) ok "counts" ;;
    *) fail "counts: expected queries=3 colliding=1 false_negatives=0 false_positives=0" ;;
    esac
    # A larger tolerance turns the resting vertex 0.5 m above the face into a contact
    # (eta = 0.4 x its box diagonal 1.5 m = 0.6 m; the falling vertex beside the face
    # passes 2.1 m away, more than 0.4 x its diagonal 3.5 m = 1.4 m.)
    run loose --eta-rel 0.4 vertex_face "$tmp/small.txt"
    case $(cat "$tmp/loose.out") in
    "queries=3 colliding=1 false_negatives=0 false_positives=1 "*)
        ok "--eta-rel 0.4 adds one false positive" ;;
    *) fail "--eta-rel 0.4: $(cat "$tmp/loose.out")" ;;
    esac
    ;;

false_negative)
    {
        echo "# a separated query that claims to collide"
        echo "1 0  0.25 0.25 1  0 0 0  1 0 0  0 1 0   0.25 0.25 -1  0 0 0  1 0 0  0 1 0"
        echo "2 1  5 5 5  0 0 0  1 0 0  0 1 0   5 5 6  0 0 0  1 0 0  0 1 0"
    } >"$tmp/fn.txt"
    run fn vertex_face "$tmp/fn.txt"
    [ "$rc" -eq 1 ] || fail "exit status $rc, expected 1"
    case $(cat "$tmp/fn.out") in
    "queries=2 colliding=1 false_negatives=1 false_positives=1 "*) ok "$(cat "$tmp/fn.out")" ;;
    *) fail "stdout: $(cat "$tmp/fn.out")" ;;
    esac
    grep -qF -e "$tmp/fn.txt:3" "$tmp/fn.err" || fail "stderr does not name $tmp/fn.txt:3"
    ;;

bad_input)
    # A valid line (a vertex resting 1 m above a unit triangle) and variants of it with
    # field K (1-based) replaced.
    good="0 0  0 0 1  0 0 0  1 0 0  0 1 0   0 0 1  0 0 0  1 0 0  0 1 0"
    with_field() { echo "$good" | awk -v k="$1" -v v="$2" '{ $k = v; print }'; }

    f="$tmp/word.txt"
    { echo "# header"; echo "$good"; with_field 9 abc; } >"$f"
    run word vertex_face "$f"
    expect_error not_a_number "$f:3:" "f1_t0.x" "abc"

    f="$tmp/count.txt"
    { echo "$good"; echo "1 0 0 0 0 1 0 0"; } >"$f"
    run count edge_edge "$f"
    expect_error too_few_fields "$f:2:" "26 fields" "found 8"

    f="$tmp/many.txt"
    echo "$good 5" >"$f"
    run many edge_edge "$f"
    expect_error too_many_fields "$f:1:" "26 fields"

    f="$tmp/nan.txt"
    { echo "$good"; echo "$good"; with_field 26 nan; } >"$f"
    run nan edge_edge "$f"
    expect_error nan_coordinate "$f:3:" "b1_t1.z" "nan"

    f="$tmp/inf.txt"
    with_field 3 -inf >"$f"
    run inf vertex_face "$f"
    expect_error inf_coordinate "$f:1:" "v_t0.x" "-inf"

    f="$tmp/truth.txt"
    with_field 2 2 >"$f"
    run truth vertex_face "$f"
    expect_error bad_ground_truth "$f:1:" "ground_truth" "'2'"

    f="$tmp/id.txt"
    with_field 1 1.5 >"$f"
    run id vertex_face "$f"
    expect_error bad_query_id "$f:1:" "query_id" "1.5"

    f="$tmp/empty.txt"
    printf '# only a comment\n\n' >"$f"
    run empty vertex_face "$f"
    expect_error no_queries "$f" "no queries"

    run missing vertex_face "$tmp/no_such_file.txt"
    expect_error missing_file "$tmp/no_such_file.txt"

    run kind face_face "$tmp/word.txt"
    expect_error bad_kind "face_face"

    run noargs
    expect_error no_arguments "vertex_face|edge_edge"

    run eta --eta-rel -1 vertex_face "$tmp/word.txt"
    expect_error bad_eta "--eta-rel" "-1"

    run option --fast vertex_face "$tmp/word.txt"
    expect_error unknown_option "--fast"
    ;;

help)
    run help --help
    [ "$rc" -eq 0 ] || fail "--help exited with $rc"
    for want in "vertex_face|edge_edge [FILE]" "$data/KIND.txt" "--eta-rel" "default 1e-12" "false_negatives=FN" \
        "ns_per_query=T"; do
        if grep -qF -e "$want" "$tmp/help.out"; then
            ok "help mentions '$want'"
        else
            fail "help lacks '$want'"
        fi
    done
    ;;

shared_data)
    for spec in vertex_face:1000:182 edge_edge:824:110; do
        kind=${spec%%:*}
        rest=${spec#*:}
        n=${rest%%:*}
        pos=${rest#*:}
        f="$data/$kind.txt"
        if [ ! -r "$f" ]; then
            fail "$f is missing (tests/data/ccd must hold the CCD data sets)"
            continue
        fi
        run "$kind" "$kind" "$f"
        out=$(cat "$tmp/$kind.out")
        case $out in
        "queries=$n colliding=$pos false_negatives=0 "*)
            [ "$rc" -eq 0 ] && ok "$kind: $out" || fail "$kind: exit $rc with $out" ;;
        *) fail "$kind: expected queries=$n colliding=$pos false_negatives=0, got '$out'" \
            "(exit $rc)" ;;
        esac
        # Without FILE: the same set, found by the path CMake compiled in (whatever the
        # directory the tool runs from), so the same counts.
        (cd "$tmp" && "$bench" "$kind" >"$tmp/$kind.default.out" 2>"$tmp/$kind.default.err")
        rc=$?
        got=$(sed 's/ ns_per_query=.*//' "$tmp/$kind.default.out")
        if [ "$rc" -eq 0 ] && [ "$got" = "${out% ns_per_query=*}" ]; then
            ok "$kind without FILE: $got"
        else
            fail "$kind without FILE: exit $rc, '$got' (stderr: $(cat "$tmp/$kind.default.err"))"
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
