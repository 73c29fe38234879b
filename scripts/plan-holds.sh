#!/usr/bin/env bash
# Do the packet-level plans hold? Random small backhaul studies (issue 23's yardstick):
# each draw picks 2-4 UEs per site on 7 hex sites, a star, ring or mesh backhaul, a FIFO,
# RED or FqCoDel queue disc in the KV band, a cross-traffic load in {0, 0.2, 0.4, 0.6}
# and q = 8 or 16 bits, and runs ctHO, tHO and cHO on it (edge-llm-backhaul-study, run
# number = the draw). Per draw it prints each scheme's worst target-side restore, the UEs
# whose restore is outside 5 % + 2 ms of their plan and the worst |restored - planned|,
# and whether ctHO's worst restore is <= min(tHO, cHO); then a summary line. A
# measurement, not a test: the exit status is 0 unless a run fails.
#
# Usage: scripts/plan-holds.sh [DRAWS=12] [SEED=23] [extra study options, e.g.
#        --ns3::EdgeLlmTargetRole::LossAwareReplanning=false]
# Needs build/bin/edge-llm-backhaul-study (standalone build). About 20-60 s per draw.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
draws=${1:-12}
seed=${2:-23}
shift 2 || shift $# || true
bin="$here/build/bin/edge-llm-backhaul-study"
[ -x "$bin" ] || { echo "plan-holds.sh: $bin not built" >&2; exit 2; }
for n in "$draws" "$seed"; do
  case "$n" in
  '' | *[!0-9]* | 0) echo "plan-holds.sh: DRAWS and SEED must be positive integers, got '$n'" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$draws" "$seed" >"$tmp/draws" <<'PY'
import random, sys
draws, seed = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
for k in range(1, draws + 1):
    print(k, rng.choice([2, 3, 4]), rng.choice(['star', 'ring', 'mesh']),
          rng.choice(['ns3::FifoQueueDisc', 'ns3::RedQueueDisc', 'ns3::FqCoDelQueueDisc']),
          rng.choice([0, 0.2, 0.4, 0.6]), rng.choice([8, 16]))
PY
printf '%-4s %-4s %-5s %-17s %-5s %-3s %-26s %-12s %-24s %s\n' draw ues bh queue load q \
  "worst restore ctho/tho/cho" "outside" "worst |error| (ms)" "ctho best"
while read -r k u b q l kv; do
  out="$tmp/d$k"
  if ! "$bin" --uesPerSite="$u" --backhaul="$b" --queueDisc="$q" --loads="$l" --kvBits="$kv" \
    --RngRun="$k" --schemes=ctho,tho,cho --outputDir="$out" "$@" >"$tmp/d$k.log" 2>&1; then
    echo "plan-holds.sh: draw $k failed:" >&2
    tail -5 "$tmp/d$k.log" >&2
    exit 1
  fi
  python3 - "$k" "$u" "$b" "$q" "$l" "$kv" "$out/backhaul-study.csv" >>"$tmp/rows" <<'PY'
import csv, sys
k, u, b, q, l, kv, path = sys.argv[1:]
rows = {r['scheme']: r for r in csv.DictReader(open(path))}
worst = {s: float(rows[s]['restored_worst_s']) for s in ('ctho', 'tho', 'cho')}
outside = '/'.join(rows[s]['plan_outside'] for s in ('ctho', 'tho', 'cho'))
error = '/'.join('%.1f' % (1e3 * float(rows[s]['plan_error_worst_s'])) for s in ('ctho', 'tho', 'cho'))
best = worst['ctho'] <= min(worst['tho'], worst['cho']) + 1e-9
holds = all(rows[s]['plan_outside'] == '0' for s in ('ctho', 'tho', 'cho'))
print('%-4s %-4s %-5s %-17s %-5s %-3s %-26s %-12s %-24s %-3s|%d %d' % (
    k, u, b, q.split('::')[1], l, kv,
    '/'.join('%.4f' % worst[s] for s in ('ctho', 'tho', 'cho')), outside, error,
    'yes' if best else 'NO', holds, best))
PY
  tail -1 "$tmp/rows" | cut -d'|' -f1
done <"$tmp/draws"
awk -F'|' '{ split($2, f, " "); h += f[1]; c += f[2]; n++ }
     END { printf "%d draws: every plan within 5 %% + 2 ms on %d; ctHO worst <= min(tHO, cHO) on %d\n", n, h, c }' \
  "$tmp/rows"
