#!/bin/sh
# sweep_run.sh DIR [--jobs N] [--no-parallel] — runs the job list DIR/jobs.txt that
# `sweep plan` wrote: with GNU parallel when it is installed (N jobs at
# once, its progress bar on a terminal, DIR/joblog.txt and --resume-failed, so a rerun
# starts only what did not end well), otherwise one line after the other, saying so.
# Each line skips its run when the run's complete summary exists, so any rerun resumes.
# Exits 0 when every line exited 0, 1 otherwise. POSIX sh.
set -u

say() { printf 'weft: %s\n' "$*" >&2; }
usage="usage: sweep_run.sh DIR [--jobs N] [--no-parallel]"

dir=${1:?$usage}
shift
jobs=1
use_parallel=1
while [ $# -gt 0 ]; do
    case $1 in
        --jobs)
            [ $# -ge 2 ] || { say "--jobs: missing its value"; exit 2; }
            jobs=$2
            shift 2
            ;;
        --jobs=*) jobs=${1#--jobs=}; shift ;;
        --no-parallel) use_parallel=0; shift ;;
        *) say "sweep run: unknown option '$1' ($usage)"; exit 2 ;;
    esac
done
case $jobs in
    '' | *[!0-9]* | 0) say "--jobs: '$jobs' is not a whole number >= 1"; exit 2 ;;
esac
list="$dir/jobs.txt"
[ -f "$list" ] || { say "$list: no job list (run './weft sweep plan SPEC' first)"; exit 2; }
total=$(wc -l <"$list")

# One OpenMP thread per run: the runs are the parallelism.
OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
export OMP_NUM_THREADS

if [ "$use_parallel" -eq 1 ] && command -v parallel >/dev/null 2>&1; then
    say "running $total runs with GNU parallel, $jobs at once (joblog: $dir/joblog.txt)"
    bar=
    [ -t 2 ] && bar=--bar
    # The lines are POSIX sh whatever the user's login shell is.
    PARALLEL_SHELL=/bin/sh
    export PARALLEL_SHELL
    # shellcheck disable=SC2086  # $bar is empty or one option
    parallel --jobs "$jobs" --joblog "$dir/joblog.txt" --resume-failed $bar -a "$list"
    rc=$?
    [ "$rc" -eq 0 ] || say "GNU parallel exited $rc: that many runs failed (101: more than 100; see each run's job.log and ./weft sweep merge)"
    [ "$rc" -eq 0 ]
    exit $?
fi

if [ "$use_parallel" -eq 1 ]; then
    say "GNU parallel is not installed (Debian package 'parallel'): running the $total runs one after another"
else
    say "running the $total runs one after another (--no-parallel)"
fi
status=0
n=0
while IFS= read -r line; do
    n=$((n + 1))
    sh -c "$line" </dev/null || { say "run $n failed (exit $?; see its job.log)"; status=1; }
done <"$list"
exit $status
