#!/usr/bin/env bash
# The module's main job: set up and build if needed, then run the packet-level
# handover scenario (ctHO, tHO and cHO on the ctHO paper's road over LTE X2).
# Extra arguments go to the example, e.g. --backhaulGbps=2 --numUes=6.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec build/bin/edge-llm-lte-handover "$@"
