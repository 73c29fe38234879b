#!/usr/bin/env bash
# Every test: set up and build if needed, then run the ns-3 TestSuites (QUICK cases), the
# GoogleTest suite and the CLI checks through ctest (closing summary line:
# "100% tests passed, 0 tests failed out of N"). The tests take about 4 minutes on 2 idle
# cores (a fresh clone of 9c832ed: 248 s), the first build about 8.5 more.
#
#   scripts/test.sh               the quick set (every ctest test but label "extensive")
#   scripts/test.sh --extensive   only the long cases (ns3-SUITE-extensive: the suites at
#                                 EXTENSIVE fullness, the SUMO city example, for which it
#                                 installs SUMO); CI runs both
#   scripts/test.sh -R NAME ...   other arguments go to ctest
# Its last line gives the seconds of the set-up and build and of the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
labels=(-LE extensive)
setup=()
if [ "${1:-}" = "--extensive" ]; then
  labels=(-L extensive)
  setup=(--sumo) # the SUMO city example is an extensive test
  shift
fi
start=$SECONDS
bash scripts/setup.sh "${setup[@]}"
built=$SECONDS
cd build
status=0
ctest --output-on-failure -j"$(nproc)" "${labels[@]}" "$@" || status=$?
echo "test.sh: set-up and build $((built - start)) s, tests $((SECONDS - built)) s"
exit "$status"
