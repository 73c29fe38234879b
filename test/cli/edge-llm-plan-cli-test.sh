#!/usr/bin/env bash
# The edge-llm-plan binary's contract as a user meets it: exit 0 and one JSON object
# on stdout for a good file; exit 2, an "error: FILE:LINE: ..." line on stderr and
# nothing on stdout for a bad one.
# Usage: edge-llm-plan-cli-test.sh PATH/TO/edge-llm-plan DATA_DIR
set -u
plan=$1
data=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$plan" --scheme=ctho --ues="$data/four-ues.csv" >"$tmp/out" 2>"$tmp/err"
code=$?
if [ $code -ne 0 ] || ! grep -q '"prefill_length"' "$tmp/out" || [ -s "$tmp/err" ]; then
  echo "FAIL good input: exit $code"; cat "$tmp/err"; fail=1
fi

printf 'ue_id,handover_time_s,context_tokens\n1,0.5,100\n2,-1,100\n' >"$tmp/bad.csv"
"$plan" --scheme=ctho --ues="$tmp/bad.csv" >"$tmp/out" 2>"$tmp/err"
code=$?
if [ $code -ne 2 ] || [ -s "$tmp/out" ] || ! grep -q "^error: $tmp/bad.csv:3: handover_time_s" "$tmp/err"; then
  echo "FAIL bad input: exit $code"; cat "$tmp/out" "$tmp/err"; fail=1
fi

"$plan" --scheme=ctho --ues="$tmp/none.csv" >"$tmp/out" 2>"$tmp/err"
code=$?
if [ $code -ne 2 ] || [ -s "$tmp/out" ] || ! grep -q "^error: .*none.csv: cannot open" "$tmp/err"; then
  echo "FAIL missing file: exit $code"; cat "$tmp/err"; fail=1
fi

if [ $fail -eq 0 ]; then echo "3 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
