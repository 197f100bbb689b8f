#!/bin/sh
# sweep_jobs.sh CASE SWEEP RUN_SCRIPT — the sweep job lists
# (experiments/sweep_*.c, experiments/sweep_run.sh) end to end on a tiny stability
# sweep (2 solvers x 2 stiffnesses x 2 time steps on a 5 x 5 cloth). One CTest test each:
#   plan       the job list has one line per run with the solver, every --set, the axis
#              values (ranges and 1/N expanded) and its own output directory; the
#              manifest has a column per axis; a second plan counts the complete runs;
#              repeats = 2 doubles the runs into -r1/-r2 directories
#   local      GNU parallel (--jobs 2) and the sequential fallback give the same merged
#              table byte for byte apart from the timing column; a rerun skips every run
#              and gives the same table again; a deleted result is run again
#   resume     a sweep killed (SIGKILL to its process group) during its first, slow run:
#              merge marks that run incomplete and the others missing, says so in the
#              table's header and exits 3; rerunning completes it and the table equals
#              an uninterrupted sweep's
#   slurm      a one-node Slurm cluster (munged, slurmctld, slurmd on loopback, all
#              started here from a generated slurm.conf and stopped by PID):
#              sbatch --wait on the script of `sweep slurm` (2 runs per array task, at
#              most 2 tasks at once); its merged table equals the local one. Skipped
#              (exit 77) when Slurm or munge is not installed
#   failed     a compare run that stops with an error (symplectic_euler diverging) is
#              marked failed with its exit status and error line; the run script and the
#              merge (3) exit non-zero
#   rows       the same sweep as whole rows (a run per solver and stiffness over both
#              time steps): 8 rows from 4 runs, the same verdicts, a figure whose x is a
#              collected column
#   large      a plan of 51 200 runs (more than the planner once held) has a line and a
#              manifest row per run in order; merge counts them missing; slurm chunks
#              them; a plan of 9 axes, one of 200 values (once 8 and 128 at most)
#   bad_input  spec errors (unknown key or section, bad range or value, unknown solver,
#              program or scene, a key the program would override): one line naming
#              SPEC:LINE and the key, exit 2, no job list
# Prints "ok: ..." / "FAIL: ..." lines; exits 1 on any failure. POSIX sh; every file
# lives under a private mktemp -d.
set -u

usage="usage: sweep_jobs.sh CASE SWEEP RUN_SCRIPT"
case_name=${1:?$usage}
sweep=${2:?$usage}
run_script=${3:?$usage}

. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-sweepjobs-$case_name.XXXXXX") || exit 1
daemons=
cleanup() {
    # Stop what this test started, by PID, then remove its files.
    for pid in $daemons; do kill "$pid" 2>/dev/null; done
    for pid in $daemons; do
        n=0
        while kill -0 "$pid" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
        kill -KILL "$pid" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' HUP INT PIPE TERM

# The tiny sweep. symplectic_euler diverges at dt 1/10 and at 1e6 N/m, so the table
# holds more than one verdict.
write_spec() {
    cat >"$1" <<'EOF'
; a tiny stability sweep for tests/sweep_jobs.sh
[sweep]
name = tiny
program = stability
scene = hanging_cloth
solvers = pbd_gauss_seidel,
  symplectic_euler
metrics = status, steps_done, max_strain, ms_per_step
options = --max-steps 20 --exhaustive

[set]
mesh.nx = 5
mesh.ny = 5

[axes]
material.stretch_stiffness = 1e2:*1e4:1e6
scene.dt = 1/2000, 1/10

[pass]
material.stretch_stiffness = --stiffnesses
scene.dt = --dts

[figure]
metric = status
x = scene.dt
categories = stable, diverged, strain, energy, failed
EOF
}

# plan SPEC DIR: sweep plan must succeed; its stdout is the sweep directory.
plan() {
    "$sweep" plan "$1" --out "$2" >"$tmp/plan.out" 2>"$tmp/plan.err" || {
        fail "sweep plan $1 failed: $(cat "$tmp/plan.err")"
        return 1
    }
}

# table FILE: the merged table without its timing column (ms_per_step).
table() {
    awk -F '\t' 'BEGIN { OFS = "\t" }
        /^#/ { print; next }
        !h { for (i = 1; i <= NF; i++) if ($i == "ms_per_step") t = i; h = 1 }
        { out = ""; for (i = 1; i <= NF; i++) if (i != t) out = out (out == "" ? "" : "\t") $i; print out }' "$1"
}

# Without gnuplot (an optional tool here) the merges skip their figure, and the checks
# of the figures are skipped; the tables are checked all the same.
noplot=
command -v gnuplot >/dev/null 2>&1 || noplot=--no-plot

# figure_ok FILE WHAT: FILE is a non-empty figure (or gnuplot is missing).
figure_ok() {
    if [ -n "$noplot" ]; then
        echo "skip: $case_name: $2 (gnuplot is not installed)"
    elif [ -s "$1" ]; then
        ok "$2"
    else
        fail "no figure $1 ($2)"
    fi
}

# merge DIR WANT_RC: sweep merge must exit WANT_RC.
merge() {
    # shellcheck disable=SC2086  # $noplot is empty or one option
    "$sweep" merge "$1" $noplot >"$tmp/merge.out" 2>"$tmp/merge.err"
    rc=$?
    [ "$rc" -eq "$2" ] || { fail "sweep merge $1 exited $rc, expected $2: $(cat "$tmp/merge.err")"; return 1; }
}

# field FILE JOB COLUMN: the value of COLUMN (by header name) in the row of JOB.
field() {
    awk -F '\t' -v j="$2" -v c="$3" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next }
        $1 == j { print $k; exit }' "$1"
}

# same_as_local SPEC DIR WHAT: DIR's merged table equals, apart from timing, that of SPEC
# planned afresh and run one run after another.
same_as_local() {
    plan "$1" "$tmp/local" || return 1
    sh "$run_script" "$tmp/local" --no-parallel >/dev/null 2>&1 || fail "local run of $1 failed"
    merge "$tmp/local" 0 || return 1
    table "$2/merged.tsv" >"$tmp/a.tsv"
    table "$tmp/local/merged.tsv" >"$tmp/b.tsv"
    if cmp -s "$tmp/a.tsv" "$tmp/b.tsv"; then
        ok "$3"
    else
        fail "not so: $3"
        diff "$tmp/a.tsv" "$tmp/b.tsv" | head
    fi
}

spec="$tmp/tiny.ini"
write_spec "$spec"

case $case_name in

plan)
    plan "$spec" "$tmp/s" || exit 1
    dir=$(cat "$tmp/plan.out")
    [ "$dir" = "$tmp/s" ] || fail "plan printed '$dir', expected $tmp/s"
    n=$(wc -l <"$tmp/s/jobs.txt")
    [ "$n" -eq 8 ] && ok "8 lines for 2 solvers x 2 stiffnesses x 2 dts" || fail "$n job lines, expected 8"
    bad=$(grep -v -e '--solvers \(pbd_gauss_seidel\|symplectic_euler\) ' "$tmp/s/jobs.txt" |
          head -n 1)
    [ -z "$bad" ] || fail "a line without its one solver: $bad"
    [ "$(grep -c -e '--set mesh.nx=5 --set mesh.ny=5 ' "$tmp/s/jobs.txt")" -eq 8 ] ||
        fail "not every line has the [set] overrides"
    [ "$(grep -c -e '--stiffnesses 1000000 ' "$tmp/s/jobs.txt")" -eq 4 ] ||
        fail "the range 1e2:*1e4:1e6 did not give 1000000 (as digits) to 4 runs"
    [ "$(grep -c -e '--dts 0.0005 ' "$tmp/s/jobs.txt")" -eq 4 ] ||
        fail "1/2000 did not become --dts 0.0005 in 4 runs"
    # --force: a line runs only without a complete summary, so it replaces what a failed or
    # interrupted attempt left in its folder (which compare would otherwise refuse).
    [ "$(grep -c -e '--max-steps 20 --exhaustive --force --no-plot --out runs/' "$tmp/s/jobs.txt")" -eq 8 ] ||
        fail "not every line has the spec's options, --force and its own --out"
    outs=$(sed 's/.* --out \([^ ]*\) .*/\1/' "$tmp/s/jobs.txt" | sort -u | wc -l)
    [ "$outs" -eq 8 ] && ok "8 distinct output directories" || fail "$outs distinct output directories"
    grep -q -e '--out runs/symplectic_euler-stretch_stiffness=1e6-dt=1_10 ' "$tmp/s/jobs.txt" &&
        ok "directories named after the parameters" || fail "no run directory symplectic_euler-stretch_stiffness=1e6-dt=1_10"
    h=$(awk '!/^#/ { print; exit }' "$tmp/s/manifest.tsv" | tr '\t' ' ')
    [ "$h" = "job dir solver material.stretch_stiffness scene.dt repeat summary" ] ||
        fail "manifest header is '$h'"
    [ "$(grep -vc '^#' "$tmp/s/manifest.tsv")" -eq 9 ] || fail "manifest: not a header and 8 rows"
    cmp -s "$spec" "$tmp/s/spec.ini" || fail "spec.ini is not a copy of the spec"
    # One line by itself runs its run; planning again counts it as complete.
    sh -c "$(sed -n 1p "$tmp/s/jobs.txt")" >/dev/null 2>&1 || fail "line 1 failed"
    plan "$spec" "$tmp/s" || exit 1
    grep -q '8 runs .*1 already complete' "$tmp/plan.err" && ok "replanning counts the complete run" ||
        fail "replanning did not count 1 complete run: $(cat "$tmp/plan.err")"
    # Repeats: each point twice, in directories ending -r1, -r2.
    sed 's/^name = tiny/name = tiny\nrepeats = 2/' "$spec" >"$tmp/rep.ini"
    plan "$tmp/rep.ini" "$tmp/r" || exit 1
    [ "$(wc -l <"$tmp/r/jobs.txt")" -eq 16 ] || fail "repeats = 2: not 16 lines"
    [ "$(grep -c -e '-r2 ' "$tmp/r/jobs.txt")" -eq 8 ] && ok "repeats = 2: 16 runs, 8 in -r2 directories" ||
        fail "repeats = 2: not 8 runs in -r2 directories"
    [ -z "$(find "$tmp/s" -name '*.partial')" ] || fail "partial files left"
    ;;

large)
    # A plan of 51 200 runs (1 solver x 40 x 40 x 32 values), more than the planner once
    # held (50 000), planned and merged without running anything: one line and one
    # manifest row per run, in order (solver outermost, the last axis fastest), the merge
    # counts them all missing, and slurm chunks them under Slurm's 1001 array tasks.
    cat >"$tmp/large.ini" <<'EOF2'
[sweep]
name = large
program = compare
scene = hanging_cloth
solvers = pbd_gauss_seidel
[axes]
mesh.nx = 2:1:41
mesh.ny = 2:1:41
scene.steps = 1:1:32
EOF2
    plan "$tmp/large.ini" "$tmp/l" || exit 1
    grep -q 'large: 51200 runs (1 solver x 40 mesh.nx x 40 mesh.ny x 32 scene.steps)' "$tmp/plan.err" &&
        ok "51200 runs planned" || fail "plan did not say 51200 runs: $(cat "$tmp/plan.err")"
    n=$(wc -l <"$tmp/l/jobs.txt")
    [ "$n" -eq 51200 ] && ok "51200 job lines" || fail "$n job lines, expected 51200"
    [ "$(grep -vc '^#' "$tmp/l/manifest.tsv")" -eq 51201 ] && ok "a manifest header and 51200 rows" ||
        fail "manifest: not a header and 51200 rows"
    row=$(awk -F '\t' '$1 == 33 { print $2 }' "$tmp/l/manifest.tsv")
    [ "$row" = "pbd_gauss_seidel-nx=2-ny=3-steps=1" ] || fail "run 33 is '$row', expected nx=2 ny=3 steps=1"
    last=$(tail -n 1 "$tmp/l/manifest.tsv" | cut -f 1-6 | tr '\t' ' ')
    [ "$last" = "51200 pbd_gauss_seidel-nx=41-ny=41-steps=32 pbd_gauss_seidel 41 41 32" ] &&
        ok "the last run is nx=41 ny=41 steps=32" || fail "the last manifest row is '$last'"
    sed -n 51200p "$tmp/l/jobs.txt" | grep -q -e "--set mesh.nx=41 --set mesh.ny=41 --set scene.steps=32 .*--out runs/pbd_gauss_seidel-nx=41-ny=41-steps=32 " ||
        fail "line 51200 does not run nx=41 ny=41 steps=32"
    "$sweep" merge "$tmp/l" --no-plot >/dev/null 2>"$tmp/merge.err"
    rc=$?
    [ "$rc" -eq 3 ] || fail "merge of the unrun plan exited $rc, expected 3: $(cat "$tmp/merge.err")"
    head -n 1 "$tmp/l/merged.tsv" | grep -q 'runs=51200 complete=0 failed=0 incomplete=0 missing=51200' &&
        ok "merge: 51200 runs missing" || fail "merged.tsv header: $(head -n 1 "$tmp/l/merged.tsv")"
    "$sweep" slurm "$tmp/l" >/dev/null 2>"$tmp/slurm.err" || fail "slurm failed: $(cat "$tmp/slurm.err")"
    grep -q '^#SBATCH --array=0-984%32$' "$tmp/l/slurm.sh" && ok "slurm: 985 tasks of 52 runs" ||
        fail "slurm.sh: $(grep array "$tmp/l/slurm.sh")"
    # More than the 8 axes and 128 values per axis the planner once held.
    cat >"$tmp/wide.ini" <<'EOF2'
[sweep]
name = wide
program = compare
scene = hanging_cloth
solvers = pbd_gauss_seidel
[axes]
mesh.nx = 4
mesh.ny = 4, 5
mesh.width = 1
mesh.height = 1
scene.dt = 1/60
material.density = 0.1
material.stretch_stiffness = 1e3
material.bending_stiffness = 1e-5
scene.steps = 1:1:200
EOF2
    plan "$tmp/wide.ini" "$tmp/w" || exit 1
    n=$(wc -l <"$tmp/w/jobs.txt")
    [ "$n" -eq 400 ] && ok "9 axes, one of 200 values: 400 runs" || fail "$n job lines, expected 400"
    h=$(awk '!/^#/ { print NF; exit }' "$tmp/w/manifest.tsv")
    [ "$h" -eq 14 ] || fail "the manifest has $h columns, expected 14 (9 axes)"
    ;;

local)
    command -v parallel >/dev/null 2>&1 || {
        echo "SKIP: $case_name: GNU parallel is not installed (Debian package 'parallel')"
        exit 77
    }
    plan "$spec" "$tmp/p" || exit 1
    sh "$run_script" "$tmp/p" --jobs 2 >"$tmp/p.out" 2>"$tmp/p.err" || fail "parallel run failed: $(cat "$tmp/p.err")"
    grep -q 'with GNU parallel, 2 at once' "$tmp/p.err" || fail "the run did not use GNU parallel"
    [ -s "$tmp/p/joblog.txt" ] || fail "no joblog"
    merge "$tmp/p" 0 || exit 1
    plan "$spec" "$tmp/f" || exit 1
    sh "$run_script" "$tmp/f" --jobs 2 --no-parallel >"$tmp/f.out" 2>"$tmp/f.err" || fail "fallback run failed"
    grep -q 'one after another' "$tmp/f.err" || fail "the fallback did not say it runs one after another"
    merge "$tmp/f" 0 || exit 1
    table "$tmp/p/merged.tsv" >"$tmp/p.tsv"
    table "$tmp/f/merged.tsv" >"$tmp/f.tsv"
    if cmp -s "$tmp/p.tsv" "$tmp/f.tsv"; then
        ok "GNU parallel and the fallback: the same merged table apart from ms_per_step"
    else
        fail "the merged tables differ:"
        diff "$tmp/p.tsv" "$tmp/f.tsv" | head -n 10
    fi
    rows=$(grep -c '	complete	' "$tmp/p.tsv")
    [ "$rows" -eq 8 ] || fail "$rows complete rows, expected 8"
    [ "$(field "$tmp/p/merged.tsv" 8 status)" = diverged ] && [ "$(field "$tmp/p/merged.tsv" 1 status)" = stable ] &&
        ok "verdicts: run 1 stable, run 8 diverged" || fail "run 1 should be stable and run 8 (symplectic_euler, 1e6, 1/10) diverged"
    figure_ok "$tmp/p/tiny.png" "the sweep's figure"
    # Rerun: every run is skipped, with either engine.
    sh "$run_script" "$tmp/p" --jobs 2 >"$tmp/p2.out" 2>&1 || fail "rerun failed"
    sh "$run_script" "$tmp/f" --no-parallel >"$tmp/f2.out" 2>&1 || fail "fallback rerun failed"
    [ "$(grep -c 'complete, skipped' "$tmp/f2.out")" -eq 8 ] && ok "the fallback rerun skips all 8 runs" ||
        fail "the fallback rerun did not skip all 8 runs"
    # parallel --resume-failed does not even start the lines that exited 0.
    [ "$(grep -c 'complete, skipped' "$tmp/p2.out")" -eq 0 ] && [ "$(wc -l <"$tmp/p/joblog.txt")" -eq 9 ] &&
        ok "the parallel rerun resumes from its joblog (no run started again)" ||
        fail "the parallel rerun started runs again"
    merge "$tmp/f" 0 || exit 1
    table "$tmp/f/merged.tsv" | cmp -s - "$tmp/f.tsv" || fail "the table changed after a rerun"
    # A result deleted since: replanning sees that the joblog says "done" and starts a new
    # one, so GNU parallel runs that line again.
    rm "$tmp/p/runs/pbd_gauss_seidel-stretch_stiffness=1e6-dt=1_10/stability/summary.tsv"
    plan "$spec" "$tmp/p" || exit 1
    grep -q 'records run 4 as done, but its summary is missing' "$tmp/plan.err" ||
        fail "replanning did not notice the deleted summary: $(cat "$tmp/plan.err")"
    sh "$run_script" "$tmp/p" --jobs 2 >"$tmp/p3.out" 2>&1 || fail "rerun after a deletion failed"
    merge "$tmp/p" 0 && ok "a deleted result is run again by GNU parallel" || fail "not complete again"
    [ -z "$(find "$tmp/p" "$tmp/f" -name '*.partial')" ] || fail "partial files left"
    ;;

resume)
    # The first run is slow (a 64 x 32 cloth for 1000 steps: the axis lists it first), the
    # others fast.
    cat >"$tmp/k.ini" <<'EOF'
[sweep]
name = killed
program = stability
scene = hanging_cloth
solvers = pbd_gauss_seidel
metrics = status, steps_done, max_strain, ms_per_step
options = --max-steps 1000 --dts 1/2000
[axes]
mesh.nx = 64, 4
material.stretch_stiffness = 1e4, 1e5
[pass]
material.stretch_stiffness = --stiffnesses
[set]
mesh.ny = 32
EOF
    plan "$tmp/k.ini" "$tmp/k" || exit 1
    # In a session (and process group) of its own, so that one signal reaches the runner
    # and its runs at once, as a node failure or a wall-time kill would.
    setsid sh "$run_script" "$tmp/k" --no-parallel >"$tmp/k.out" 2>&1 &
    pg=$!
    log="$tmp/k/runs/pbd_gauss_seidel-nx=64-stretch_stiffness=1e4/job.log"
    n=0
    while [ ! -f "$log" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
    sleep 0.5
    kill -KILL "-$pg" 2>/dev/null
    wait "$pg" 2>/dev/null
    [ -f "$log" ] || { fail "run 1 never started"; exit 1; }
    if grep -q '^# exit=' "$log"; then
        fail "run 1 ended before the kill (too fast for this test)"
        exit 1
    fi
    merge "$tmp/k" 3 || exit 1
    s1=$(field "$tmp/k/merged.tsv" 1 state)
    s2=$(field "$tmp/k/merged.tsv" 2 state)
    [ "$s1" = incomplete ] && ok "the killed run is marked incomplete" || fail "run 1 is '$s1', expected incomplete"
    [ "$s2" = missing ] && ok "a run that never started is marked missing" || fail "run 2 is '$s2', expected missing"
    [ "$(field "$tmp/k/merged.tsv" 1 status)" = - ] || fail "the killed run has a status value"
    head -n 1 "$tmp/k/merged.tsv" | grep -q 'complete=0 .*NOT ALL RUNS ARE COMPLETE' &&
        ok "the table's header says not all runs are complete" || fail "header: $(head -n 1 "$tmp/k/merged.tsv")"
    grep -q 'not complete' "$tmp/merge.err" || fail "merge did not warn"
    # Resume (GNU parallel when there is one: its joblog has no record of the killed run).
    if command -v parallel >/dev/null 2>&1; then
        sh "$run_script" "$tmp/k" --jobs 2 >"$tmp/k2.out" 2>&1 || fail "resume failed: $(cat "$tmp/k2.out")"
    else
        sh "$run_script" "$tmp/k" --no-parallel >"$tmp/k2.out" 2>&1 || fail "resume failed: $(cat "$tmp/k2.out")"
    fi
    merge "$tmp/k" 0 || exit 1
    [ "$(field "$tmp/k/merged.tsv" 1 state)" = complete ] && ok "resume completes the killed run" ||
        fail "run 1 is not complete after resuming"
    grep -q '^# exit=0' "$log" || fail "run 1's log has no exit record after resuming"
    same_as_local "$tmp/k.ini" "$tmp/k" "the resumed table equals an uninterrupted sweep's"
    ;;

slurm)
    for p in munged slurmctld slurmd sbatch; do
        command -v "$p" >/dev/null 2>&1 || {
            echo "SKIP: $case_name: $p not found (Debian packages slurm-wlm and munge; './weft test' installs them as root)"
            exit 77
        }
    done
    [ "$(id -u)" -eq 0 ] || {
        echo "SKIP: $case_name: slurmd runs as root (SlurmdUser=root); run the test as root"
        exit 77
    }
    c="$tmp/cluster"
    mkdir -p "$c/key" "$c/sock" "$c/state" "$c/spool" "$c/log" || exit 1
    chmod 700 "$c/key"
    chmod 755 "$c/sock"
    # munge: a fresh key, a private socket.
    dd if=/dev/urandom of="$c/key/munge.key" bs=1024 count=1 2>/dev/null
    chmod 400 "$c/key/munge.key"
    munged --foreground --force --key-file="$c/key/munge.key" --socket="$c/sock/munge" \
        --pid-file="$c/munged.pid" --log-file="$c/log/munged.log" --seed-file="$c/munge.seed" \
        >"$c/log/munged.out" 2>&1 &
    daemons="$daemons $!"
    # Two free loopback ports.
    used=$(ss -ltnH 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }')
    port=$((20000 + ($$ % 20000)))
    while echo "$used" | grep -qx -e "$port" -e "$((port + 1))"; do port=$((port + 2)); done
    host=$(hostname -s)
    cpus=$(nproc)
    cat >"$c/slurm.conf" <<EOF
ClusterName=weft-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$c/sock/munge
CredType=cred/munge
StateSaveLocation=$c/state
SlurmdSpoolDir=$c/spool
SlurmctldPidFile=$c/slurmctld.pid
SlurmdPidFile=$c/slurmd.pid
SlurmctldLogFile=$c/log/slurmctld.log
SlurmdLogFile=$c/log/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=weft Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    SLURM_CONF="$c/slurm.conf"
    export SLURM_CONF
    n=0
    while [ ! -S "$c/sock/munge" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
    [ -S "$c/sock/munge" ] || { fail "munged did not start: $(cat "$c/log/munged.out")"; exit 1; }
    slurmctld -D -f "$c/slurm.conf" >"$c/log/slurmctld.out" 2>&1 &
    daemons="$daemons $!"
    slurmd -D -f "$c/slurm.conf" >"$c/log/slurmd.out" 2>&1 &
    daemons="$daemons $!"
    n=0
    while ! sinfo -h -o '%t' 2>/dev/null | grep -q idle && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
    sinfo -h -o '%t' 2>/dev/null | grep -q idle || {
        fail "the one-node cluster did not come up:"
        tail -n 5 "$c/log/slurmctld.out" "$c/log/slurmd.out"
        exit 1
    }
    ok "one-node Slurm cluster up (ports $port, $((port + 1)))"
    plan "$spec" "$tmp/s" || exit 1
    "$sweep" slurm "$tmp/s" --chunk 2 --throttle 2 >"$tmp/slurm.out" 2>"$tmp/slurm.err" ||
        { fail "sweep slurm failed: $(cat "$tmp/slurm.err")"; exit 1; }
    grep -q '^#SBATCH --array=0-3%2$' "$tmp/s/slurm.sh" || fail "slurm.sh has no --array=0-3%2 line"
    (cd "$tmp" && sbatch --wait "$tmp/s/slurm.sh") >"$tmp/sbatch.out" 2>&1 ||
        fail "sbatch --wait failed: $(cat "$tmp/sbatch.out")"
    ntask=$(find "$tmp/s/slurm" -name 'task-*.log' | wc -l)
    [ "$ntask" -eq 4 ] && ok "4 array tasks, a log each" || fail "$ntask task logs, expected 4"
    merge "$tmp/s" 0 || exit 1
    same_as_local "$spec" "$tmp/s" "Slurm's merged table equals the local one apart from ms_per_step"
    ;;

failed)
    # compare stops with an error when symplectic_euler diverges (dt 1/10 on this cloth).
    cat >"$tmp/f.ini" <<'EOF'
[sweep]
name = failing
program = compare
scene = hanging_cloth
solvers = symplectic_euler
options = --log steps
[set]
scene.steps = 40
mesh.nx = 5
mesh.ny = 5
[axes]
scene.dt = 1/2000, 1/10
EOF
    plan "$tmp/f.ini" "$tmp/f" || exit 1
    sh "$run_script" "$tmp/f" --no-parallel >"$tmp/f.out" 2>&1 && fail "the run script exited 0 with a failed run"
    merge "$tmp/f" 3 || exit 1
    [ "$(field "$tmp/f/merged.tsv" 1 state)" = complete ] || fail "run 1 (dt 1/2000) is not complete"
    [ "$(field "$tmp/f/merged.tsv" 2 state)" = failed ] && ok "the diverged compare run is marked failed" ||
        fail "run 2 is '$(field "$tmp/f/merged.tsv" 2 state)', expected failed"
    note=$(field "$tmp/f/merged.tsv" 2 note)
    case $note in
        'exit=1: error: symplectic_euler: '*diverged*) ok "its note: $note" ;;
        *) fail "run 2's note is '$note'" ;;
    esac
    [ "$(field "$tmp/f/merged.tsv" 2 final_cmax)" = - ] || fail "the failed run has a metric value"
    head -n 1 "$tmp/f/merged.tsv" | grep -q 'complete=1 failed=1 .*NOT ALL RUNS ARE COMPLETE' ||
        fail "header: $(head -n 1 "$tmp/f/merged.tsv")"
    ;;

rows)
    # The same points as whole rows: a run per solver and stiffness over both time steps
    # (--dts in the options, dt_s a collected column and the figure's x).
    sed -e 's/^name = tiny/name = rows/' -e 's|^options = .*|options = --max-steps 20 --exhaustive --dts 1/2000,1/10|' \
        -e '/^scene.dt = /d' -e 's/^x = scene.dt/x = dt_s/' -e 's/^metrics = status/metrics = dt_s, status/' \
        "$spec" >"$tmp/rows.ini"
    plan "$tmp/rows.ini" "$tmp/r" || exit 1
    [ "$(wc -l <"$tmp/r/jobs.txt")" -eq 4 ] || fail "not 4 runs (2 solvers x 2 stiffnesses)"
    sh "$run_script" "$tmp/r" --no-parallel >/dev/null 2>&1 || fail "rows run failed"
    merge "$tmp/r" 0 || exit 1
    rows=$(grep -c '	complete	' "$tmp/r/merged.tsv")
    [ "$rows" -eq 8 ] && ok "4 runs give 8 rows, one per summary row" || fail "$rows complete rows, expected 8"
    figure_ok "$tmp/r/rows.png" "figure over a collected column (dt_s)"
    plan "$spec" "$tmp/p" || exit 1
    sh "$run_script" "$tmp/p" --no-parallel >/dev/null 2>&1 || fail "points run failed"
    merge "$tmp/p" 0 || exit 1
    # solver, stiffness, dt, status from both tables, sorted.
    awk -F '\t' '$1 ~ /^[0-9]+$/ { print $3, $4 + 0, $6 + 0, $7 }' "$tmp/r/merged.tsv" | sort >"$tmp/r.txt"
    awk -F '\t' '$1 ~ /^[0-9]+$/ { print $3, $4 + 0, $5 + 0, $7 }' "$tmp/p/merged.tsv" | sort >"$tmp/p.txt"
    cmp -s "$tmp/r.txt" "$tmp/p.txt" && ok "rows and points give the same verdicts" ||
        { fail "rows and points differ"; diff "$tmp/r.txt" "$tmp/p.txt"; }
    ;;

bad_input)
    # expect_error NAME PATTERN: "sweep plan" of $tmp/bad.ini exits 2 with one line
    # matching PATTERN and writes no job list.
    expect_error() {
        rm -rf "$tmp/out"
        "$sweep" plan "$tmp/bad.ini" --out "$tmp/out" >"$tmp/$1.out" 2>"$tmp/$1.err"
        rc=$?
        if [ "$rc" -ne 2 ]; then
            fail "$1: exit status $rc, expected 2"
        elif [ "$(wc -l <"$tmp/$1.err")" -ne 1 ] || ! grep -q -e "$2" "$tmp/$1.err"; then
            fail "$1: stderr is not one line matching '$2':"
            sed 's/^/    /' "$tmp/$1.err"
        elif [ -f "$tmp/out/jobs.txt" ]; then
            fail "$1: a job list was written"
        else
            ok "$1: $(cat "$tmp/$1.err")"
        fi
    }
    # bad LINE_PATTERN REPLACEMENT: the tiny spec with one line replaced.
    bad() { sed "s|$1|$2|" "$spec" >"$tmp/bad.ini"; }
    bad '^name = tiny' 'name = tiny\ncolour = blue'
    expect_error unknown_key "bad.ini:4: sweep.colour: unknown key"
    bad '^\[figure\]' '[plots]'
    expect_error unknown_section "bad.ini:.*\[plots\]: unknown section"
    bad '^material.stretch_stiffness = 1e2.*' 'material.stretch_stiffness = 1e2:*0.5:1e6'
    expect_error bad_range "bad.ini:16: material.stretch_stiffness: '1e2:\*0.5:1e6' is not a range"
    bad '^scene.dt = 1/.*' 'scene.dt = 1/2000, -1'
    expect_error bad_value "bad.ini:17: scene.dt = -1: .*scene.dt"
    bad '^scene.dt = 1/.*' 'scene.dt = 1/2000, 0.0005'
    expect_error repeated_value "bad.ini:17: scene.dt: the value '0.0005' appears twice"
    bad '^  symplectic_euler' '  nosuch'
    expect_error bad_solver "bad.ini:6: sweep.solvers: unknown solver 'nosuch'"
    bad '^program = stability' 'program = collisions'
    expect_error bad_program "bad.ini:4: sweep.program: 'collisions' is not one of"
    bad '^scene.dt = --dts' 'mesh.nx = --nx'
    expect_error bad_pass "bad.ini:21: \[pass\] mesh.nx: not a key of \[axes\]"
    bad '^scene = hanging_cloth' 'scene = no_such_scene.ini'
    expect_error bad_scene "bad.ini:5: sweep.scene: 'no_such_scene.ini' is neither"
    bad '^mesh.nx = 5' 'mesh.nx = 5\nmesh.nx = 6'
    expect_error duplicate "bad.ini:13: set.mesh.nx: duplicate key"
    bad '^options = .*' 'options = --max-steps 20 --set mesh.nx=7'
    expect_error option_set "bad.ini:9: sweep.options: --set is the plan's to give"
    bad '^mesh.ny = 5' 'mesh.ny = 5\nscene.dt = 0.001'
    expect_error overridden "bad.ini:14: scene.dt: stability sets it itself; .*\[pass\] scene.dt = --dts"
    ;;

*)
    echo "sweep_jobs.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac

exit $failed
