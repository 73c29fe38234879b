#!/usr/bin/env bash
# edge-llm-campaign against a real Slurm (issue 13): starts its own munged, slurmctld and
# slurmd (Debian's slurm-wlm and munge; one node = this host with its CPUs and memory,
# non-cgroup plugins), runs a small campaign of the main example (2 schemes x 3 backhaul
# rates x 3 runs of edge-llm-lte-handover) once locally and once as a Slurm job array with
# its dependent merge job, and requires the two merged CSVs to be byte-identical. Then it
# deletes two runs' status and resubmits: only those two are submitted, the merged CSV is
# the same again, and a third submission has nothing to do. Every daemon it started is
# stopped on exit. If Slurm cannot start, the test FAILS with the reason (no skip).
#
# Usage: campaign-slurm-test.sh BIN_DIR        (as root: munged runs as the munge user)
set -u
bin=$1
fail() {
  echo "FAIL: $*"
  exit 1
}
[ "$(id -u)" -eq 0 ] || fail "needs root (starts munged as user munge and slurmd as root)"
for p in munged munge slurmctld slurmd sbatch squeue sinfo scontrol runuser; do
  command -v "$p" >/dev/null || fail "'$p' not found: install slurm-wlm and munge (scripts/setup.sh)"
done
[ -x "$bin/edge-llm-campaign" ] && [ -x "$bin/edge-llm-lte-handover" ] \
  || fail "no edge-llm-campaign / edge-llm-lte-handover in $bin"

tmp=$(mktemp -d /tmp/edge-llm-slurm.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$tmp/slurmctld.pid" ]; then
    scancel --quiet --user=root 2>/dev/null || true
  fi
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  [ -f "$tmp/munge/pid" ] && kill "$(cat "$tmp/munge/pid")" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
logs() {
  for f in "$tmp"/slurmctld.log "$tmp"/slurmd.log "$tmp"/munge/log; do
    [ -f "$f" ] && { echo "--- tail $f"; tail -n 15 "$f"; }
  done
}

# munged on its own socket and key copy (the system's munge, if any, is left alone).
key=/etc/munge/munge.key
mkdir -p "$tmp/munge"
if [ -r "$key" ]; then
  cp "$key" "$tmp/munge/key"
else
  dd if=/dev/urandom of="$tmp/munge/key" bs=128 count=1 status=none
fi
chown -R munge:munge "$tmp/munge"
chmod 711 "$tmp/munge"
chmod 400 "$tmp/munge/key"
sock=$tmp/munge/sock
runuser -u munge -- munged --socket="$sock" --key-file="$tmp/munge/key" \
  --pid-file="$tmp/munge/pid" --log-file="$tmp/munge/log" --seed-file="$tmp/munge/seed" \
  || { logs; fail "munged did not start"; }
munge -S "$sock" -n | unmunge -S "$sock" >/dev/null || { logs; fail "munge credential round trip failed"; }

# A one-node cluster: this host with its real CPUs and memory (minus 512 MB).
host=$(hostname -s)
cpus=$(nproc)
mem=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512))
port=$((20000 + RANDOM % 20000))
mkdir -p "$tmp/state" "$tmp/spool"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=edgellmtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=edgellm Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 60); do
  state=$(sinfo -h -N -n "$host" -o %t 2>/dev/null)
  [ "$state" = "idle" ] && break
  sleep 0.5
done
[ "$state" = "idle" ] || { logs; fail "Slurm did not start: node $host is '$state', not idle after 30 s"; }
echo "slurm: controller and node $host up ($cpus CPUs, $mem MB), port $port"

# The campaign: short runs of the main example (2 UEs, small contexts).
cat >"$tmp/campaign.json" <<EOF
{
  "name": "slurm-test",
  "program": "edge-llm-lte-handover",
  "options": {"numUes": 2, "contextMin": 512, "contextMax": 1024, "tokensAfterHandover": 20},
  "sweep": {"schemes": ["ctho", "cho"], "backhaulGbps": [1, 2, 4.5]},
  "runs": 3,
  "merge": {"files": ["handover-delays.csv"], "keys": [],
            "metrics": ["restored_s", "measured_delay_s", "transfer_tokens"],
            "perRun": ["mean", "max"]},
  "plot": {"x": "backhaulGbps"},
  "slurm": {"partition": "edgellm", "time": "00:05:00", "cpusPerTask": 1, "mem": "1G"}
}
EOF
campaign=$bin/edge-llm-campaign

# Locally on this machine's cores.
"$campaign" "$tmp/campaign.json" --outputDir="$tmp/local" --jobs 2 >"$tmp/local.out" 2>"$tmp/local.err" \
  || { cat "$tmp/local.out" "$tmp/local.err"; fail "local campaign failed"; }
grep -q "^0 of 18 runs already done; running 18 on 2 cores" "$tmp/local.out" \
  || { cat "$tmp/local.out"; fail "local: no '0 of 18 runs already done' line"; }
merged=merged/handover-delays.csv
[ -s "$tmp/local/$merged" ] || fail "local: no $merged"

# The dry run prints the batch scripts and submits nothing.
"$campaign" "$tmp/campaign.json" --outputDir="$tmp/slurm" --slurm --dry-run >"$tmp/dry.out" 2>&1 \
  || { cat "$tmp/dry.out"; fail "dry run failed"; }
for want in "#SBATCH --array=0-17" "#SBATCH --partition=edgellm" "#SBATCH --mem=1G" \
  "#SBATCH --time=00:05:00" "--runList=" "--merge" "would submit 18"; do
  grep -qF -- "$want" "$tmp/dry.out" || { cat "$tmp/dry.out"; fail "dry run: no '$want'"; }
done
[ -z "$(squeue -h)" ] && [ ! -e "$tmp/slurm/runs" ] || fail "dry run submitted or wrote something"

# wait_merge: waits for the campaign's last merge job to leave the queue, checks it ran OK.
wait_merge() {
  local id
  id=$(awk '$1 == "merge" {id = $2} END {print id}' "$tmp/slurm/slurm/jobs")
  [ -n "$id" ] || fail "no merge job id in $tmp/slurm/slurm/jobs"
  for _ in $(seq 900); do
    [ -z "$(squeue -h -j "$id" 2>/dev/null)" ] && break
    sleep 1
  done
  [ -z "$(squeue -h -j "$id" 2>/dev/null)" ] || { squeue; logs; fail "merge job $id still queued after 900 s"; }
  scontrol show job "$id" | grep -q "JobState=COMPLETED .*" \
    || { scontrol show job "$id"; cat "$tmp"/slurm/slurm/submit-*/logs/* 2>/dev/null | tail -n 30; fail "merge job $id did not complete"; }
}

# On Slurm: one array job of 18 tasks and the merge job after it.
"$campaign" "$tmp/campaign.json" --outputDir="$tmp/slurm" --slurm >"$tmp/submit.out" 2>&1 \
  || { cat "$tmp/submit.out"; logs; fail "submission failed"; }
cat "$tmp/submit.out"
grep -q "^0 of 18 runs already done; submitting 18" "$tmp/submit.out" || fail "no 'submitting 18' line"
wait_merge
hosts=$(cat "$tmp"/slurm/runs/p*/run-*/status | sed 's/.*host=//' | sort -u | tr '\n' ' ')
logs_n=$(ls "$tmp"/slurm/slurm/submit-1/logs/run-*.out | wc -l)
[ "$logs_n" -eq 18 ] || fail "expected 18 array task logs, found $logs_n"
cmp "$tmp/local/$merged" "$tmp/slurm/$merged" \
  || { diff "$tmp/local/$merged" "$tmp/slurm/$merged" | head; fail "merged CSV differs: local vs Slurm"; }
echo "slurm: 18 array tasks (hosts: $hosts) + merge job; merged CSV identical to the local run ($(wc -l <"$tmp/local/$merged") lines)"

# Resumable: two runs lost -> only those two are submitted; the merge is the same again.
rm "$tmp"/slurm/runs/p001/run-2/status "$tmp"/slurm/runs/p004/run-3/status
rm "$tmp/slurm/$merged"
"$campaign" "$tmp/campaign.json" --outputDir="$tmp/slurm" --slurm >"$tmp/resubmit.out" 2>&1 \
  || { cat "$tmp/resubmit.out"; fail "resubmission failed"; }
cat "$tmp/resubmit.out"
grep -q "^16 of 18 runs already done; submitting 2$" "$tmp/resubmit.out" || fail "no 'submitting 2' line"
grep -q "^#SBATCH --array=0-1$" "$tmp"/slurm/slurm/submit-2/array-1.sbatch || fail "resubmitted array is not 0-1"
wait_merge
cmp "$tmp/local/$merged" "$tmp/slurm/$merged" || fail "merged CSV after the resubmission differs"
"$campaign" "$tmp/campaign.json" --outputDir="$tmp/slurm" --slurm >"$tmp/again.out" 2>&1 \
  || { cat "$tmp/again.out"; fail "third submission failed"; }
grep -q "^all 18 runs done; nothing to do$" "$tmp/again.out" || { cat "$tmp/again.out"; fail "third submission did not say 'nothing to do'"; }
[ ! -e "$tmp/slurm/slurm/submit-3" ] || fail "third submission submitted something"
echo "slurm: resubmission ran 2 of 18 runs, merged CSV identical; third: nothing to do"
echo "1 passed, 0 failed"
