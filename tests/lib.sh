# tests/lib.sh — what the shell tests share; each sources it first:
#     . "$(dirname "$0")/lib.sh"
#   weft_tmpdir TAG   makes a private folder $tmp (mktemp -d, named weft-TAG.XXXXXX),
#                     removed on exit; HUP, INT, PIPE and TERM exit 130 (so it is removed)
#   ok MSG, fail MSG  print "ok: ..." / "FAIL: ..." (after "$case_name: " when the test
#                     sets case_name); fail also sets failed=1, the test's exit status
#   check MSG RC      ok MSG when RC is 0, else fail MSG
# POSIX sh (tested with dash).

failed=0

# weft_tmpdir TAG: $tmp, a private folder removed when the test exits.
weft_tmpdir() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-$1.XXXXXX") || exit 1
    trap 'rm -rf "$tmp"' EXIT
    trap 'exit 130' HUP INT PIPE TERM
}

# ok MSG: one passed check.
ok() { echo "ok: ${case_name:+$case_name: }$*"; }

# fail MSG: one failed check; the test exits 1 at its end.
fail() {
    echo "FAIL: ${case_name:+$case_name: }$*"
    failed=1
}

# check MSG RC: ok or fail by an exit status.
check() { if [ "$2" -eq 0 ]; then ok "$1"; else fail "$1"; fi; }
