#!/usr/bin/env bash
# Every test: set up and build if needed, then run the ns-3 TestSuites, the
# GoogleTest suite and the CLI checks through ctest (closing summary line:
# "100% tests passed, 0 tests failed out of N").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build
ctest --output-on-failure -j"$(nproc)" "$@"
