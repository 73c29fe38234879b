#!/usr/bin/env bash
# Builds the libFuzzer target fuzz/kv-frame-fuzzer.cc with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer (the protocol sources compiled in, instrumented), then fuzzes
# the KV frame parser for SECONDS seconds (default 20). Exit 0 if nothing was found.
#   bash scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
out=build/fuzz
mkdir -p "$out/include/ns3" "$out/corpus"
for h in model/kv-transfer-header.h model/kv-transfer-connection.h model/handover-scheduler.h \
         model/ctho-planner.h model/prefill-time-model.h model/kv-datagram-header.h \
         model/kv-datagram-socket.h model/edge-llm-compat.h; do
  cp "$h" "$out/include/ns3/"
done
# EDGE_LLM_NS3_VERSION as the module's builds define it (1000 x major + minor), from the
# installed ns-3's version-defines.h.
defines=/usr/include/ns3/version-defines.h
ns3_version=$(awk '/#define NS3_VERSION_MAJOR/ {major = $3} /#define NS3_VERSION_MINOR/ {minor = $3}
  END {print 1000 * major + minor}' "$defines")
clang++ -std=c++17 -DEDGE_LLM_NS3_VERSION="$ns3_version" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$out/include" -I/usr/include \
  fuzz/kv-frame-fuzzer.cc model/kv-transfer-header.cc model/kv-transfer-connection.cc \
  model/kv-datagram-header.cc model/kv-datagram-socket.cc \
  model/handover-scheduler.cc model/ctho-planner.cc model/prefill-time-model.cc \
  -lns3-internet -lns3-network -lns3-core -o "$out/kv-frame-fuzzer"
# Seeds: a valid request frame, and a truncated one.
printf '\x00\x01\x01\x00\x3c\x00\x00\x00\x00' >"$out/corpus/seed-request-prefix"
printf '\x05\x01\x03\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x09\x00\x00\x00\x00\x00\x00\x00\x00' \
  >"$out/corpus/seed-complete"
# A UDP-transport ACK with one SACK block (next expected 5, held [7, 9)).
printf '\x01\x02\x00\x00\x00\x05\x01\x00\x00\x00\x07\x00\x00\x00\x09' >"$out/corpus/seed-ack"
ASAN_OPTIONS=detect_leaks=0 "$out/kv-frame-fuzzer" -max_total_time="$seconds" -max_len=4096 \
  -artifact_prefix="$out/" "$out/corpus" 2>&1 | tail -5
