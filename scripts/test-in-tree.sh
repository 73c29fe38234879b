#!/usr/bin/env bash
# Builds the module inside an ns-3 source tree and runs its tests there, the way an ns-3 user
# does (test.py), for one of the ns-3 versions the README's compatibility table lists.
#
#   bash scripts/test-in-tree.sh VERSION [SOURCE] [--compile-only]
#
#   VERSION  3.35      ns-3.35, waf (./waf configure; the module's wscript)
#            3.46+nr   ns-3.46 with 5G-LENA nr v4.1.1 at contrib/nr (NR support on)
#            3.48      ns-3.48, CMake
#   SOURCE   where the release tarballs are (ns-3.X.tar.gz, nr-v4.1.1.tar.gz):
#            default ${EDGE_LLM_THIRD_PARTY:-<repo>/../shared/third-party}; or "git" to clone
#            the same tags from the upstream repositories (NS3_GIT_URL, NR_GIT_URL override).
#   --compile-only  the compile gate: configure the tree (which generates ns-3's headers) and
#            compile every translation unit of the module, its examples and tests, and the
#            scratch/ user program, against that release, without building ns-3's libraries
#            (minutes, also cold); ends "N passed, N failed" counting translation units.
#
# The extracted tree and its build stay in ${EDGE_LLM_CACHE:-~/.cache/edge-llm}/VERSION, with a
# ccache in ${EDGE_LLM_CACHE}/ccache: a second run rebuilds only what changed (an extracted
# tree is reused; delete its folder to extract again). The module is copied (rsync) to
# contrib/edge-llm; only the modules it needs are configured. CMake (3.46, 3.48): examples
# and tests filtered to edge-llm, -Werror on the module's own code. waf (3.35): ns-3's
# -Werror off (g++ 12 warns in ns-3.35's own code), no Python bindings.
# Runs every edge-llm-* TestSuite with test.py, the examples of test/examples-to-run.py, and
# the user program test/install/user-program.cc as a scratch/ program; with nr, the NR sets of
# test/data/golden (test/cli/golden-outputs-test.sh). Ends with one line
# "N passed, N failed"; exit status 0 only if nothing failed.
#
# Changes made to the extracted upstream trees (minimal, needed to build with Debian 12's
# g++ 12; each is printed when applied):
#   ns-3.46  src/core/model/test.cc: add #include <algorithm> (std::find used without it)
#   nr v4.1.1  model/nr-ue-phy.cc: scripts/patches/nr-v4.1.1-ue-phy-handover-races.patch, a
#            fix (not a build need): a handover command that gives the UE a new RNTI and cell
#            between a DL DCI (or a SIB1) of its old cell and its processing made NrUePhy::DlData
#            (or NrUeRrc's SIB1 check) assert; both are now dropped (doc/edge-llm.rst,
#            "Workarounds for nr v4.1.1")
set -euo pipefail

usage() {
  echo "test-in-tree: error: $1" >&2
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
compile_only=0
args=()
for a in "$@"; do
  case "$a" in
    --compile-only) compile_only=1 ;;
    -*) usage "unknown option '$a' (the only option is --compile-only)" ;;
    *) args+=("$a") ;;
  esac
done
[ ${#args[@]} -ge 1 ] || usage "VERSION is missing: one of 3.35, 3.46+nr, 3.48"
[ ${#args[@]} -le 2 ] || usage "too many arguments (VERSION [SOURCE] [--compile-only])"
version=${args[0]}
source=${args[1]:-${EDGE_LLM_THIRD_PARTY:-}}
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$source" ] || source="$repo/../shared/third-party"
cache=${EDGE_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edge-llm}
jobs=${EDGE_LLM_JOBS:-$(nproc)}

# Modules the module links (and their dependencies come by themselves).
modules="lte;point-to-point;applications;internet;mobility;stats;config-store;flow-monitor;traffic-control;topology-read"
case "$version" in
  3.35) ns3=3.35 nr="" build=waf ;;
  3.46+nr) ns3=3.46 nr=v4.1.1 build=cmake ;;
  3.48) ns3=3.48 nr="" build=cmake ;;
  *)
    usage "VERSION must be one of 3.35, 3.46+nr, 3.48 (got '$version')"
    ;;
esac
declare -A sha256=(
  [ns-3.35.tar.gz]=5b657b4b4e080634b9a90eca02fff822cc0af12cb8866a246d3bad952d165706
  [ns-3.46.tar.gz]=b77ad4d7a9e3ce8401d42635514f5b53f634a94fd7974ae477e53683a24d3a3f
  [ns-3.48.tar.gz]=79ff9b26eea047f038e4e6776155fbbbdc4b7cad66b431eeb1c03f41597219c0
  [nr-v4.1.1.tar.gz]=286de1701987b65c29a252c656f4b6abcc3c5516d53334d8dd1c257c583fa05f
)

say() { echo "test-in-tree[$version]: $*"; }
top="$cache/$version/ns-$ns3"

verified_tarball() { # name: exit 2 unless $source/name exists with its known sha256
  local name=$1 path="$source/$1" sum
  if [ ! -f "$path" ]; then
    echo "test-in-tree: error: $path not found (SOURCE must be a folder with $name, or 'git')" >&2
    exit 2
  fi
  sum=$(sha256sum "$path" | cut -d' ' -f1)
  if [ "$sum" != "${sha256[$name]}" ]; then
    echo "test-in-tree: error: $path has sha256 $sum, expected ${sha256[$name]}" >&2
    exit 2
  fi
}

# An extracted tree is reused as it is (delete $cache/$version to extract again); a new
# one needs its sources, checked before anything is written.
if [ ! -f "$top/.edge-llm-extracted" ] && [ "$source" != git ]; then
  verified_tarball "ns-$ns3.tar.gz"
  [ -z "$nr" ] || verified_tarball "nr-$nr.tar.gz"
fi

# Debian packages the in-tree build needs beyond scripts/setup.sh's (only those missing).
need=(rsync ccache ninja-build cmake g++ python3 libgsl-dev libsqlite3-dev libxml2-dev
  libboost-dev nlohmann-json3-dev gnuplot-nox patch)
missing=()
for p in "${need[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
if [ "$source" = git ] && ! command -v git >/dev/null; then
  missing+=(git)
fi
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

export CCACHE_DIR=${CCACHE_DIR:-$cache/ccache}
mkdir -p "$cache/$version" "$CCACHE_DIR"
ccache -M 8G >/dev/null

if [ ! -f "$top/.edge-llm-extracted" ]; then
  rm -rf "$top"
  if [ "$source" = git ]; then
    say "cloning ns-$ns3${nr:+ and nr $nr}"
    git clone -q --depth 1 --branch "ns-$ns3" \
      "${NS3_GIT_URL:-https://gitlab.com/nsnam/ns-3-dev.git}" "$top"
    [ -z "$nr" ] || git clone -q --depth 1 --branch "$nr" \
      "${NR_GIT_URL:-https://gitlab.com/cttc-lena/nr.git}" "$top/contrib/nr"
  else
    say "extracting ns-$ns3${nr:+ and nr $nr} from $source"
    tar xzf "$source/ns-$ns3.tar.gz" -C "$cache/$version"
    [ -z "$nr" ] || tar xzf "$source/nr-$nr.tar.gz" -C "$top/contrib"
  fi
  if [ "$ns3" = 3.46 ] && ! grep -q '#include <algorithm>' "$top/src/core/model/test.cc"; then
    say "patch: src/core/model/test.cc gets #include <algorithm> (g++ 12)"
    sed -i 's/^#include <cmath>$/#include <algorithm>\n#include <cmath>/' "$top/src/core/model/test.cc"
  fi
  touch "$top/.edge-llm-extracted"
fi
# nr's fix, also on a tree extracted before it existed (applied once: a patched file is left
# alone).
if [ "$nr" = v4.1.1 ] && ! grep -q "drops a SIB1 of its former cell" \
  "$top/contrib/nr/model/nr-ue-phy.cc"; then
  say "patch: contrib/nr/model/nr-ue-phy.cc drops a DL DCI and a SIB1 of the UE's former cell" \
    "(scripts/patches/nr-v4.1.1-ue-phy-handover-races.patch)"
  patch -d "$top/contrib/nr" -p1 --quiet --forward \
    <"$repo/scripts/patches/nr-v4.1.1-ue-phy-handover-races.patch"
fi

# The module, as it is in this clone (tracked and untracked files, no build output).
# Compared by content, and a changed file gets the time of the copy, never the clone's:
# with the clone's times (rsync -a) a file edited before an older version's objects were
# built looked older than them, and ninja linked the stale objects.
mkdir -p "$top/contrib/edge-llm"
rsync -rlpD --checksum --delete --exclude /build --exclude /.git --exclude /results \
  "$repo/" "$top/contrib/edge-llm/"
# The user program of test/install as an ns-3 scratch/ program.
cp "$repo/test/install/user-program.cc" "$top/scratch/edge-llm-user-program.cc" 2>/dev/null || true

cd "$top"
log="$cache/$version/build.log"
start=$(date +%s)
if [ "$build" = cmake ]; then
  enabled="edge-llm;$modules${nr:+;nr}"
  configure=(./ns3 configure -G Ninja --build-profile=release --enable-asserts --enable-logs
    --enable-examples --enable-tests --filter-module-examples-and-tests=edge-llm
    "--enable-modules=$enabled" -- -DEDGE_LLM_WERROR=ON)
  env=()
else
  configure=(./waf configure --build-profile=optimized --disable-werror --disable-python
    --enable-examples --enable-tests "--enable-modules=edge-llm,${modules//;/,}")
  env=(env "CXX=ccache g++")
fi
if [ "$(cat "$cache/$version/configured" 2>/dev/null)" != "${configure[*]}" ]; then
  say "configuring: ${env[*]:1} ${configure[*]}"
  rm -f "$cache/$version/built"
  "${env[@]}" "${configure[@]}" >"$cache/$version/configure.log" 2>&1 \
    || { tail -30 "$cache/$version/configure.log"; echo "0 passed, 1 failed"; exit 1; }
  echo "${configure[*]}" >"$cache/$version/configured"
fi
grep -h "edge-llm:" "$cache/$version/configure.log" | sort -u || true

if [ "$compile_only" = 1 ]; then
  # The compile gate: ns-3's public headers exist once the tree is configured (CMake writes
  # stubs for them; waf copies them, which `waf step` does without building anything else);
  # then every object file of contrib/edge-llm and of the scratch/ user program is compiled,
  # all of them even after a failure (ninja -k 0; waf step runs each task).
  log="$cache/$version/compile-only.log"
  if [ "$build" = cmake ]; then
    # build.ninja first, so that a source added to (or renamed in) CMakeLists.txt since the
    # tree was configured is a target (ninja re-runs CMake when its inputs changed).
    (cd cmake-cache && ninja build.ninja) >"$log" 2>&1 \
      || { tail -30 "$log"; echo "0 passed, 1 failed"; exit 1; }
    mapfile -t units < <(cd cmake-cache && ninja -t targets all \
      | sed -nE 's#^((contrib/edge-llm|scratch)/[^:]*edge-llm[^:]*\.o|contrib/edge-llm/[^:]*\.o):.*#\1#p' | sort -u)
  else
    say "writing ns-3's headers (waf step)"
    python3 waf step "--files=out:^.*/build/ns3/[^/]*\.h\$" >"$cache/$version/headers.log" 2>&1 \
      || { tail -30 "$cache/$version/headers.log"; echo "0 passed, 1 failed"; exit 1; }
    # The module's translation units as its wscripts list them (what waf builds).
    mapfile -t units < <(python3 - <<'PY'
import re, runpy
w = runpy.run_path('contrib/edge-llm/wscript')
import os
examples = runpy.run_path('contrib/edge-llm/examples/wscript')['EXAMPLES']
units = set(w['MODULE_SOURCES'] + w['TEST_SOURCES'] + w['STUDY_SOURCES'])
units |= {os.path.normpath('examples/' + e) for sources in examples.values() for e in sources}
for s in sorted(units):
    print('contrib/edge-llm/' + s)
print('scratch/edge-llm-user-program.cc')
PY
    )
  fi
  [ ${#units[@]} -gt 0 ] || { say "no translation units of edge-llm found"; echo "0 passed, 1 failed"; exit 1; }
  say "compile gate: ${#units[@]} translation units against ns-$ns3${nr:+ + nr $nr} (log: $log)"
  if [ "$build" = cmake ]; then
    rc=0
    (cd cmake-cache && ninja -k 0 -j "$jobs" "${units[@]}") >>"$log" 2>&1 || rc=$?
    grep -E '^FAILED: |error:' "$log" | head -40 || true
    # ninja -k 0 names each edge that failed (FAILED: <output>) and skips, silently, what
    # depends on it: a failed unit counts once; anything else that failed (the precompiled
    # header, an ns-3 object a unit needs) or a ninja that failed naming nothing leaves the
    # units unknown, and all of them count as failed.
    failed_units=0
    if [ "$rc" != 0 ]; then
      mapfile -t failed_edges < <(sed -n 's/^FAILED: //p' "$log" | tr ' ' '\n' | grep -v '^$' | sort -u)
      others=0
      for edge in "${failed_edges[@]}"; do
        if printf '%s\n' "${units[@]}" | grep -qxF "$edge"; then
          failed_units=$((failed_units + 1))
        else
          others=$((others + 1))
        fi
      done
      if [ "$others" -gt 0 ] || [ "$failed_units" = 0 ]; then
        failed_units=${#units[@]}
      fi
    fi
  else
    # waf step runs the tasks whose inputs match, one after the other: $jobs of them at once,
    # each with its share of the units (waf step stores no build state, so they do not mix).
    : >"$log"
    for ((j = 0; j < jobs; j++)); do
      patterns=()
      for ((i = j; i < ${#units[@]}; i += jobs)); do
        patterns+=("in:^.*/${units[i]//./\\.}\$")
      done
      [ ${#patterns[@]} -gt 0 ] || continue
      (IFS=,; python3 waf step "--files=${patterns[*]}" >"$log.$j" 2>&1) &
    done
    wait || true
    cat "$log".* >>"$log" && rm -f "$log".*
    # A unit passes when every task that compiles it exited 0 (a source two programs, or a
    # program and the test library, share is one unit compiled by several tasks).
    failed_units=0
    for unit in "${units[@]}"; do
      if ! grep -qxF "$unit -> exit 0" "$log" || grep -E " -> exit [1-9][0-9]*$" "$log" \
        | grep -qF "$unit -> exit"; then
        failed_units=$((failed_units + 1))
      fi
    done
    grep -E 'error:|-> exit [1-9]' "$log" | head -40 || true
  fi
  say "compile gate took $(($(date +%s) - start)) s"
  echo "$((${#units[@]} - failed_units)) passed, $failed_units failed"
  [ "$failed_units" -eq 0 ]
  exit
fi

say "building (log: $log)"
if [ "$build" = cmake ]; then
  # cmake --build, not ./ns3 build -j: ns3's own default (cores - 1) wins over its -j option
  # after "build" (3.46: "-j 2" ran ninja -j 1).
  build_cmd=(cmake --build cmake-cache -j "$jobs")
else
  build_cmd=(./waf build "-j$jobs")
fi
if ! "${build_cmd[@]}" >"$log" 2>&1; then
  grep -E "error|Error" "$log" | head -40
  echo "0 passed, 1 failed"
  exit 1
fi
touch "$cache/$version/built"
say "build took $(($(date +%s) - start)) s"

passed=0 failed=0
# test.py's result lines without colours and without the "[k/n] " counter of newer versions.
results() { sed -E 's/\x1b\[[0-9;]*m//g; s/^\[[0-9]+\/[0-9]+\] //' "$1"; }
record() { # name, status
  if [ "$2" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); say "FAILED: $1"; fi
}

# Every edge-llm-* suite the test-runner knows, one test.py call each.
if [ "$build" = cmake ]; then
  runner=(./ns3 run --no-build "test-runner --list")
else
  runner=(./waf --run "test-runner --list")
fi
mapfile -t suites < <("${runner[@]}" 2>/dev/null | grep -oE '^ *edge-llm-[a-z0-9-]+' | tr -d ' ' | sort -u)
[ ${#suites[@]} -gt 0 ] || { say "no edge-llm suites found"; echo "0 passed, 1 failed"; exit 1; }
for s in "${suites[@]}"; do
  t0=$(date +%s)
  if python3 test.py -n -s "$s" >"$cache/$version/test-$s.log" 2>&1 \
    && results "$cache/$version/test-$s.log" | grep -qx "PASS: TestSuite $s"; then
    record "$s" 0
    say "PASS $s ($(($(date +%s) - t0)) s)"
  else
    record "$s" 1
    tail -20 "$cache/$version/test-$s.log"
  fi
done

# The examples of test/examples-to-run.py, with their arguments: test.py runs every listed
# example whose program is built (examples are filtered to edge-llm, so only ours).
t0=$(date +%s)
python3 test.py -n --constrain=example >"$cache/$version/examples.log" 2>&1 || true
while read -r status line; do
  case "$status" in
    PASS:) passed=$((passed + 1)) ;;
    SKIP:) ;;
    *) record "$line" 1 ;;
  esac
done < <(results "$cache/$version/examples.log" | grep -E "^(PASS|FAIL|CRASH|VALGR|SKIP): Example" \
  | grep -E "edge-llm|ctho|impactho" | sed 's/: Example/:/')
ran=$(results "$cache/$version/examples.log" | grep -E "^(PASS|FAIL|CRASH|VALGR): Example" \
  | grep -cE "edge-llm|ctho|impactho" || true)
[ "$ran" -gt 0 ] || record "examples: none of test/examples-to-run.py ran" 1
say "examples: $(results "$cache/$version/examples.log" | grep -cE "^PASS: Example") passed" \
  "($(($(date +%s) - t0)) s; log: $cache/$version/examples.log)"

# Golden outputs over NR (test/data/golden, recorded on this release): the road over nr,
# byte-identical to the manifests.
if [ -n "$nr" ]; then
  t0=$(date +%s)
  rc=0
  bash contrib/edge-llm/test/cli/golden-outputs-test.sh build nr >"$cache/$version/golden.log" 2>&1 || rc=$?
  [ $rc = 0 ] || tail -30 "$cache/$version/golden.log"
  record "golden outputs (nr)" $rc
  [ $rc != 0 ] || say "PASS golden outputs (nr): $(tail -1 "$cache/$version/golden.log") ($(($(date +%s) - t0)) s)"
fi

# The user program as a scratch/ program.
if [ -f scratch/edge-llm-user-program.cc ]; then
  if [ "$build" = cmake ]; then
    scratch=(./ns3 run --no-build edge-llm-user-program)
  else
    scratch=(./waf --run edge-llm-user-program)
  fi
  rc=0
  "${scratch[@]}" >"$cache/$version/scratch.log" 2>&1 || rc=$?
  [ $rc = 0 ] || tail -20 "$cache/$version/scratch.log"
  record "scratch/edge-llm-user-program" $rc
  [ $rc != 0 ] || say "PASS scratch/edge-llm-user-program"
fi

say "ns-$ns3${nr:+ + nr $nr}: $(($(date +%s) - start)) s in all"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
