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

# --calibration: the users' utilities are the presets of their contexts, the same as
# typing the joint preset's M,k,tau (doc: Calibrations) into the file.
printf 'user_id,context_tokens,received_fraction\n1,8192,0\n2,16384,0.1\n' >"$tmp/pre.csv"
printf 'user_id,context_tokens,received_fraction,M,k,tau\n1,8192,0,0.94,28.2,0.064\n2,16384,0.1,0.9302,29.7,0.064\n' >"$tmp/typed.csv"
"$plan" --scheme=impactho-slot --users="$tmp/pre.csv" --calibration=joint >"$tmp/a" 2>"$tmp/err"
code=$?
"$plan" --scheme=impactho-slot --users="$tmp/typed.csv" >"$tmp/b" 2>>"$tmp/err"
if [ $code -ne 0 ] || ! grep -q '"total_accuracy"' "$tmp/a" || ! cmp -s "$tmp/a" "$tmp/b"; then
  echo "FAIL --calibration=joint differs from the typed preset: exit $code"; cat "$tmp/a" "$tmp/b" "$tmp/err"; fail=1
fi
"$plan" --scheme=ctho --ues="$data/four-ues.csv" --calibration=joint >"$tmp/out" 2>"$tmp/err"
if [ $? -ne 2 ] || ! grep -q "calibration" "$tmp/err"; then
  echo "FAIL --calibration with ctho accepted"; cat "$tmp/err"; fail=1
fi

"$plan" --scheme=ctho --ues="$tmp/none.csv" >"$tmp/out" 2>"$tmp/err"
code=$?
if [ $code -ne 2 ] || [ -s "$tmp/out" ] || ! grep -q "^error: .*none.csv: cannot open" "$tmp/err"; then
  echo "FAIL missing file: exit $code"; cat "$tmp/err"; fail=1
fi

# A file name with a blank is taken whole (ns-3.37's CommandLine cut it at the blank).
cp "$data/four-ues.csv" "$tmp/four ues.csv"
"$plan" --scheme=ctho "--ues=$tmp/four ues.csv" >"$tmp/out" 2>"$tmp/err"
code=$?
if [ $code -ne 0 ] || ! grep -q '"prefill_length"' "$tmp/out"; then
  echo "FAIL --ues with a blank in the path: exit $code"; cat "$tmp/err"; fail=1
fi
# --fallback is ImpactHO's admission fallback: refused, not ignored, for ea-slot.
printf 'user_id,context_tokens,received_fraction\n1,16384,0.01\n' >"$tmp/one.csv"
"$plan" --scheme=ea-slot --users="$tmp/one.csv" --calibration=headline --fallback=none \
  >"$tmp/out" 2>"$tmp/err"
if [ $? -ne 2 ] || [ -s "$tmp/out" ] || ! grep -q "^error: --fallback: .*impactho-slot only" "$tmp/err"; then
  echo "FAIL --fallback with ea-slot accepted"; cat "$tmp/out" "$tmp/err"; fail=1
fi

if [ $fail -eq 0 ]; then echo "3 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
