#!/usr/bin/env bash
# SUMO end to end: a small city's vehicles hand their edge-LLM sessions over between four
# LTE sites (examples/sumo-city/city-sites.csv), at packet level, for ctHO, tHO, cHO and
# pre-ctho.
#
#   1. netgenerate: a 3 x 3 grid of 200 m blocks (priority junctions, 50 km/h);
#   2. randomTrips.py: a vehicle every PERIOD s for DEPART s, trips of 300 m at least;
#   3. sumo: drives them, writing floating-car data (FCD) every second;
#   4. traceExporter.py: the FCD as an ns-2 mobility trace and its activity file;
#   5. edge-llm-backhaul-study --siteFile=... --mobilityTrace=... --mobilityActivity=...:
#      one UE per vehicle, every strongest-cell change a handover; per run the handover
#      records and map-<run>.png (sites, trajectories, handovers coloured by delay).
#
# Needs SUMO (Debian's sumo and sumo-tools: bash scripts/setup.sh --sumo) and a build of
# the module (bash scripts/setup.sh). Usage:
#
#   bash examples/sumo-city/edge-llm-sumo-city.sh [--seed=N] [--depart=S] [--period=S]
#        [--outputDir=DIR] [study options, e.g. --schemes=ctho,tho --loads=0,0.5]
#
# The SUMO seed is --seed (default 1); the study's own is ns-3's --RngRun. Same seed, same
# files. Exit codes: the study's (0 done, 1 incomplete or a file not written, 2 bad input);
# 2 if SUMO is missing or a SUMO step fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
seed=1
depart=24
period=2
out=results/edge-llm-sumo-city
study=()
for arg in "$@"; do
  case "$arg" in
    --seed=*) seed=${arg#*=} ;;
    --depart=*) depart=${arg#*=} ;;
    --period=*) period=${arg#*=} ;;
    --outputDir=*) out=${arg#*=} ;;
    --seed | --depart | --period | --outputDir)
      echo "error: $arg needs a value: $arg=VALUE" >&2
      exit 2
      ;;
    *) study+=("$arg") ;;
  esac
done
for option in seed depart period; do
  value=${!option}
  if ! [[ "$value" =~ ^[0-9]{1,4}$ ]] || [ "$value" -lt 1 ] || [ "$value" -gt 3600 ]; then
    echo "error: --$option must be a whole number in [1, 3600], got '$value'" >&2
    exit 2
  fi
done
# randomTrips departs a vehicle every period s in [0, depart): at most 100 (the study's limit).
vehicles=$(((depart + period - 1) / period))
if [ "$vehicles" -gt 100 ]; then
  echo "error: --depart / --period = $depart / $period gives $vehicles vehicles; the study takes" \
    "at most 100 (every one may be in one cell): raise --period or lower --depart" >&2
  exit 2
fi
export SUMO_HOME=${SUMO_HOME:-/usr/share/sumo}
for tool in netgenerate sumo; do
  if ! command -v "$tool" > /dev/null; then
    echo "error: $tool not found: install SUMO with 'bash scripts/setup.sh --sumo'" >&2
    exit 2
  fi
done
if [ ! -f "$SUMO_HOME/tools/traceExporter.py" ]; then
  echo "error: $SUMO_HOME/tools/traceExporter.py not found: install sumo-tools" \
    "('bash scripts/setup.sh --sumo') or set SUMO_HOME" >&2
  exit 2
fi
bin=${EDGE_LLM_BIN_DIR:-$repo/build/bin}
if [ ! -x "$bin/edge-llm-backhaul-study" ]; then
  echo "error: $bin/edge-llm-backhaul-study not found: build with 'bash scripts/setup.sh'" \
    "(or set EDGE_LLM_BIN_DIR)" >&2
  exit 2
fi

city=$out/sumo
if ! mkdir -p "$city" 2> /dev/null || [ ! -w "$city" ]; then
  echo "error: --outputDir: cannot write to '$out'" >&2
  exit 2
fi
step() { # a SUMO step, quiet unless it fails
  if ! "$@" > "$city/step.log" 2>&1; then
    cat "$city/step.log" >&2
    echo "error: SUMO step failed: $*" >&2
    exit 2
  fi
}
step netgenerate --grid --grid.number=3 --grid.length=200 --default.speed=13.89 \
  --default-junction-type=priority --seed="$seed" -o "$city/city.net.xml"
step python3 "$SUMO_HOME/tools/randomTrips.py" -n "$city/city.net.xml" -b 0 -e "$depart" \
  -p "$period" --seed "$seed" --min-distance 300 -o "$city/trips.xml" -r "$city/routes.rou.xml"
step sumo -n "$city/city.net.xml" -r "$city/routes.rou.xml" --fcd-output "$city/fcd.xml" \
  --step-length 1 --seed "$seed" --no-step-log true
step python3 "$SUMO_HOME/tools/traceExporter.py" --fcd-input "$city/fcd.xml" \
  --ns2mobility-output "$city/city.ns2" --ns2activity-output "$city/city.activity"
echo "edge-llm-sumo-city: $(grep -c 'set X_' "$city/city.ns2") vehicles (SUMO seed $seed)," \
  "trace in $city/city.ns2"

exec "$bin/edge-llm-backhaul-study" --siteFile="$here/city-sites.csv" \
  --mobilityTrace="$city/city.ns2" --mobilityActivity="$city/city.activity" \
  --schemes=ctho,tho,cho,pre-ctho --loads=0 --outputDir="$out" "${study[@]}"
