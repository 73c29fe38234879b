#!/usr/bin/env bash
# edge-llm-campaign's contract, on a stand-in program whose CSV is known in advance (a
# second or two): the run folders (command, RngRun, stdout/stderr, status, output), the
# merged mean and 95 % CI computed by hand (Student t with 2 degrees of freedom has the
# closed form t_p = (2p - 1) / sqrt(2 p (1 - p))), resuming (nothing to do; only the
# missing and failed runs), the Slurm dry run, and bad campaign files (exit 2).
#
# Usage: campaign-test.sh BIN_DIR
set -u
campaign=$1/edge-llm-campaign
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
passed=0
failed=0
check() { # check NAME CONDITION-COMMAND...
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
  fi
}

# The stand-in program: scheme a has two rows per run, delay = x*r and x*r + 2 (per-run
# mean x*r + 1, max x*r + 2); scheme b one row, delay 10; a constant text column "label".
# It fails for x = 2, RngRun = 2 while $tmp/fail exists.
cat >"$tmp/fake" <<EOF
#!/bin/bash
for a in "\$@"; do
  case \$a in
    --RngRun=*) r=\${a#*=} ;;
    --x=*) x=\${a#*=} ;;
    --out=*) d=\${a#*=} ;;
    --mode=*) ;;
    *) echo "unknown \$a" >&2; exit 2 ;;
  esac
done
echo "fake: x=\$x run=\$r"
[ -e "$tmp/fail" ] && [ "\$x" = 2 ] && [ "\$r" = 2 ] && { echo "failing on purpose" >&2; exit 3; }
mkdir -p "\$d"
{
  echo "scheme,delay,label,ue"
  echo "a,\$((x * r)),u,1"
  echo "a,\$((x * r + 2)),u,2"
  echo "b,10,u,1"
} >"\$d/m.csv"
EOF
chmod +x "$tmp/fake"
cat >"$tmp/c.json" <<EOF
{
  "program": "$tmp/fake",
  "options": {"mode": "fast"},
  "sweep": {"x": [1, 2]},
  "runs": 3,
  "outputDir": "$tmp/out",
  "outputOption": "out",
  "merge": {"files": ["m.csv"], "metrics": ["delay"], "perRun": ["mean", "max"]},
  "slurm": {"partition": "short", "time": "00:02:00", "mem": "500M", "maxParallel": 4}
}
EOF

# 1. First run: 6 runs on 2 cores, a progress line, the merge.
"$campaign" "$tmp/c.json" --jobs 2 >"$tmp/o1" 2>"$tmp/e1"
code=$?
check "first run exits 0 (got $code: $(cat "$tmp/e1"))" [ $code -eq 0 ]
check "first run: 0 of 6 done, running 6 on 2 cores" grep -q "^0 of 6 runs already done; running 6 on 2 cores$" "$tmp/o1"
check "progress line with ETA" grep -q "^\[c\] 6/6 runs done, 0 running, elapsed 0:0[0-9], ETA 0:00$" "$tmp/e1"
run=$tmp/out/runs/p001/run-3
check "run folder: command with RngRun" grep -q -- "--x=2 --RngRun=3 --out=$run/out" "$run/command.txt"
check "run folder: stdout" grep -q "^fake: x=2 run=3$" "$run/stdout.txt"
check "run folder: status" grep -q "^exit=0 wall_s=" "$run/status"
check "run folder: stderr file" [ -f "$run/stderr.txt" ]
check "run folder: output" [ -s "$run/out/m.csv" ]
check "points.csv" grep -q "^1,runs/p001,2$" "$tmp/out/points.csv"

# The expected merge, by hand: t_{0.975,2} = 0.95 / sqrt(0.04875) = 4.30265273;
# x = 1: per-run means 2,3,4 (s = 1), maxima 3,4,5; x = 2: means 3,5,7 (s = 2), maxima 4,6,8.
ci() { awk -v s="$1" 'BEGIN { printf "%.9g", 0.95 / sqrt(0.04875) * s / sqrt(3) }'; }
{
  echo "x,scheme,label,runs,delay_mean,delay_ci95,max_delay_mean,max_delay_ci95"
  echo "1,a,u,3,3,$(ci 1),4,$(ci 1)"
  echo "1,b,u,3,10,0,10,0"
  echo "2,a,u,3,5,$(ci 2),6,$(ci 2)"
  echo "2,b,u,3,10,0,10,0"
} >"$tmp/expected.csv"
check "merged CSV = hand calculation ($(ci 1), $(ci 2))" cmp -s "$tmp/expected.csv" "$tmp/out/merged/m.csv"
[ "$failed" -eq 0 ] || diff "$tmp/expected.csv" "$tmp/out/merged/m.csv"
check "gnuplot script per metric" test -s "$tmp/out/merged/m-delay.plt" -a -s "$tmp/out/merged/m-max_delay.plt"
check "figure table: one series per scheme" grep -q "^1,a u,3,$(ci 1)$" "$tmp/out/merged/m-delay.csv"
if command -v gnuplot >/dev/null; then
  check "PNG written" [ -s "$tmp/out/merged/m-max_delay.png" ]
fi

# 1b. Explicit keys: the scheme column and "ue" group the rows ("label", not a key now, is
# dropped); by hand, x = 1: (a,1) delays 1,2,3, (a,2) 3,4,5, (b,1) 10; x = 2: (a,1) 2,4,6,
# (a,2) 4,6,8, (b,1) 10. Merged from the finished runs (--merge only), then merged back.
sed 's/"metrics": \["delay"\], "perRun": \["mean", "max"\]/"keys": ["ue"], "metrics": ["delay"]/' \
  "$tmp/c.json" >"$tmp/k.json"
"$campaign" "$tmp/k.json" --merge >"$tmp/ok1" 2>"$tmp/ek1"
cp "$tmp/out/merged/m.csv" "$tmp/keys.csv"
"$campaign" "$tmp/c.json" --merge >/dev/null 2>&1
{
  echo "x,scheme,ue,runs,delay_mean,delay_ci95"
  echo "1,a,1,3,2,$(ci 1)"
  echo "1,a,2,3,4,$(ci 1)"
  echo "1,b,1,3,10,0"
  echo "2,a,1,3,4,$(ci 2)"
  echo "2,a,2,3,6,$(ci 2)"
  echo "2,b,1,3,10,0"
} >"$tmp/expected-keys.csv"
check "explicit keys: merged CSV = hand calculation ($(cat "$tmp/ek1"))" \
  cmp -s "$tmp/expected-keys.csv" "$tmp/keys.csv"
[ "$failed" -eq 0 ] || diff "$tmp/expected-keys.csv" "$tmp/keys.csv"
check "explicit keys: the merge line names them" grep -q "points x keys scheme, ue;" "$tmp/ok1"

# 2. Rerun: nothing to do, says so, touches nothing.
cp "$tmp/out/merged/m.csv" "$tmp/m1.csv"
"$campaign" "$tmp/c.json" >"$tmp/o2" 2>"$tmp/e2"
code=$?
check "rerun exits 0" [ $code -eq 0 ]
check "rerun: all 6 runs done; nothing to do" grep -q "^all 6 runs done; nothing to do$" "$tmp/o2"
check "rerun: no progress line (nothing ran)" [ ! -s "$tmp/e2" ]

# 3. A lost status and a lost output (the second now fails): only those two run again;
#    the failure stops the merge.
rm "$tmp/out/runs/p000/run-1/status" "$tmp/out/runs/p001/run-2/out/m.csv"
touch "$tmp/fail"
"$campaign" "$tmp/c.json" --jobs 1 >"$tmp/o3" 2>"$tmp/e3"
code=$?
check "failed run: exit 1" [ $code -eq 1 ]
check "failed run: 4 of 6 done, running 2" grep -q "^4 of 6 runs already done; running 2 on 1 core$" "$tmp/o3"
check "failed run: named, with its status" grep -q "^failed: $tmp/out/runs/p001/run-2 (exit=3): see its stderr.txt$" "$tmp/e3"
check "failed run: its stderr kept" grep -q "failing on purpose" "$tmp/out/runs/p001/run-2/stderr.txt"
check "failed run: not merged" grep -q "^error: not merged" "$tmp/e3"
"$campaign" "$tmp/c.json" --merge >"$tmp/o4" 2>"$tmp/e4"
check "--merge refuses while a run is missing (exit 1)" grep -q "^error: cannot merge: 1 of 6 runs are not done" "$tmp/e4"
rm "$tmp/fail"
"$campaign" "$tmp/c.json" --jobs 2 >"$tmp/o5" 2>"$tmp/e5"
check "retry: 5 of 6 done, running 1" grep -q "^5 of 6 runs already done; running 1 on 1 core$" "$tmp/o5"
check "retry: merged CSV as before" cmp -s "$tmp/m1.csv" "$tmp/out/merged/m.csv"

# 4. A changed campaign reruns every run whose command changed.
sed 's/"fast"/"slow"/' "$tmp/c.json" >"$tmp/c2.json"
"$campaign" "$tmp/c2.json" --dry-run >"$tmp/o6" 2>&1
check "changed options: all 6 to run again" grep -q "^0 of 6 runs already done; would run 6:$" "$tmp/o6"

# 5. Slurm dry run: the batch scripts, nothing submitted or written.
"$campaign" "$tmp/c.json" --slurm --dry-run --outputDir="$tmp/fresh" >"$tmp/o7" 2>&1
code=$?
check "slurm dry run exits 0 (got $code)" [ $code -eq 0 ]
for want in "0 of 6 runs already done; would submit 6" "#SBATCH --array=0-5%4" \
  "#SBATCH --partition=short" "#SBATCH --time=00:02:00" "#SBATCH --mem=500M" \
  "#SBATCH --cpus-per-task=1" "--task=\$((SLURM_ARRAY_TASK_ID + 0)) --runList=$tmp/fresh/slurm/submit-1/runs.txt" \
  "$tmp/c.json --outputDir=$tmp/fresh --merge" "dependency=afterany:<array job ids>"; do
  check "slurm dry run shows '$want'" grep -qF -- "$want" "$tmp/o7"
done
check "slurm dry run writes nothing" [ ! -e "$tmp/fresh" ]
# A blank in the output folder would cut the #SBATCH lines short: refused, nothing written.
"$campaign" "$tmp/c.json" --slurm --dry-run --outputDir="$tmp/with blank" >"$tmp/o7b" 2>&1
code=$?
check "slurm: blank in --outputDir exits 2 (got $code)" [ $code -eq 2 ]
check "slurm: blank in --outputDir named" grep -qF -- "--slurm: --outputDir '$tmp/with blank' holds a blank" "$tmp/o7b"
check "slurm: blank in --outputDir writes nothing" [ ! -e "$tmp/with blank" ]

# 6. --task runs one line of a run list, as a Slurm array task does.
printf '%s\n' "$tmp/out/runs/p000/run-2" >"$tmp/list"
rm "$tmp/out/runs/p000/run-2/status"
"$campaign" --task=0 --runList="$tmp/list" >"$tmp/o8" 2>&1
check "--task: runs the listed run, writes its status" grep -q "^exit=0 " "$tmp/out/runs/p000/run-2/status"

# 7. Bad input: exit 2 and one line naming the field and the valid range.
bad() { # bad NAME JSON-EDIT EXPECTED-MESSAGE
  sed "$2" "$tmp/c.json" >"$tmp/bad.json"
  "$campaign" "$tmp/bad.json" --dry-run >"$tmp/ob" 2>"$tmp/eb"
  local code=$?
  if [ $code -eq 2 ] && grep -qF -- "$3" "$tmp/eb"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: bad input $1: exit $code, stderr: $(cat "$tmp/eb")"
  fi
}
bad "runs 0" 's/"runs": 3/"runs": 0/' '"runs": must be an integer in [1, 100000], got 0'
bad "unknown key" 's/"runs": 3/"runz": 3/' 'unknown key "runz"'
bad "no program" "s|\"$tmp/fake\"|\"no-such-program\"|" '"program": '"'"'no-such-program'"'"' is not an executable'
bad "RngRun swept" 's/"x": \[1, 2\]/"RngRun": [1, 2]/' "option 'RngRun' is set twice or is set by the campaign itself"
bad "empty sweep" 's/"x": \[1, 2\]/"x": []/' '"sweep"."x": no values'
bad "range step" 's/"x": \[1, 2\]/"x": {"from": 1, "to": 2, "step": 0}/' '"step" must be a number > 0'
bad "no merge files" 's/"files": \["m.csv"\]/"files": []/' '"merge"."files": must list at least one CSV file'
bad "perRun" 's/"mean", "max"/"mean", "median"/' "'median': each must be one of mean, max, min, sum"
# A plot metric that no merge gives is refused before any run (it used to fail the merge
# after all runs); the merged names themselves are accepted.
bad "plot metric" 's/"runs": 3,/"runs": 3, "plot": {"metrics": ["mean_delay"]},/' \
  "\"plot\".\"metrics\": no merged metric 'mean_delay' (merged: delay, max_delay;"
sed 's/"runs": 3,/"runs": 3, "plot": {"metrics": ["delay", "max_delay"]},/' "$tmp/c.json" >"$tmp/plot.json"
check "plot metrics that the merge gives are accepted" sh -c "\"$campaign\" \"$tmp/plot.json\" --dry-run >/dev/null"
"$campaign" "$tmp/c.json" --jobs 0 >"$tmp/ob" 2>"$tmp/eb"
check "--jobs 0: exit 2 naming the range" grep -qF "error: --jobs: must be an integer in [1, 4096], got '0'" "$tmp/eb"

# 8. A range sweep: {"from": 1, "to": 2, "step": 0.5} gives 1, 1.5, 2.
sed 's/"x": \[1, 2\]/"x": {"from": 1, "to": 2, "step": 0.5}/' "$tmp/c.json" >"$tmp/r.json"
"$campaign" "$tmp/r.json" --dry-run --outputDir="$tmp/range" >"$tmp/o9" 2>&1
check "range: 3 points x 3 runs" grep -q "^0 of 9 runs already done; would run 9:$" "$tmp/o9"
check "range: x = 1.5" grep -q -- "--x=1.5 --RngRun=1" "$tmp/o9"

# 9. A second invocation while the first still runs the campaign is refused (exit 1, the
# lock named) instead of starting the same runs again in the same folders.
cat >"$tmp/slow" <<EOF
#!/bin/bash
for i in \$(seq 50); do [ -e "$tmp/hold" ] || break; sleep 0.1; done
exec "$tmp/fake" "\$@"
EOF
chmod +x "$tmp/slow"
sed "s|\"$tmp/fake\"|\"$tmp/slow\"|" "$tmp/c.json" >"$tmp/slow.json"
touch "$tmp/hold"
"$campaign" "$tmp/slow.json" --jobs 1 --outputDir="$tmp/lock" >"$tmp/o10" 2>"$tmp/e10" &
first=$!
for i in $(seq 100); do [ -e "$tmp/lock/runs/p000/run-1/command.txt" ] && break; sleep 0.1; done
"$campaign" "$tmp/slow.json" --jobs 1 --outputDir="$tmp/lock" >"$tmp/o11" 2>"$tmp/e11"
code=$?
check "second invocation refused while the first runs (exit $code: $(cat "$tmp/e11"))" \
  [ $code -eq 1 ]
check "second invocation names the lock" grep -qF "$tmp/lock/.lock is locked" "$tmp/e11"
rm -f "$tmp/hold"
wait $first
code=$?
check "the first invocation still completes (exit $code: $(tail -1 "$tmp/e10"))" [ $code -eq 0 ]

# Every campaign file the project ships is accepted: its program, options, sweep, merge and
# Slurm settings load, and the dry run lists its runs with the program's options.
src=$(cd "$(dirname "$0")/../.." && pwd)
for f in "$src"/examples/campaigns/*.json; do
  "$campaign" "$f" --dry-run --outputDir="$tmp/shipped" >"$tmp/o12" 2>"$tmp/e12"
  code=$?
  check "shipped ${f##*/}: dry run accepted (exit $code: $(head -1 "$tmp/e12"))" [ $code -eq 0 ]
  check "shipped ${f##*/}: lists its runs" grep -q -- "--RngRun=1 " "$tmp/o12"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
