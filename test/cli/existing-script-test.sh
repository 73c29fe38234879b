#!/usr/bin/env bash
# Edge LLMs added to an existing LTE script (issue 45, point 4).
#
# 1. examples/existing-script/edge-llm-lena-x2-handover (a user's lena-x2-handover-measures
#    style script plus EdgeLlmHelper::Install(LteEdgeLlmRan::Wrap(...))) with every scheme
#    that has a scheduler (the list the program itself prints for a formula scheme). By hand:
#    eNBs at x = 500 and 1000 m, equal power, Friis; UE u starts at 725 - 25 u m and drives at
#    20 m/s; A3 (hysteresis 3 dB) holds once 20 log10((x - 500) / (1000 - x)) >= 3, i.e. at
#    x = 792.8 m, so UE u's handover starts after (67.8 + 25 u) / 20 s + TTT 0.256 s =
#    3.6, 4.9, 6.1, 7.4 s for u = 0 .. 3 (the earliest: the RRC's filtering and report
#    interval add under 1 s): all four UEs hand over within the 10 s run. Each
#    UE the RRC hands over must have exactly one session record per handover, each restored
#    at the target with a measured UE delay, and every UE must have received tokens.
# 2. The step-by-step path with one call forgotten (test/probe/edge-llm-fatal-probe
#    --case=forget=...): refused while the simulation runs, the message naming the call;
#    with none forgotten and no SetRan, it runs and the session is handed over.
# Usage: existing-script-test.sh BIN_DIR
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

example=$bin/edge-llm-lena-x2-handover
# The schemes with a scheduler, as the program lists them when given a formula scheme.
("$example" --scheme=hybrid) >/dev/null 2>"$tmp/err"
schemes=$(sed -n 's/.*schemes with one: //p' "$tmp/err" | tr -d ',')
[ -n "$schemes" ] && ok || bad "no scheme list from --scheme=hybrid: $(head -c 300 "$tmp/err")"

for scheme in $schemes; do
  if ! "$example" --scheme="$scheme" --simTime=10 >"$tmp/out" 2>"$tmp/err"; then
    bad "$scheme: exit $?, stderr: $(tail -c 300 "$tmp/err")"
    continue
  fi
  if awk -v scheme="$scheme" -v ues=4 '
    / UE IMSI [0-9]+: handover to cell [0-9]+ done$/ { ho[$4 + 0]++; next }
    /^session_id,/ {
      for (i = 1; i <= NF; i++) col[$i] = i
      csv = 1; next
    }
    csv && /^[0-9]+,/ {
      id = $col["session_id"] + 0; records[id]++
      if ($col["outcome"] == "restored" && $col["ue_delay_s"] != "" && $col["ue_delay_s"] > 0)
        restored[id]++
      # The A3 crossing plus TTT by hand is the earliest the handover can start; the RRC
      # filtering and report interval add well under a second.
      earliest = (67.8 + 25 * (id - 1)) / 20 + 0.256
      if ($col["handover_s"] < earliest || $col["handover_s"] > earliest + 1) {
        printf "%s: UE %d handed over at %s s, by hand in [%.3f, %.3f] s\n",
               scheme, id, $col["handover_s"], earliest, earliest + 1
        late++
      }
      next
    }
    /^UE IMSI [0-9]+: [0-9]+ tokens$/ { tokens[$3 + 0] = $4; next }
    END {
      errors = late
      n = 0
      for (id in ho) n++
      if (n != ues) { printf "%s: %d UEs handed over, by hand %d\n", scheme, n, ues; errors++ }
      for (id in ho) {
        if (records[id] != ho[id] || restored[id] != ho[id]) {
          printf "%s: UE %d: %d handovers, %d records, %d restored with a UE delay\n",
                 scheme, id, ho[id], records[id], restored[id]
          errors++
        }
      }
      for (id = 1; id <= ues; id++) {
        if (!(tokens[id] > 0)) { printf "%s: UE %d received no token\n", scheme, id; errors++ }
      }
      exit errors > 0
    }' FS='[ ,]' "$tmp/out" >"$tmp/why"; then
    ok
  else
    bad "$(cat "$tmp/why")"
  fi
done

probe=$bin/edge-llm-fatal-probe
expect() { # expected-exit-code message-substring command...
  local code=$1 text=$2
  shift 2
  ("$@") >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$code" ] && grep -qF -- "$text" "$tmp/err"; then
    ok
  else
    bad "$* -> exit $got, stderr: $(tail -c 400 "$tmp/err")"
  fi
}
expect 134 "has no route to 7.0.0.2 through the EPC, so no prompt or token would arrive: call EdgeLlmHelper::AddEpcRoutes(" \
  "$probe" --case=forget=AddEpcRoutes
expect 134 "UE 1 hands over from cell 1 to cell 2 (its RRC's HandoverStart), but the EdgeLlmNode on node" \
  "$probe" --case=forget=ConnectHandoverTrace
expect 134 "call EdgeLlmHelper::ConnectHandoverTrace(bsApps) before Simulator::Run" \
  "$probe" --case=forget=ConnectHandoverTrace
expect 134 "no EPC: no RAN was set and no BS is linked to an SGW, so the BSs' UE-facing addresses are unknown; give the helper the RAN (SetRan, or Install(LteEdgeLlmRan::Wrap" \
  "$probe" --case=ue-without-epc
expect 134 "is not an LteEnbNetDevice (devices of another RAT: give EdgeLlmHelper their RAN, SetRan or Install(LteEdgeLlmRan::Wrap / NrEdgeLlmRan::Wrap(...)))" \
  "$probe" --case=foreign-bs-device
expect 3 "handovers started at the source 1" "$probe" --case=forget=none
if grep -qE "^tokens [1-9][0-9]*," "$tmp/err"; then ok; else bad "forget=none: no token: $(cat "$tmp/err")"; fi
expect 2 "--case: forget=AddEpcRoutes|ConnectHandoverTrace|none, got 'x'" "$probe" --case=forget=x

echo "existing-script: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
