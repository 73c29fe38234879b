#!/usr/bin/env bash
# The Wireshark dissector (tools/edge-llm-kv.lua) decodes a capture of the protocol
# suite's EDF test: a TRANSFER_REQUEST for session 9 first, session 2's segments (earlier
# deadline) before session 1's, and TRANSFER_COMPLETE totals 300000 (session 2), 0
# (session 3) and 1000000 (session 1). Then the UDP transport's datagram header on a
# capture of the transport suite's 1 % loss case.
# Usage: kv-dissector-test.sh PATH/TO/edge-llm-test-runner SOURCE_DIR
set -u
runner=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v tshark >/dev/null; then
  echo "tshark is missing (scripts/setup.sh installs it)"; echo "0 passed, 1 failed"; exit 1
fi
EDGE_LLM_PCAP="$tmp/kv.pcap" "$runner" --suite=edge-llm-protocol >/dev/null || {
  echo "the protocol suite failed"; echo "0 passed, 1 failed"; exit 1; }
tshark -r "$tmp/kv.pcap" -X lua_script:"$src/tools/edge-llm-kv.lua" -Y edgellm -T fields \
  -E occurrence=a -E aggregator=';' -e edgellm.type -e edgellm.session -e edgellm.total_bytes \
  2>/dev/null | tr '\t' ' ' >"$tmp/decoded"
# One line per decoded PDU: "type session total".
awk '{ n = split($1, t, ";"); split($2, s, ";"); split($3, b, ";"); k = 0;
       for (i = 1; i <= n; ++i) { tot = ""; if (t[i] == 3 || t[i] == 5) { k++; tot = b[k] }
                                   print t[i], s[i], tot } }' "$tmp/decoded" >"$tmp/pdus"
fail=0
checks=0
check() { checks=$((checks + 1)); if eval "$2"; then :; else echo "FAIL: $1"; fail=1; fi; }
check "first PDU is the TRANSFER_REQUEST of session 9" '[ "$(head -1 "$tmp/pdus")" = "1 9 " ]'
check "session 2 completes with 300000 bytes" 'grep -qx "3 2 300000" "$tmp/pdus"'
check "session 3 completes with 0 bytes" 'grep -qx "3 3 0" "$tmp/pdus"'
check "session 1 completes with 1000000 bytes" 'grep -qx "3 1 1000000" "$tmp/pdus"'
first1=$(grep -n "^2 1 " "$tmp/pdus" | head -1 | cut -d: -f1)
last2=$(grep -n "^2 2 " "$tmp/pdus" | tail -1 | cut -d: -f1)
check "every segment of session 2 before any of session 1 (EDF)" '[ -n "$first1" ] && [ -n "$last2" ] && [ "$last2" -lt "$first1" ]'

# Transport=Udp: the transport suite's 1 % loss case, captured at the receiver (dropped
# datagrams are not captured): 20,000,000 stream bytes in datagrams 0 .. N-1, each seen
# once, ACKs with SACK blocks around the holes, and a last ACK that expects N.
EDGE_LLM_UDP_PCAP="$tmp/udp.pcap" "$runner" --suite=edge-llm-transport >/dev/null || {
  echo "the transport suite failed"; echo "0 passed, 1 failed"; exit 1; }
tshark -r "$tmp/udp.pcap" -X lua_script:"$src/tools/edge-llm-kv.lua" -Y edgellm_dgram -T fields \
  -e edgellm_dgram.type -e edgellm_dgram.sequence -e edgellm_dgram.stream_bytes \
  -e edgellm_dgram.next_expected -e edgellm_dgram.sack_count 2>/dev/null >"$tmp/dgrams"
read -r datagrams distinct maxseq bytes < <(awk -F'\t' '$1 == 1 { n++; if (!($2 in seen)) { d++; b += $3 }
  seen[$2] = 1; if ($2 + 0 > m) m = $2 + 0 } END { print n, d, m, b }' "$tmp/dgrams")
lastnext=$(awk -F'\t' '$1 == 2 { x = $4 } END { print x }' "$tmp/dgrams")
sacks=$(awk -F'\t' '$1 == 2 && $5 > 0 { n++ } END { print n + 0 }' "$tmp/dgrams")
check "UDP: every datagram 0 .. N-1 decoded ($distinct distinct, highest $maxseq)" '[ "$distinct" -eq $((maxseq + 1)) ]'
check "UDP: each datagram once ($datagrams DATA)" '[ "$datagrams" -eq "$distinct" ]'
check "UDP: the stream bytes add up to 20000000 ($bytes)" '[ "$bytes" -eq 20000000 ]'
check "UDP: the last ACK expects N ($lastnext)" '[ "$lastnext" -eq $((maxseq + 1)) ]'
check "UDP: ACKs with SACK blocks around the holes ($sacks)" '[ "$sacks" -gt 0 ]'

# Node-level messages: the faults suite's status case (one cHO session of 300 tokens,
# StatusInterval 20 ms), captured at the target: TRANSFER_RESPONSE ACCEPTED, PROGRESS
# reports, then RESTORED with the whole cache (300 x 57344 = 17203200 bytes).
EDGE_LLM_NODE_PCAP="$tmp/node.pcap" "$runner" --suite=edge-llm-faults >/dev/null || {
  echo "the faults suite failed"; echo "0 passed, 1 failed"; exit 1; }
tshark -r "$tmp/node.pcap" -X lua_script:"$src/tools/edge-llm-kv.lua" -Y "edgellm.type >= 9" \
  -T fields -E occurrence=a -E aggregator=';' -e edgellm.type -e edgellm.result \
  -e edgellm.state -e edgellm.received_bytes 2>/dev/null | tr '\t' ' ' >"$tmp/node"
tshark -r "$tmp/node.pcap" -X lua_script:"$src/tools/edge-llm-kv.lua" -Y "edgellm.type == 1" \
  -T fields -e edgellm.session -e edgellm.context_tokens -e edgellm.prefill_tokens \
  -e edgellm.transfer_tokens -e edgellm.bytes_per_token -e edgellm.batch_size \
  -e edgellm.flags 2>/dev/null | tr '\t' ' ' >"$tmp/request"
check "node: TRANSFER_REQUEST session 1, C 300, n_pf 0, n_tx 300, 57344 B/token, online batch" \
  '[ "$(head -1 "$tmp/request")" = "1 300 0 300 57344 0 0x0000" ]'
check "node: TRANSFER_RESPONSE ACCEPTED" 'grep -q "^9 0 " "$tmp/node"'
check "node: TRANSFER_STATUS PROGRESS reports" 'grep -q "^10 *1 [0-9]" "$tmp/node"'
check "node: TRANSFER_STATUS RESTORED with 17203200 bytes" 'grep -q "^10 *2 17203200" "$tmp/node"'

# Partial backhaul mesh: the mesh suite's relay case (links 1-2, 2-3; the UE moves on to
# cell 3 while cell 2 restores) and no-path case (link 1-2 only), captured on cell 2's
# link to cell 1: TRANSFER_REDIRECT and TRANSFER_REDIRECT_REFUSED naming cell 3; the
# relay's STATUS RESTORED with the whole cache (17203200 bytes); the no-path STATUS LOST.
EDGE_LLM_MESH_PCAP="$tmp/mesh" "$runner" --suite=edge-llm-mesh >/dev/null || {
  echo "the mesh suite failed"; echo "0 passed, 1 failed"; exit 1; }
mesh_field() { # file filter field
  tshark -r "$1" -X lua_script:"$src/tools/edge-llm-kv.lua" -Y "$2" -T fields \
    -E occurrence=l -e "$3" 2>/dev/null | sort -u | tr '\n' ' '; }
check "mesh: TRANSFER_REDIRECT to cell 3" \
  '[ "$(mesh_field "$tmp/mesh-relay-1-1.pcap" "edgellm.type == 8" edgellm.new_target_cell)" = "3 " ]'
check "mesh: TRANSFER_REDIRECT_REFUSED (type 11) for cell 3" \
  '[ "$(mesh_field "$tmp/mesh-relay-1-1.pcap" "edgellm.type == 11" edgellm.new_target_cell)" = "3 " ]'
check "mesh: relay's STATUS RESTORED with 17203200 bytes" \
  '[ "$(mesh_field "$tmp/mesh-relay-1-1.pcap" "edgellm.state == 2" edgellm.received_bytes)" = "17203200 " ]'
check "mesh: no path, STATUS LOST (state 3) for session 1" \
  '[ "$(mesh_field "$tmp/mesh-nopath-1-1.pcap" "edgellm.state == 3" edgellm.session)" = "1 " ]'

# The main example's --pcap (the usual PointToPointHelper::EnablePcap on the eNBs' links):
# ctHO's four TRANSFER_REQUESTs on X2, each with n_pf + n_tx = C and the batch's L = n_pf.
main="$(dirname "$runner")/edge-llm-lte-handover"
mkdir -p "$tmp/main"
"$main" --schemes=ctho --pcap=1 --outputDir="$tmp/main" >"$tmp/main/out" 2>&1 || {
  echo "the main example failed"; echo "0 passed, 1 failed"; exit 1; }
tshark -r "$tmp/main/ctho-3-3.pcap" -X lua_script:"$src/tools/edge-llm-kv.lua" \
  -Y "edgellm.type == 1" -T fields -e edgellm.session -e edgellm.context_tokens \
  -e edgellm.prefill_length -e edgellm.prefill_tokens -e edgellm.transfer_tokens \
  2>/dev/null | tr '\t' ' ' >"$tmp/main/requests"
# One batch on the default road: "  batch planned at T s: L = N tokens, UEs ...".
L=$(sed -n 's/^ *batch planned at [0-9.]* s: L = \([0-9]*\) tokens.*/\1/p' "$tmp/main/out")
check "main --pcap: one ctHO batch, its L printed ($L)" '[ -n "$L" ] && [ "$(echo "$L" | wc -l)" -eq 1 ]'
check "main --pcap: four TRANSFER_REQUESTs on X2" '[ "$(wc -l <"$tmp/main/requests")" -eq 4 ]'
check "main --pcap: n_pf = L = $L and n_pf + n_tx = C in each" \
  'awk -v L="$L" "{ if (\$3 != L || \$4 != L || \$4 + \$5 != \$2) bad = 1 } END { exit bad }" "$tmp/main/requests"'

if [ $fail -eq 0 ]; then echo "$checks passed, 0 failed"; else cat "$tmp/pdus" | head -20; echo "0 passed, 1 failed"; fi
exit $fail
