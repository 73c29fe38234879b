#!/usr/bin/env bash
# edge-llm-serving-study (issue 46): the shipped Azure excerpt end to end (every request
# ends, the files are written, a second run is byte-identical), the generator's runs differ
# by RngRun, and bad input on both sides of each boundary: exit 2 naming the option, no
# output directory made.
# Usage: serving-study-test.sh BIN_DIR SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
study="$bin/edge-llm-serving-study"
conv="$src/test/data/requests/azure-conv-2023-excerpt.csv"
ok() { # description, then the condition's command
  local what=$1
  shift
  if "$@"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $what"
  fi
}
expect() { # expected-exit-code message-substring args...
  local code=$1 text=$2
  shift 2
  rm -rf "$tmp/o"
  "$study" --outputDir="$tmp/o" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$code" ] && { [ -z "$text" ] || grep -qF -- "$text" "$tmp/err"; } &&
    { [ "$code" -eq 0 ] || [ ! -e "$tmp/o" ]; }; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $* -> exit $got, stderr: $(head -c 300 "$tmp/err")"
  fi
}

# The excerpt: 1445 requests in its 300 s, each row a request (rows counted here).
rows=$(grep -c '^2023-' "$conv")
"$study" --requestTrace="$conv" --traceDuration=300 --loads=1,10 --turns=4 \
  --outputDir="$tmp/a" >"$tmp/a.out" 2>&1
ok "the excerpt runs (exit 0)" test $? -eq 0
ok "1445 rows in the excerpt" test "$rows" -eq 1445
# 3 schemes x 2 loads, every request in the requests CSV and served.
ok "summary rows" test "$(tail -n +2 "$tmp/a/serving-summary.csv" | wc -l)" -eq 6
# A one-load run plots without gnuplot's warnings.
"$study" --traceDuration=5 --loads=10 --outputDir="$tmp/one" >"$tmp/one.out" 2>"$tmp/one.err"
ok "one load: exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$tmp/one.err"
ok "requests rows" test "$(tail -n +2 "$tmp/a/serving-requests.csv" | wc -l)" -eq $((6 * rows))
ok "all served" test "$(awk -F, 'NR > 1 && $21 != 1' "$tmp/a/serving-requests.csv" | wc -l)" -eq 0
for f in serving-slo serving-stall-cdf serving-gpu; do
  ok "$f.csv and .plt" test -s "$tmp/a/$f.csv" -a -s "$tmp/a/$f.plt"
done
ok "per-scheme lines printed" test "$(grep -c 'SLO attainment' "$tmp/a.out")" -eq 6
"$study" --requestTrace="$conv" --traceDuration=300 --loads=1,10 --turns=4 \
  --outputDir="$tmp/b" >"$tmp/b.out" 2>&1
for f in serving-summary.csv serving-requests.csv serving-stall-cdf.csv; do
  ok "$f byte-identical on a second run" cmp -s "$tmp/a/$f" "$tmp/b/$f"
done
# The generator: RngRun draws another trace.
"$study" --traceDuration=20 --loads=1 --outputDir="$tmp/g1" >/dev/null 2>&1
"$study" --traceDuration=20 --loads=1 --RngRun=2 --outputDir="$tmp/g2" >/dev/null 2>&1
differ() { ! cmp -s "$1" "$2"; }
ok "another RngRun, other requests" differ "$tmp/g1/serving-requests.csv" "$tmp/g2/serving-requests.csv"

# Both sides of each boundary (a small generator run where accepted).
g="--traceDuration=5 --numUes=7"
expect 0 "" $g --uplinkDelayMs=10000
expect 2 "--uplinkDelayMs must be in [0, 10000] ms, got 10001" $g --uplinkDelayMs=10001
expect 2 "--downlinkDelayMs must be in [0, 10000] ms, got -1" $g --downlinkDelayMs=-1
expect 2 "--ttftSloMs must be in (0, 3.6e+06] ms, got 0" $g --ttftSloMs=0
expect 0 "" $g --turns=1000
expect 2 "--turns must be in [1, 1000], got 0" $g --turns=0
expect 0 "" $g --loads=1000
expect 2 "--loads must list rate scales in (0, 1000], got '1001'" $g --loads=1001
expect 2 "--loads: 2 is listed twice" $g --loads=2,2
expect 2 "--schemes: 'ctho' is listed twice" $g --schemes=ctho,ctho
expect 0 "" $g --schemes=impactho
expect 0 "" $g --schemes=pre-impactho
expect 0 "" $g --schemes=pre-ctho
expect 2 "--schemes: scheme 'tc-ctho' is not offered here; valid schemes: ctho, tho, cho, pre-ctho, impactho, ea, wta, pf, pre-impactho" $g --schemes=tc-ctho
expect 0 "" $g --schemes=cho
expect 2 "--gpuPreset must be one of ctho-a100, impactho-qwen3-8b-a100, got 'h100'" $g --gpuPreset=h100
expect 0 "" $g --gpuPreset=impactho-qwen3-8b-a100
expect 2 "--idlePolicy must be one of move-now, move-on-next-turn, drop, got 'keep'" $g --idlePolicy=keep --turns=2
expect 0 "" $g --idlePolicy=drop --turns=2
expect 2 "--idlePolicy needs --turns >= 2" $g --idlePolicy=drop
expect 0 "" $g --arrivals=gamma --cv=3
expect 2 "--cv is the Gamma arrivals' knob" $g --cv=3
expect 2 "--traceStart needs --requestTrace" $g --traceStart=1
expect 2 "--mapping needs --requestTrace" $g --mapping=per-ue
expect 2 "--rate is the generator's" --requestTrace="$conv" --rate=3
expect 2 "--lengthsFrom is the generator's" --requestTrace="$conv" --lengthsFrom="$conv"
# The generator drawing the excerpt's lengths: every prompt is one of its rows' (checked
# against the file here).
expect 0 "" $g --lengthsFrom="$conv"
"$study" $g --lengthsFrom="$conv" --schemes=cho --loads=1 --outputDir="$tmp/l" >/dev/null 2>&1
cut -d, -f2,3 "$conv" | tail -n +2 | tr -d '\r' | sort -u >"$tmp/pairs"
awk -F, 'NR > 1 {print $8 "," $9}' "$tmp/l/serving-requests.csv" | sort -u >"$tmp/drawn"
ok "drawn lengths are the excerpt's pairs" test -z "$(comm -23 "$tmp/drawn" "$tmp/pairs")"
ok "some drawn" test -s "$tmp/drawn"
expect 2 "missing.csv" $g --lengthsFrom="$tmp/missing.csv"
expect 2 "--rate must be in (0, 500000]" $g --rate=1e6 --loads=1,2
expect 0 "" $g --rate=5e5 --loads=2 --traceDuration=0.01
# The drives last at most 3599 s: arrivals up to then run, later ones are refused.
expect 2 "requests arrive until" --requestTrace="$conv" --traceDuration=300 --loads=0.08
expect 0 "" --requestTrace="$conv" --traceDuration=300 --loads=0.09 --numUes=7
expect 2 "the window holds no request" --requestTrace="$conv" --traceStart=400
printf 'arrived_at,num_prefill_tokens,num_decode_tokens\n0,10,5\n1,0,5\n' >"$tmp/bad.csv"
expect 2 "bad.csv:3:" --requestTrace="$tmp/bad.csv"
expect 2 "" --requestTrace="$tmp/missing.csv"

# The packet level: its own refusals, then the first 20 s of the excerpt at load 10 on 7 UEs
# at both levels: the same requests, every one served at packet level (none lost on the radio:
# a lost prompt is resent), and the same columns.
expect 2 "--level must be flow or packet, got 'cell'" $g --level=cell
p="--requestTrace=$conv --traceDuration=20 --loads=10 --numUes=7 --schemes=cho"
"$study" --outputDir="$tmp/flow" $p >/dev/null 2>&1
"$study" --outputDir="$tmp/packet" --level=packet $p >"$tmp/packet.out" 2>&1
ok "packet level ran" test -s "$tmp/packet/serving-summary.csv"
row() { awk -F, 'NR == 2 { print $3 "," $4 }' "$1/serving-summary.csv"; }
want=$(awk -F, 'NR == 2 { print $3 "," $3 }' "$tmp/flow/serving-summary.csv")
ok "packet level: the flow level's requests, all served ($(row "$tmp/packet") vs $want)" \
  test "$(row "$tmp/packet")" = "$want"
ok "packet level: the same request columns" \
  test "$(head -1 "$tmp/packet/serving-requests.csv")" = "$(head -1 "$tmp/flow/serving-requests.csv")"
ok "packet level: its CPU per simulated second printed" grep -q "packet level: .* s of CPU for" "$tmp/packet.out"
ok "packet level: every request prefilled at least its prompt (prefill_tokens >= prompt_tokens)" \
  awk -F, 'NR > 1 && $12 < $8 { bad = 1 } END { exit bad }' "$tmp/packet/serving-requests.csv"
ok "packet level: no GPU series, so no serving-gpu figure" test ! -e "$tmp/packet/serving-gpu.png"
# The engine's vehicles: at most 100 UEs at packet level (the flow level takes 100000).
expect 2 "--numUes must be in [1, 100] with --level=packet (the scenario engine's vehicles), got 101" \
  --level=packet --numUes=101 --requestTrace="$conv" --traceDuration=0.5
expect 0 "" --level=packet --numUes=100 --requestTrace="$conv" --traceDuration=0.5 --schemes=cho
# The same 20 s as conversations of 3 turns at both levels: every turn served, and each turn's
# context, cached and prefilled tokens the flow level's (the drives hand no UE over while idle
# here: no radio difference in what is held).
c="$p --turns=3 --idlePolicy=move-now"
"$study" --outputDir="$tmp/cflow" $c >/dev/null 2>&1
"$study" --outputDir="$tmp/cpacket" --level=packet $c >/dev/null 2>&1
tokens() { awk -F, 'NR > 1 { print $3, $4, $5, $10, $11, $12, $21 }' "$1/serving-requests.csv"; }
ok "conversations at packet level: the flow level's turns, contexts, cached and prefilled tokens" \
  test "$(tokens "$tmp/cpacket")" = "$(tokens "$tmp/cflow")"
ok "conversations at packet level: some turns found their cache held (cached_tokens > 0)" \
  awk -F, 'NR > 1 && $11 > 0 { n++ } END { exit !(n >= 5) }' "$tmp/cpacket/serving-requests.csv"

echo "serving-study-test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
