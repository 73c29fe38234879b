#!/usr/bin/env bash
# Installs what the build needs (Debian packages, only those missing), then
# configures and builds the module standalone against Debian's ns-3 into build/.
# Idempotent: a second run installs nothing and rebuilds only what changed.
#
#   bash scripts/setup.sh            # RelWithDebInfo build in build/
#   bash scripts/setup.sh --sumo     # also SUMO (sumo, sumo-tools: examples/sumo-city)
#   BUILD_TYPE=Debug bash scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
sumo=
if [ "${1:-}" = "--sumo" ]; then
  sumo=1
elif [ -n "${1:-}" ]; then
  echo "setup: error: unknown option '$1' (valid: --sumo)" >&2
  exit 2
fi

packages=(
  cmake ninja-build g++ ccache pkg-config clang-format
  libns3-dev ns3                      # ns-3 3.37 (ns3 ships the helper binaries its CMake package lists)
  libgsl-dev libsqlite3-dev libxml2-dev  # needed to link against libns3
  libboost-dev nlohmann-json3-dev     # Boost.Math, JSON output
  coinor-libcbc-dev                   # COIN-OR CBC: ImpactHO's clairvoyant-bound MILP
  libgtest-dev libbenchmark-dev       # GoogleTest, Google Benchmark
  gnuplot-nox                         # PNG figures from ns-3's Gnuplot output
  libtcmalloc-minimal4                # a faster malloc for the programs (about 25 % less CPU)
  tshark                              # tests the Wireshark dissector (tools/)
  clang libclang-rt-14-dev            # the libFuzzer target (scripts/fuzz.sh)
  python3-sphinx                      # doc/edge-llm.rst with ns-3's Sphinx setup (scripts/check-doc.sh)
  slurm-wlm munge                     # the campaign tool's Slurm test (test/cli/campaign-slurm-test.sh)
)
if [ -n "$sumo" ]; then
  packages+=(sumo sumo-tools)         # SUMO 1.15: the city example's vehicles (examples/sumo-city)
fi

missing=()
for p in "${packages[@]}"; do
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then
      sudo="sudo"
    else
      echo "setup: error: need root (or sudo) to run: apt-get install ${missing[*]}" >&2
      exit 1
    fi
  fi
  # slurm-wlm and munge try to start their services (invoke-rc.d); without systemd (a
  # container) that fails and would fail apt: deny it for this install only. The Slurm
  # test starts its own daemons.
  policy=/usr/sbin/policy-rc.d
  added_policy=
  if [ ! -d /run/systemd/system ] && [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    added_policy=1
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  if [ -n "$added_policy" ]; then
    $sudo rm -f "$policy"
  fi
fi

build_type=${BUILD_TYPE:-RelWithDebInfo}
# Configure quietly, but show the module's own lines (ns-3 version, warnings, NR support).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type" | { grep -F -- "-- edge-llm:" || true; }
cmake --build build -- -j"$(nproc)"
