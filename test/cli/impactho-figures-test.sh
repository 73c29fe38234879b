#!/usr/bin/env bash
# impactho-figures: every figure's title states the parameters it holds fixed (all but the
# swept one), table2 prints and writes the paper's values beside ours, calibrate prints
# the targets and residuals, and --calibration is checked.
# Usage: impactho-figures-test.sh BIN_DIR
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # description command...
  local what=$1
  shift
  if ! "$@"; then
    echo "FAIL: $what"
    fail=$((fail + 1))
  fi
}
fixed="rho = 4 users/s|B = 20 Gbit/s|dt = 100 ms|T_{max} = 500 ms"
for spec in 3a:rho 3b:B 4a:dt 4b:T_ 5a:rho 5b:rho; do
  fig=${spec%%:*}
  swept=${spec#*:}
  "$bin/impactho-figures" --figure=$fig --runs=2 --simTime=2 --outputDir="$tmp" \
    >/dev/null 2>"$tmp/err" || { echo "FAIL: fig $fig exit $?: $(head -c 300 "$tmp/err")"; fail=$((fail + 1)); continue; }
  title=$(grep '^set title' "$tmp/fig$fig.plt")
  IFS='|' read -ra params <<<"$fixed"
  for p in "${params[@]}"; do
    if [[ $p == "$swept"* ]]; then
      check "fig $fig title names its swept '$p': $title" bash -c '[[ "$1" != *"$2"* ]]' _ "$title" "$p"
    else
      check "fig $fig title lacks '$p': $title" bash -c '[[ "$1" == *"$2"* ]]' _ "$title" "$p"
    fi
  done
  for p in "qwen3-8b q = 16" "contexts 4K/8K/16K" "headline utility" "2 runs x 2 s per point"; do
    check "fig $fig title lacks '$p': $title" bash -c '[[ "$1" == *"$2"* ]]' _ "$title" "$p"
  done
done
# Table II: the paper's values beside ours, in the CSV and on stdout; the PNG's title.
"$bin/impactho-figures" --figure=table2 --runs=50 --calibration=joint --outputDir="$tmp" >"$tmp/out" 2>&1 ||
  { echo "FAIL: table2 exit: $(head -c 300 "$tmp/out")"; fail=$((fail + 1)); }
check "table2.csv header" bash -c '[ "$(head -1 "$1")" = "context_tokens,scheme,latency_ms,ci95_ms,paper_ms,samples" ]' _ "$tmp/table2.csv"
check "table2.csv has 9 rows" bash -c '[ "$(tail -n +2 "$1" | wc -l)" = 9 ]' _ "$tmp/table2.csv"
for row in "4096,re-prefill,.*,300," "16384,hybrid,.*,694," "8192,impactho,.*,353,"; do
  check "table2.csv row $row" grep -q "^$row" "$tmp/table2.csv"
done
check "table2 stdout columns" grep -q "context  scheme          ours                 paper    ours/paper" "$tmp/out"
check "table2 stdout paper 590" grep -qE "16384  impactho .* ms +590 ms" "$tmp/out"
title=$(grep '^set title' "$tmp/table2.plt")
for p in "rho = 4 users/s" "B = 20 Gbit/s" "dt = 100 ms" "T_{max} = inf" "joint utility" "50 runs of 1 s"; do
  check "table2 title lacks '$p': $title" bash -c '[[ "$1" == *"$2"* ]]' _ "$title" "$p"
done
# calibrate: both calibrations' targets and residuals.
"$bin/impactho-figures" --figure=calibrate --outputDir="$tmp" >"$tmp/out" 2>&1 ||
  { echo "FAIL: calibrate exit: $(head -c 300 "$tmp/out")"; fail=$((fail + 1)); }
check "calibrate prints both calibrations" bash -c '[ "$(grep -c "^calibration " "$1")" = 2 ]' _ "$tmp/out"
check "calibrate prints the 16K target" grep -qE "table2-impactho-16384 +paper +590.0 ms +ours" "$tmp/out"
check "calibrate.csv header" bash -c '[ "$(head -1 "$1")" = "calibration,target,unit,paper,ours,ci95,scale,residual,fitted" ]' _ "$tmp/calibrate.csv"
# Bad input.
expect2() { # substring command...
  local text=$1
  shift
  "$@" >/dev/null 2>"$tmp/err"
  local got=$?
  [ $got -eq 2 ] && grep -qF -- "$text" "$tmp/err" || { echo "FAIL: $* -> $got: $(head -c 300 "$tmp/err")"; fail=$((fail + 1)); }
}
expect2 "--calibration: unknown utility calibration 'best'; valid: headline, joint" \
  "$bin/impactho-figures" --figure=3a --calibration=best --outputDir="$tmp"
expect2 "--runs does not apply to --figure=calibrate" \
  "$bin/impactho-figures" --figure=calibrate --runs=5 --outputDir="$tmp"
expect2 "--fit applies to --figure=calibrate only" \
  "$bin/impactho-figures" --figure=3a --fit=1 --outputDir="$tmp"
expect2 "--simTime does not apply to --figure=table2" \
  "$bin/impactho-figures" --figure=table2 --simTime=5 --outputDir="$tmp"
# Bound: a rho whose runs all lack handovers (2 runs of 2 s; run 1 and 2 draw none at rho
# = 1) is said to have no point, not printed or plotted as 0 %.
"$bin/impactho-figures" --figure=bound --runs=2 --simTime=2 --outputDir="$tmp" >"$tmp/bout" 2>"$tmp/berr" ||
  { echo "FAIL: bound exit: $(head -c 300 "$tmp/berr")"; fail=$((fail + 1)); }
check "bound: rho 1 without handovers says so" grep -q "^  1      0  (no run had a handover: no point)$" "$tmp/bout"
check "bound: no rho 1 rows in the CSV" bash -c '! grep -q "^1," "$1"' _ "$tmp/figbound.csv"
check "bound: title names the utility" grep -q "utility headline" "$tmp/figbound.plt"
if [ $fail -ne 0 ]; then
  echo "$fail failure(s)"
  exit 1
fi
echo "impactho-figures: all checks passed"
