#!/usr/bin/env bash
# Share of CPU time by ns-3 module for one mid-size point of edge-llm-scale-bench (the LTE
# road, ctHO, K UEs, 100 tokens after each handover), from `perf record` with DWARF call
# stacks. Each sample counts for the first ns-3 library on its stack, walking from the
# leaf up, so malloc/free, libstdc++ and libm time goes to the ns-3 module that called
# them; samples with no ns-3 frame are "other" (kernel, loader, process start).
#
# Usage: scripts/profile-scale.sh [K=50] [extra program options, e.g. --amcModel=PiroEW2010]
# Needs perf (linux-perf) with perf_event_paranoid <= 2 (check: perf stat -e instructions true).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
k=${1:-50}
shift || true
bin="$here/build/bin/edge-llm-lte-handover"
[ -x "$bin" ] || { echo "profile-scale.sh: $bin not built" >&2; exit 2; }
case "$k" in
'' | *[!0-9]*) echo "profile-scale.sh: K must be a positive integer, got '$k'" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf record -q -F 199 --call-graph dwarf,16384 -o "$tmp/perf.data" -- \
    "$bin" --numUes="$k" --schemes=ctho --tokensAfterHandover=100 --outputDir="$tmp/out" "$@" \
    >"$tmp/run.log" 2>&1
perf script -i "$tmp/perf.data" -F ip,sym,dso 2>/dev/null | python3 -c '
import re, sys
from collections import Counter
groups = [("lte", "LTE (lte, spectrum, antenna, propagation)", ("lte", "spectrum", "antenna", "propagation", "buildings")),
          ("edge-llm", "edge-llm (our code)", ("edge-llm",)),
          ("internet", "TCP/IP (internet: TCP, IPv4, routing)", ("internet",)),
          ("network", "packets (network: Packet, Buffer, tags, queues; LTE and TCP alike)", ("network",)),
          ("links", "backhaul links (point-to-point, traffic-control, csma), applications",
           ("traffic-control", "point-to-point", "csma", "applications", "bridge")),
          ("core", "ns-3 core (scheduler, events, Ptr, attributes, logging)", ("core",)),
          ("other-ns3", "other ns-3 modules (mobility, stats, ...)", ())]
def group(lib):
    m = re.search(r"libns3[.0-9]*-([a-z0-9-]+?)(?:-(?:default|debug|release|optimized))?\.so", lib)
    if not m:
        return None
    mod = m.group(1)
    for key, _, mods in groups:
        if mod in mods or (key == "edge-llm" and mod.startswith("edge-llm")):
            return key
    return "other-ns3"
counts = Counter()
frames = []
def flush():
    if frames:
        g = next((x for x in (group(f) for f in frames) if x), "other")
        counts[g] += 1
for line in sys.stdin:
    line = line.rstrip()
    if not line:
        flush(); frames = []; continue
    m = re.search(r"\(([^()]*)\)\s*$", line)
    if m and line.startswith((" ", "\t")):
        frames.append(m.group(1))
flush()
total = sum(counts.values()) or 1
names = dict((k, n) for k, n, _ in groups)
names["other"] = "other (no ns-3 frame: kernel, loader, libc start-up)"
print("samples: %d" % total)
for key, n in counts.most_common():
    print("%6.1f %%  %s" % (100.0 * n / total, names[key]))
print("edge_llm_share=%.3f" % (counts["edge-llm"] / total))
'
