#!/bin/sh
# run.sh TARGET FUZZER SEEDS WORK — runs one libFuzzer target of tests/fuzz: first every
# seed of SEEDS (the committed corpus) and of WORK/corpus once, as single inputs (a crash,
# leak, UB report, timeout or the 2 GiB memory limit fails the run); then, if
# WEFT_FUZZ_SECONDS is a number > 0, that many seconds of fuzzing from those inputs: new
# inputs go to WORK/corpus, a failing input to WORK/crashes/ (replay it with
# "FUZZER FILE"). ctest runs it with WORK in build-fuzz/, "./weft fuzz" with WORK =
# results/fuzz/TARGET. Ends with one line: replayed inputs, executions, coverage, and the
# executions of all runs that WORK/history.tsv records.
# POSIX sh.
set -u
usage="usage: run.sh TARGET FUZZER SEEDS WORK"
target=${1:?$usage}
fuzzer=${2:?$usage}
seeds=${3:?$usage}
work=${4:?$usage}
seconds=${WEFT_FUZZ_SECONDS:-0}
case $seconds in
  ''|*[!0-9]*) echo "run.sh: WEFT_FUZZ_SECONDS='$seconds' is not a whole number of seconds" >&2
               exit 2 ;;
esac

# The limits of every run: 2 GiB of memory (a size check that is missing shows up as an
# out-of-memory crash), 30 s per input (the largest models a scene may build take about
# 2.5 s under the sanitizers alone, and a loaded CI machine slows that several times: a
# 10 s limit reported such inputs as hangs), and an input size that holds the largest seed.
case $target in
  compare) max_len=512 ;;
  scene) max_len=4096 ;;
  *) max_len=8192 ;;
esac
limits="-rss_limit_mb=2048 -timeout=30 -max_len=$max_len"

mkdir -p "$work/corpus" "$work/crashes" || exit 2
log="$work/last.log"

# Replay: each file once. No fuzzing here, so the inputs' own sizes count, not max_len.
n=0
for f in "$seeds"/* "$work"/corpus/*; do
  [ -f "$f" ] && n=$((n + 1))
done
if [ "$n" -eq 0 ]; then
  echo "FAIL: fuzz.$target: no seeds in $seeds"
  exit 1
fi
# shellcheck disable=SC2086  # $limits is a list of options
if ! find "$seeds" "$work/corpus" -type f -exec "$fuzzer" -rss_limit_mb=2048 -timeout=30 {} + \
     >"$log" 2>&1; then
  grep -v '^Running: \|^Executed ' "$log" | tail -n 60
  echo "FAIL: fuzz.$target: an input of the corpus fails (log: $log)"
  exit 1
fi
replayed=$(grep -c '^Executed ' "$log")
if [ "$replayed" -ne "$n" ]; then
  echo "FAIL: fuzz.$target: replayed $replayed of $n inputs (log: $log)"
  exit 1
fi
if [ "$seconds" -eq 0 ]; then
  echo "ok: fuzz.$target: replayed $n inputs (set WEFT_FUZZ_SECONDS to fuzz as well)"
  exit 0
fi

# Fuzzing: one process; stderr of the target is closed (libFuzzer keeps its own and the
# sanitizers' reports), so the readers' error messages do not flood the log.
rc=0
# shellcheck disable=SC2086  # $limits is a list of options
"$fuzzer" $limits -max_total_time="$seconds" -print_final_stats=1 -close_fd_mask=2 \
  -artifact_prefix="$work/crashes/" "$work/corpus" "$seeds" >"$log" 2>&1 || rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
done_line=$(grep -a '^#[0-9]*[[:space:]]*DONE' "$log" | tail -n 1) # -a: inputs printed into the log may hold NUL bytes
cov=$(echo "$done_line" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
ft=$(echo "$done_line" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
if [ "$rc" -ne 0 ]; then
  tail -n 80 "$log"
  echo "FAIL: fuzz.$target: the fuzzer found a failing input (exit $rc); see $work/crashes/"
  exit 1
fi
# The run's figures, one line appended to WORK/history.tsv, so the executions of many runs
# add up (the total is printed): date (UTC), seconds, executions, edges, features.
hist="$work/history.tsv"
[ -f "$hist" ] || printf 'date\tseconds\texecutions\tedges\tfeatures\n' >"$hist"
printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$seconds" "${execs:-0}" \
  "${cov:-?}" "${ft:-?}" >>"$hist"
total=$(awk -F'\t' 'NR > 1 { s += $3 } END { printf "%d", s }' "$hist")
echo "ok: fuzz.$target: replayed $n inputs; fuzzed ${seconds} s: ${execs:-?} executions," \
     "coverage ${cov:-?} edges, ${ft:-?} features; corpus $work/corpus;" \
     "$total executions in all runs ($hist)"
