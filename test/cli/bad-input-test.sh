#!/usr/bin/env bash
# Bad input to the programs a user runs: each must exit non-zero before simulating and
# name the field (or, for ns-3 attributes, ns-3's CommandLine names the argument).
# An accepted value is checked with --PrintHelp (exit 0 after the checks, before simulating).
# Usage: bad-input-test.sh BIN_DIR
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
expect() { # expected-exit-code message-substring command...
  local code=$1 text=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$code" ] && { [ -z "$text" ] || grep -qF -- "$text" "$tmp/err"; }; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $* -> exit $got, stderr: $(head -c 300 "$tmp/err")"
  fi
}
main="$bin/edge-llm-lte-handover --outputDir=$tmp/o"
expect 2 "backhaulGbps must be in (0, 1000]" $main --backhaulGbps=0
expect 2 "--model must be one of qwen2.5-7b-instruct, qwen3-8b, qwen3-14b, llama-3.1-8b-instruct, got 'gpt'" $main --model=gpt
expect 2 "--numUes must be in [1, 100] at packet level (" $main --numUes=0
expect 2 "--startMin must be in [0, startMax] = [0, 130] m, got 200" $main --startMin=200
expect 2 "--startMax must be in [0, boundary) = [0, 150) m, got -10" $main --startMax=-10
expect 2 "--handoverAlgorithm: 'ns3::Foo' is no ns3::LteHandoverAlgorithm" \
  $main --handoverAlgorithm=ns3::Foo
expect 2 "--lookaheadMs must be in [0, 3.6e6] ms, got -1" $main --lookaheadMs=-1
expect 2 "--figure must be one of 3a, 3b, 3c, 3d, 4 or online, got '5'" $bin/ctho-figures --figure=5
expect 2 "--prefillA must be in [0, 1] s/token, got -1" $bin/ctho-figures --figure=3a --prefillA=-1
expect 2 "kvBits must be in {16, 8, 4}, got 3" $main --kvBits=3
expect 2 "numUes must be in [1, 100] at packet level" $main --numUes=101
expect 2 "contextMin <= contextMax" $main --contextMin=5000
expect 2 "--schemes: unknown scheme 'best'" $main --schemes=best
expect 2 "--schemes: 'ctho' is listed twice" $main --schemes=ctho,ctho
# The MTU's one range, [576, 65535] bytes (edgellm::CheckBackhaulMtu): both sides of each end.
expect 2 "--backhaulMtu must be in [576, 65535] bytes, got 70000" $main --backhaulMtu=70000
expect 2 "--backhaulMtu must be in [576, 65535] bytes, got 575" $main --backhaulMtu=575
expect 2 "--backhaulMtu must be in [576, 65535] bytes, got 65536" \
  $bin/edge-llm-backhaul-study --backhaulMtu=65536 --outputDir=$tmp/o
# TypeId knobs: unknown, the wrong base class, the abstract base, the other RAT's name.
for a in ns3::Foo ns3::Node ns3::LteHandoverAlgorithm ns3::NrA3RsrpHandoverAlgorithm; do
  expect 2 "handoverAlgorithm: '$a' is no ns3::LteHandoverAlgorithm; valid: " \
    $main --handoverAlgorithm=$a
done
# The scenario engine's own names for its handover knob are not the road's TypeIds.
for a in script A3-RSRP A2-A4-RSRQ foo; do
  expect 2 "handoverAlgorithm must be empty (handovers requested at the boundary and announced) or a handover algorithm TypeId, e.g. ns3::A3RsrpHandoverAlgorithm, got '$a'" \
    $main --handoverAlgorithm=$a
done
expect 2 "--outputDir: cannot write" $bin/edge-llm-lte-handover --outputDir=/proc/no/such
# ns-3 attribute defaults and global values, checked before CommandLine::Parse (one shared
# helper, CheckAttributeArguments): exit 2 naming the argument and the valid range.
expect 2 "--ns3::KvTransferConnection::SegmentBytes=1023: invalid value '1023'; valid: uint32_t 1024:" \
  $main --ns3::KvTransferConnection::SegmentBytes=1023
expect 0 "" $main --ns3::KvTransferConnection::SegmentBytes=1024 --PrintHelp
expect 2 "--ns3::EdgeLlmBackhaulTransport::Transport=Sctp: invalid value 'Sctp'; valid: " \
  $main --ns3::EdgeLlmBackhaulTransport::Transport=Sctp
# A bool attribute's refusal says what a bool option's does (fresh-clone trial: "valid: bool").
expect 2 "--ns3::EdgeLlmX2PacketFilter::AckPriority=maybe: invalid value 'maybe'; valid: true or false (or 1 or 0)" \
  $main --ns3::EdgeLlmX2PacketFilter::AckPriority=maybe
expect 2 "--ns3::EdgeLlmBackhaul::RedForLink=2: invalid value '2'; valid: true or false (or 1 or 0)" \
  $main --ns3::EdgeLlmBackhaul::RedForLink=2
expect 2 "--ns3::EdgeLlmSourceRole::LayerwiseStreaming=maybe: invalid value 'maybe'" \
  $main --ns3::EdgeLlmSourceRole::LayerwiseStreaming=maybe
expect 2 "no TypeId 'ns3::Foo'" $main --ns3::Foo::Bar=1
expect 2 "ns3::EdgeLlmNode has no attribute 'Nope'; its own attributes: CellId, Model" \
  $main --ns3::EdgeLlmNode::Nope=1
expect 2 "StartTime is an attribute of ns3::Application, not of ns3::EdgeLlmNode" \
  $main --ns3::EdgeLlmNode::StartTime=1s
expect 2 "--RngRun=abc: invalid value 'abc'" $main --RngRun=abc
expect 2 "--ns3::KvTransferConnection::SegmentBytes=2k: invalid value '2k'; valid: uint32_t 1024:" \
  $main --ns3::KvTransferConnection::SegmentBytes=2k
expect 2 "--ns3::EdgeLlmTargetRole::TransferTimeout=1parsec: invalid value" \
  $main --ns3::EdgeLlmTargetRole::TransferTimeout=1parsec
expect 2 "SimulatorImplementationType: 'ns3::Foo' is no ns3::SimulatorImpl; valid: " \
  $main --SimulatorImplementationType=ns3::Foo
expect 2 "SchedulerType: 'ns3::Node' is no ns3::Scheduler; valid: " $main --SchedulerType=ns3::Node
# Attributes the road scenario sets itself are refused alike (they would be ignored).
for a in EdgeLlmNode::DecodeRate=10:decodeRate EdgeLlmNode::DecodeRate=-1:decodeRate \
  EdgeLlmNode::Model=qwen3-8b:model EdgeLlmNode::KvBits=8:kvBits \
  PrefillEngine::PrefillA=0:prefillA PrefillEngine::BatchPeriod=1ms:batchPeriodMs \
  HandoverScheduler::Lookahead=1s:lookaheadMs EdgeLlmUeApp::MaxNewTokens=9:tokensAfterHandover \
  NoBackhaulEpcHelper::X2LinkDataRate=1Gbps:backhaulGbps \
  NoBackhaulEpcHelper::X2LinkMtu=1500:backhaulMtu LteHelper::HandoverAlgorithm=ns3::Foo:handoverAlgorithm; do
  expect 2 "this program sets this attribute itself, so the value would be ignored; use --${a##*:}" \
    $main --ns3::${a%:*}
done
expect 2 "this program sets this attribute itself, so the value would be ignored; the scenario sets it from its tokenBytes knob" \
  $main --ns3::EdgeLlmNode::TokenBytes=8
expect 2 "--ns3::EdgeLlmNode::DecodeRate=10: this program sets this attribute itself" \
  $bin/ctho-figures --figure=3a --ns3::EdgeLlmNode::DecodeRate=10
expect 2 "--ns3::ImpactHoScheduler::Policy=Equal: this program sets this attribute itself" \
  $bin/impactho-figures --figure=3a --ns3::ImpactHoScheduler::Policy=Equal
expect 2 "--ns3::KvTransferConnection::SegmentBytes=1: invalid value" \
  $bin/impactho-figures --figure=3a --ns3::KvTransferConnection::SegmentBytes=1
expect 2 "StatusInterval is +1us; it must be 0 (no PROGRESS reports) or >= 1 ms" \
  $main --ns3::EdgeLlmTargetRole::StatusInterval=1us
expect 2 "BackhaulSegmentSize is 100000; it must be 0 (link MTU - 52) or in [64, 8948]" \
  $main --ns3::EdgeLlmBackhaulTransport::BackhaulSegmentSize=100000
# Segments in flight: a 512 KiB buffer may hold at most 1024 (ns-3's TCP walks them on
# every ACK): 511 bytes is refused, 512 runs. tHO at 1024 tokens sends no KV bytes.
quick="$main --schemes=tho --numUes=1 --contextMin=1024 --contextMax=1024"
expect 0 "" $quick --backhaulMtu=576
expect 0 "" $quick --backhaulMtu=65535
expect 2 "BackhaulSegmentSize is 511: the 524288-byte backhaul buffer would hold 1027 segments in flight, more than the 1024 that ns-3's TCP simulates in practical time; with this buffer it must be 0 (link MTU - 52) or >= 512" \
  $quick --ns3::EdgeLlmBackhaulTransport::BackhaulSegmentSize=511
# An explicit buffer below the bandwidth-delay product is used, with a warning giving
# the rate it allows: 524288 x 8 / (2 x 100 us + 4 x 9002 x 8 / 100e9) = 20.6 Gbit/s
# (and the run goes ahead: 512-byte segments are accepted).
expect 0 "BackhaulBuffer = 524288 bytes caps the backhaul to cell 2 at 20.6" \
  $quick --backhaulGbps=100 --ns3::EdgeLlmBackhaulTransport::BackhaulBuffer=524288 \
  --ns3::EdgeLlmBackhaulTransport::BackhaulSegmentSize=512
expect 2 "BackhaulBuffer is 16383 bytes; it must be 0 (automatic: from the links' bandwidth-delay product) or >= 16384" \
  $quick --ns3::EdgeLlmBackhaulTransport::BackhaulBuffer=16383
# The node's own checks (EdgeLlmNode::CheckConfiguration) refuse before simulating, in
# every program that runs the packet level: exit 2, nothing written. 1 ms is the boundary.
expect 0 "" $quick --ns3::EdgeLlmTargetRole::StatusInterval=1ms
# Loss-aware replanning's interval: 100 us is the boundary (the attribute's own range).
expect 0 "" $quick --ns3::EdgeLlmTargetRole::ReplanInterval=100us
expect 2 "--ns3::EdgeLlmTargetRole::ReplanInterval=99us: invalid value '99us'; valid: a time in [0.0001, " \
  $quick --ns3::EdgeLlmTargetRole::ReplanInterval=99us
expect 2 "StatusInterval is +999us; it must be 0 (no PROGRESS reports) or >= 1 ms" \
  $quick --ns3::EdgeLlmTargetRole::StatusInterval=999us
expect 2 "StatusInterval is +1us; it must be 0" \
  $bin/ctho-figures --figure=3a --packetLevel=1 --packetRuns=2 --outputDir="$tmp/sfig" \
  --ns3::EdgeLlmTargetRole::StatusInterval=1us
[ ! -e "$tmp/sfig/fig3a.csv" ] || { echo "FAIL: ctho-figures wrote a CSV for a refused run"; fail=$((fail + 1)); }
expect 2 "StatusInterval is +1us; it must be 0" \
  $bin/impactho-figures --figure=3a --packetLevel=1 --packetRuns=1 --outputDir="$tmp/sfig" \
  --ns3::EdgeLlmTargetRole::StatusInterval=1us
[ ! -e "$tmp/sfig/fig3a.csv" ] || { echo "FAIL: impactho-figures wrote a CSV for a refused run"; fail=$((fail + 1)); }
# Program options are parsed strictly before ns-3's CommandLine (which keeps the "1" of
# "1e300", wraps "-1" and exits 1 on text): exit 2 naming the option.
# An option whose owner states its range gives that range, not its type's, for a value
# that does not even parse (--backhaulMtu's is [576, 65535], not [0, 4294967295]); one
# that does not states no range (its type's limit only for a value beyond it).
expect 2 "--numUes=1e300: must be an integer in [1, 100]" $main --numUes=1e300
expect 2 "--numUes=2.5: must be an integer in [1, 100]" $main --numUes=2.5
expect 2 "--numUes=4294967296: must be an integer in [1, 100]" $main --numUes=4294967296
expect 2 "numUes must be in [1, 100] at packet level" $main --numUes=4294967295
expect 2 "--kvBits=x: must be an integer in {16, 8, 4}" $main --kvBits=x
expect 2 "--uesPerSite=-1: must be an integer in [1, 100]" $bin/edge-llm-backhaul-study --uesPerSite=-1
expect 2 "--numSites=abc: must be an integer in {7, 19} (hex) or [2, 57] (road)" \
  $bin/edge-llm-backhaul-study --numSites=abc
expect 2 "--numUes=abc: must be an integer in [1, 10000]" $bin/ctho-figures --numUes=abc
expect 2 "--numUes=1.5: must be an integer in [1, 10000]" $bin/edge-llm-pre-transfer --numUes=1.5
expect 2 "--numUes must be in [1, 10000], got 10001" $bin/edge-llm-pre-transfer --numUes=10001
expect 2 "--runs=abc: must be a whole number (digits only)" $bin/impactho-figures --runs=abc
expect 2 "--runs=4294967296: must be an integer of at most 4294967295 (the option's type)" \
  $bin/impactho-figures --runs=4294967296
expect 2 "--contextMax=4294967296: must be an integer in [1, 10000000] tokens" $main --contextMax=4294967296
expect 2 "contextMax must be in [1, 10000000] tokens, got 4294967295" $main --contextMax=4294967295
expect 2 "--tokensAfterHandover=-1: must be an integer in [1, 10000000] tokens" $main --tokensAfterHandover=-1
expect 2 "--backhaulMtu=abc: must be an integer in [576, 65535] bytes" $main --backhaulMtu=abc
# A refused value prints with every digit it needs, never as the bound it just missed; a
# delay no backhaul rate can serve names its limit (the shorter RRC timer - 20 ms).
expect 2 "--backhaulDelayUs must be in [0, 1e6] us, got 1000001" $main --backhaulDelayUs=1000001
expect 2 "--backhaulGbps must be in (0, 1000] Gbit/s, got 1000.0000001" $main --backhaulGbps=1000.0000001
expect 2 "(backhaulDelay) must be below 180000 us here" $main --backhaulDelayUs=180000
expect 2 "--backhaulGbps must be >= 144.536 Gbit/s" $main --backhaulDelayUs=179999
expect 2 "--backhaulMtu=-576: must be an integer in [576, 65535] bytes" $main --backhaulMtu=-576
expect 2 "--aggregationGbps=fast: must be a number in (0, 1000] Gbit/s" \
  $bin/edge-llm-backhaul-study --aggregationGbps=fast --outputDir=$tmp/o
expect 2 "--backhaulGbps=nan: must be a number in (0, 1000] Gbit/s" $bin/ctho-figures --backhaulGbps=nan
expect 2 "--backhaulGbps=1e999: must be a number in (0, 1000] Gbit/s" $bin/edge-llm-pre-transfer --backhaulGbps=1e999
expect 2 "--speed=nan: must be a finite number" $main --speed=nan
expect 2 "--speed=1e999: must be a finite number" $main --speed=1e999
expect 2 "--schemes=: must not be empty" $main --schemes=
expect 2 "--pcap=maybe: must be true or false" $main --pcap=maybe
expect 2 "--foo: unknown option; valid: --allowBeyondContextWindow --amcModel --backhaulDelayUs" $main --foo=1
expect 2 "'stray': unexpected argument" $main stray
expect 2 "--bogus: unknown option; valid: --allowBeyondContextWindow --backhaulGbps" $bin/ctho-figures --bogus=1
expect 2 "--runs=abc: must be a whole number" $bin/impactho-figures --figure=3a --runs=abc
expect 0 "" $quick --numUes=1 --pcap
# Online-only options without an online handover algorithm would be ignored.
expect 2 "act only on online handovers: give --handoverAlgorithm too" $main --predictArrivals=true
expect 2 "act only on online handovers" $main --lookaheadMs=100
expect 2 "--predictedHandoverX: needs --predictArrivals=true and must be in (0, bsDistance) = (0, 300) m, got 300" \
  $main --handoverAlgorithm=ns3::A3RsrpHandoverAlgorithm --predictArrivals=true --predictedHandoverX=300
expect 2 "--figure is required" $bin/ctho-figures
expect 2 "--runs must be in [2, 1000000]" $bin/ctho-figures --figure=3a --runs=1
expect 2 "--packetRuns must be in [2, 1000]" $bin/ctho-figures --figure=3a --packetLevel=1 --packetRuns=1
expect 2 "--figure must be 3a, 3b, 4a, 4b, 5a, 5b, table2, calibrate or bound" $bin/impactho-figures --figure=9z
expect 2 "--simTime must be in (0, 60] s for --figure=bound" \
  $bin/impactho-figures --figure=bound --simTime=61
expect 2 "--runs must be in [2, 100000]" $bin/impactho-figures --figure=bound --runs=1
expect 2 "--packetLevel does not apply to --figure=bound" \
  $bin/impactho-figures --figure=bound --packetLevel=1
expect 2 "--packetSimTime must be in (0, 1000]" \
  $bin/impactho-figures --figure=3a --packetLevel=1 --packetSimTime=0
# Bad configuration given to EdgeLlmNode through the API: ns-3 aborts (SIGABRT, exit
# 134) after printing the field.
probe=$bin/edge-llm-fatal-probe
expect 134 "ns3::EdgeLlmNode::Model / KvBits: model must be one of qwen2.5-7b-instruct, qwen3-8b, qwen3-14b, llama-3.1-8b-instruct, got 'gpt-17'" \
  $probe --case=unknown-model
expect 134 "backhaul link rate to cell 2 must be > 0 bit/s" $probe --case=zero-backhaul-rate
expect 134 "peer cell id 1 is this BS's own" $probe --case=own-cell-peer
expect 134 "ns3::EdgeLlmNode::Scheduler is not set (cell 1)" $probe --case=no-scheduler
expect 134 "no EPC: no RAN was set and no BS is linked to an SGW, so the BSs' UE-facing addresses are unknown; give the helper the RAN (SetRan, or Install(LteEdgeLlmRan::Wrap(lteHelper, epcHelper, enbDevs, ueDevs))) or pass the SGW: InstallUe(ueNodes, ueDevices, bsApps, epcHelper->GetSgwNode())" \
  $probe --case=ue-without-epc
expect 134 "(a slot policy, which keeps its transfers' state) already serves node 0; node 1 needs its own" \
  $probe --case=shared-slot-scheduler
# EdgeLlmHelper::SetSchedulerType: unknown, the wrong base class, the abstract base.
for t in ns3::Foo ns3::Node ns3::HandoverScheduler; do
  expect 134 "EdgeLlmHelper::SetSchedulerType: '$t' is no ns3::HandoverScheduler; valid: " \
    $probe --case=scheduler-type=$t
done
expect 134 "ns3::ImpactHoScheduler" $probe --case=scheduler-type=ns3::Foo
# EdgeLlmHelper::Set<Part>Attribute: a name the part does not have, a value outside the
# attribute's range (both sides of its end), and a valid one that the installed BS's part
# then holds (WindowGrace in [0, 3600] s, KvMemoryCapacity in [1, 10^15] B).
expect 134 "ns3::EdgeLlmTargetRole has no attribute GatherTime" \
  $probe --case=part-attribute=TargetRole:GatherTime=0s
expect 134 "invalid value '3601s' for ns3::EdgeLlmTargetRole::WindowGrace; valid: " \
  $probe --case=part-attribute=TargetRole:WindowGrace=3601s
expect 3 "part-attribute=TargetRole:WindowGrace=3600s' did not abort" $probe --case=part-attribute=TargetRole:WindowGrace=3600s
expect 134 "invalid value '0' for ns3::EdgeLlmPreTransferRole::KvMemoryCapacity; valid: " \
  $probe --case=part-attribute=PreTransferRole:KvMemoryCapacity=0
expect 3 "PreTransferRole/KvMemoryCapacity = 1" \
  $probe --case=part-attribute=PreTransferRole:KvMemoryCapacity=1
expect 134 "invalid value 'Sctp' for ns3::EdgeLlmBackhaulTransport::Transport; valid: " \
  $probe --case=part-attribute=BackhaulTransport:Transport=Sctp
expect 3 "BackhaulTransport/Transport = Udp" $probe --case=part-attribute=BackhaulTransport:Transport=Udp
expect 3 "part-attribute=SourceRole:GatherTime=1s' did not abort" $probe --case=part-attribute=SourceRole:GatherTime=1s
expect 134 "invalid value '1.001s' for ns3::EdgeLlmSourceRole::GatherTime; valid: " \
  $probe --case=part-attribute=SourceRole:GatherTime=1.001s
expect 2 "--case: unknown case 'x'" $probe --case=x
# A backhaul too slow or too long for a handover's X2 signalling (issue 10, item 6): the
# minimum for MTU 9000 B and 100 us, by hand: 8 (2 x 9002 + 63) / (0.2 - 0.0001 - 0.02) s
# = 803424.1 bit/s, printed rounded up. 1e-5 Gbit/s crashed ns-3's RRC; 8.0e-4 is just below, 8.1e-4 runs.
for r in 1e-9 1e-5 8.0e-4; do
  expect 2 "--backhaulGbps must be >= 0.000803425 Gbit/s (803425 bit/s)" \
    $main --backhaulGbps=$r
done
expect 2 "--backhaulDelayUs (backhaulDelay) must be below 180000 us here" \
  $main --backhaulDelayUs=180000
# A node knob wrong whatever the backhaul is refused before anything is built or printed
# (EdgeLlmHelper::CheckNodeDefaults): nothing on stdout, no output folder.
for a in EdgeLlmTargetRole::StatusInterval=500us EdgeLlmBackhaulTransport::BackhaulBuffer=100 \
  EdgeLlmBackhaulTransport::BackhaulPort=4444 EdgeLlmSourceRole::KvAccuracyLoss=0.1; do
  rm -rf "$tmp/early"
  expect 2 "ns3::${a%%=*} is " $main --outputDir="$tmp/early" --ns3::$a
  if [ -s "$tmp/out" ] || [ -e "$tmp/early" ]; then
    fail=$((fail + 1)); echo "FAIL: --ns3::$a printed or wrote before its error"
  fi
done
expect 0 "" $main --schemes=tho --numUes=1 --contextMin=1024 --contextMax=1024 --kvBits=8 \
  --ns3::EdgeLlmSourceRole::KvAccuracyLoss=0.1
# An attribute that moved from the node to one of its parts says where.
expect 2 "ns3::EdgeLlmNode has no attribute 'TransferTimeout': it moved to ns3::EdgeLlmTargetRole; write --ns3::EdgeLlmTargetRole::TransferTimeout=..." \
  $main --ns3::EdgeLlmNode::TransferTimeout=1s
# The library names the config knob; each program names its own option for it
# (ProgramKnobOptions): the study's x2 backhaul rate is --aggregationGbps.
expect 2 "--aggregationGbps (backhaulGbps) must be >= 0.000803425 Gbit/s" \
  $bin/edge-llm-backhaul-study --backhaul=x2 --aggregationGbps=1e-5 --outputDir=$tmp/s
# Road scenario ranges (issue 10, newcomer findings): each boundary from both sides.
expect 2 "speed must be in [0.1, 138.889] m/s" $quick --speed=0
expect 2 "speed must be in [0.1, 138.889] m/s" $quick --speed=-1
expect 2 "speed must be in [0.1, 138.889] m/s" $quick --speed=1e300
expect 2 "speed must be in [0.1, 138.889] m/s" $quick --speed=138.9
expect 0 "" $quick --speed=138.8
expect 2 "decodeRate must be in [0.001, 1e+06] tokens/s" $quick --decodeRate=1e300
expect 2 "decodeRate must be in [0.001, 1e+06] tokens/s" $quick --decodeRate=0.0009
expect 2 "bsDistance must be in (0, 50000] m" $quick --bsDistance=1e300
expect 2 "bsDistance must be in (0, 50000] m" $quick --bsDistance=50001
expect 0 "" $quick --bsDistance=50000
expect 2 "prefillB must be in [-3600, 3600] s" $quick --prefillB=3601
expect 2 "prefillA must be in [0, 1] s/token" $quick --prefillA=1.1
expect 2 "tokensAfterHandover must be in [1, 10000000] tokens" $quick --tokensAfterHandover=4000000000
expect 2 "tokensAfterHandover must be in [1, 10000000] tokens" $quick --tokensAfterHandover=10000001
expect 0 "" $quick --tokensAfterHandover=10000000
# The boundary at most at the midpoint: 300/299/290..298 ran without a handover (NaN).
expect 2 "boundary must be in (0, bsDistance / 2] = (0, 150] m" \
  $quick --bsDistance=300 --boundary=299 --startMin=290 --startMax=298
expect 2 "boundary must be in (0, bsDistance / 2] = (0, 150] m" $quick --boundary=150.01
expect 0 "" $quick --bsDistance=300 --boundary=150 --startMin=140 --startMax=149
for n in 0 101 1000; do
  expect 2 "numUes must be in [1, 100] at packet level" $main --numUes=$n
done
# Past the old 12-UE cap (the first K its boundary refused): 13 UEs run (tHO, short contexts).
expect 0 "" $main --schemes=tho --numUes=13 --contextMin=1024 --contextMax=1024 \
  --tokensAfterHandover=20
# SRS slots: 2 K of them; 20 UEs fit 40 ms, 21 do not (MultiCellConfig::Validate, before
# any simulation: the accepted side is checked in edge-llm-scale's QUICK rule test).
expect 2 "srsPeriodicity must be >= 2 x uesPerSite (the UEs of one cell; the road: numUes) = 42 ms" \
  $main --numUes=21 --srsPeriodicity=40
expect 2 "srsPeriodicity (ns3::LteEnbRrc::SrsPeriodicity) must be 0 (ns-3's 40) or one of 2, 5" \
  $main --srsPeriodicity=50
# Dedicated preambles: ns-3's 12 (52 contention) held 400 ms for 13 UEs crossing within it.
expect 2 "raPreambles must be <= 48 (64 - 13 dedicated" \
  $main --numUes=13 --raPreambles=52 --preambleTransMax=50
expect 2 "must be 0 (ns-3's 52) or a multiple of 4 in [4, 60]" $main --raPreambles=50
expect 2 "must be 0 (ns-3's 52) or a multiple of 4 in [4, 60]" $main --raPreambles=64
expect 2 "preambleTransMax (ns3::LteEnbMac::PreambleTransMax) must be 0 (ns-3's 50) or one of" \
  $main --preambleTransMax=9
expect 2 "use --srsPeriodicity" $main --ns3::LteEnbRrc::SrsPeriodicity=80
# The CQI-model knob: ns-3's two model names (MiErrorModel as the enum says), nothing else.
expect 2 "amcModel (ns3::LteAmc::AmcModel) must be \"\" (ns-3's default), \"MiErrorModel\" or" \
  $main --amcModel=Vienna
expect 2 "amcModel (ns3::LteAmc::AmcModel) must be" $main --amcModel=piroew2010
expect 0 "" $quick --amcModel=PiroEW2010
expect 2 "use --amcModel" $main --ns3::LteAmc::AmcModel=PiroEW2010
expect 2 "use --raPreambles" $main --ns3::LteEnbMac::NumberOfRaPreambles=40
# The EPC's UDP ports on a BS node: X2-C 4444, GTP-U 2152 (either transport, either port).
for t in Udp Tcp; do
  for p in 4444 2152; do
    expect 2 "ns3::EdgeLlmBackhaulTransport::BackhaulPort is $p; it must not be 4444 (X2-C) or 2152" \
      $quick --ns3::EdgeLlmBackhaulTransport::Transport=$t --ns3::EdgeLlmBackhaulTransport::BackhaulPort=$p
  done
done
expect 2 "ns3::EdgeLlmNode::UePort is 2152; it must not be 4444 (X2-C) or 2152" \
  $quick --ns3::EdgeLlmNode::UePort=2152
expect 2 "UePort and ns3::EdgeLlmBackhaulTransport::BackhaulPort are both 9000; with Transport=Udp they must differ" \
  $quick --ns3::EdgeLlmBackhaulTransport::Transport=Udp --ns3::EdgeLlmBackhaulTransport::BackhaulPort=9000
expect 0 "" $quick --ns3::EdgeLlmBackhaulTransport::Transport=Udp --ns3::EdgeLlmBackhaulTransport::BackhaulPort=4445
# The separate control channel's UDP port: not the EPC's, not UePort, not BackhaulPort
# with Transport=Udp (both sides of each rule; checked only with ControlChannel=Separate).
sep="--ns3::EdgeLlmBackhaulTransport::ControlChannel=Separate"
for p in 4444 2152; do
  expect 2 "ns3::EdgeLlmBackhaulTransport::ControlPort is $p; it must not be 4444 (X2-C) or 2152" \
    $quick $sep --ns3::EdgeLlmBackhaulTransport::ControlPort=$p
done
expect 0 "" $quick $sep --ns3::EdgeLlmBackhaulTransport::ControlPort=4445
expect 2 "ns3::EdgeLlmBackhaulTransport::ControlPort is 9000, as UePort; with ControlChannel=Separate" \
  $quick $sep --ns3::EdgeLlmBackhaulTransport::ControlPort=9000
expect 2 "ns3::EdgeLlmBackhaulTransport::ControlPort is 9001, as BackhaulPort with Transport=Udp" \
  $quick $sep --ns3::EdgeLlmBackhaulTransport::Transport=Udp --ns3::EdgeLlmBackhaulTransport::ControlPort=9001
expect 0 "" $quick $sep --ns3::EdgeLlmBackhaulTransport::Transport=Tcp --ns3::EdgeLlmBackhaulTransport::ControlPort=9001
# Second newcomer pass: values that overflowed ns-3's Time, a crawling UE, a buffer past
# TCP's window limit, the Application start/stop the scenario sets (both sides each).
expect 2 "speed must be in [0.1, 138.889] m/s" $quick --speed=0.0999
expect 0 "" $quick --speed=0.1
expect 2 "--backhaulDelayUs must be in [0, 1e6] us" $quick --backhaulDelayUs=1e300
# The batching period's one range, [0, 1] s (edgellm::CheckBatchPeriod, PrefillEngine's
# BatchPeriod checker): both sides of each end, in the programs' ms and the attribute's s.
expect 2 "--batchPeriodMs must be in [0, 1000] ms, got 1000.1" $quick --batchPeriodMs=1000.1
expect 0 "" $quick --batchPeriodMs=1000
expect 2 "--batchPeriodMs must be in [0, 1000] ms, got -0.001" $quick --batchPeriodMs=-0.001
expect 0 "" $quick --batchPeriodMs=0
expect 2 "--batchPeriodMs must be in [0, 1000] ms, got 1000.1" \
  $bin/edge-llm-backhaul-study --batchPeriodMs=1000.1 --outputDir=$tmp/o
expect 2 "--batchPeriod: must be a number in [0, 1]" $bin/edge-llm-plan --scheme=ctho \
  --ues="$(dirname "$0")/four-ues.csv" --batchPeriod=1.001
expect 2 "BackhaulBuffer is 1073741825 bytes; it must be at most 1073741824" \
  $quick --ns3::EdgeLlmBackhaulTransport::BackhaulBuffer=1073741825
expect 2 "--ns3::Application::StopTime=1s: this program sets this attribute itself" \
  $quick --ns3::Application::StopTime=1s
expect 2 "--backhaulGbps: Fig. 3a sweeps it; drop the option" $bin/ctho-figures --figure=3a --backhaulGbps=2
expect 2 "--backhaulGbps must be in (0, 1000] Gbit/s" $bin/ctho-figures --figure=3b --backhaulGbps=1e300
expect 2 "--packetLevel applies to Figs. 3a-3d and 4, not to online" \
  $bin/ctho-figures --figure=online --packetLevel=1
# --contextMin (the K = 12 reproduction with equal contexts): refused out of range, and the
# accepted run prints the paper's 0.95 / 1.25 / 3.35 s (within 1 %) at K = 12.
expect 2 "contextMin must be in [1, contextMax] (contextMin <= contextMax), got contextMin = 5000, contextMax = 4096" \
  $bin/ctho-figures --figure=3d --contextMin=5000
expect 2 "--contextMin must be in [1, 10000000] tokens, got 0" $bin/ctho-figures --figure=3d --contextMin=0
expect 2 "--contextMin must be in [1, 2048] for Fig. 3c" $bin/ctho-figures --figure=3c --contextMin=2049
expect 0 "" $bin/ctho-figures --figure=3c --contextMin=2048 --runs=2 --outputDir="$tmp/c3c"
"$bin/ctho-figures" --figure=3d --contextMin=8704 --contextMax=8704 --backhaulGbps=12.7 \
  --outputDir="$tmp/k12" >"$tmp/k12.out" 2>/dev/null
if grep -qE '^fig3d x = 12: cho 3\.3[0-9]+ s ctho 0\.9[4-6][0-9]+ s tho 1\.2[4-6][0-9]+ s$' "$tmp/k12.out"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL: ctho-figures K = 12 with equal contexts: $(grep 'x = 12:' "$tmp/k12.out")"
fi
# A Time attribute past int64 nanoseconds would wrap inside ns-3 (then pass the range).
expect 2 "--ns3::EdgeLlmTargetRole::TransferTimeout=1e300s: invalid value" $main --ns3::EdgeLlmTargetRole::TransferTimeout=1e300s
expect 2 "--ns3::EdgeLlmSourceRole::GatherTime=1e300s: invalid value" $main --ns3::EdgeLlmSourceRole::GatherTime=1e300s
# edge-llm-backhaul-study (issue 11): its own options, refused before simulating.
study="$bin/edge-llm-backhaul-study --outputDir=$tmp/s"
expect 2 "--loads: '0.95' must be a number in [0, 0.9]" $study --loads=0.95
# EdgeLlmBackhaul's closed choices are enums: refused by name before anything runs, in
# the study and in the main job, which builds no EdgeLlmBackhaul (once silently ignored).
expect 2 "--ns3::EdgeLlmBackhaul::RouterRouting=Global: invalid value 'Global'; valid: EdgeLlm|Static" \
  $study --ns3::EdgeLlmBackhaul::RouterRouting=Global
expect 2 "--ns3::EdgeLlmBackhaul::CrossTraffic=Poisson: invalid value 'Poisson'; valid: OnOff|BulkSend" \
  $main --ns3::EdgeLlmBackhaul::CrossTraffic=Poisson
# The engine sets TopologyFormat from its backhaulFileFormat knob, for every preset: the road
# (which builds no EdgeLlmBackhaul) refuses it as not used once the value is valid, the
# study names its option.
expect 2 "--ns3::EdgeLlmBackhaul::TopologyFormat=Gml: invalid value 'Gml'; valid: Inet|Orbis|Rocketfuel" \
  $main --ns3::EdgeLlmBackhaul::TopologyFormat=Gml
expect 2 "--ns3::EdgeLlmBackhaul::TopologyFormat=Orbis: not used: the road's backhaul is the RAN's own X2 link; use edge-llm-backhaul-study (--backhaul) for EdgeLlmBackhaul" \
  $main --ns3::EdgeLlmBackhaul::TopologyFormat=Orbis
expect 2 "this program sets this attribute itself, so the value would be ignored; use --backhaulFileFormat" \
  $study --ns3::EdgeLlmBackhaul::TopologyFormat=Inet
expect 2 "--ns3::EdgeLlmBackhaul::RouterRouting=: invalid value ''" \
  $main --ns3::EdgeLlmBackhaul::RouterRouting=
expect 2 "--loads: '-0.1' must be a number in [0, 0.9]" $study --loads=0,-0.1
expect 2 "--loads: 'x' must be a number in [0, 0.9]" $study --loads=x
expect 2 "--loads: 0.5 is listed twice" $study --loads=0.5,0.5
expect 2 "--loads: give one or more numbers" $study --loads=0.5,
expect 2 "--schemes: unknown scheme 'best'; valid schemes: ctho, tho, cho, tc-ctho, pre-ctho, impactho, ea, wta, pf, pre-impactho" $study --schemes=ctho,best
expect 2 "--ns3::ImpactHoScheduler::Policy=Equal: this program sets this attribute itself, so the value would be ignored; set per scheme: impactho (WaterFilling), ea (Equal), wta (Wta), pf (Pf)" \
  $study --ns3::ImpactHoScheduler::Policy=Equal
expect 2 "--schemes: 'tho' is listed twice" $study --schemes=tho,tho
expect 2 "must name a queue disc (leave the option out for the FIFO default); valid as the KV band: " $study --queueDisc=
expect 2 "TbfQueueDisc cannot be the KV band" $study --queueDisc=ns3::TbfQueueDisc
expect 2 "--aggregationGbps must be in (0, 1000] Gbit/s" $study --aggregationGbps=0
expect 2 "--aggregationGbps must be in (0, 1000] Gbit/s" $study --aggregationGbps=1000.5
expect 2 "numSites must be in {7, 19} (hex) or [2, 57] (road), got 8 for the hex layout" $study --numSites=8
expect 2 "numSites must be in {7, 19} (hex) or [2, 57] (road), got 58 for the road layout" $study --layout=road --numSites=58
expect 2 "uesPerSite must be in [1, 100]" $study --uesPerSite=101
expect 2 "uesPerSite must be in [1, 100]" $study --uesPerSite=0
expect 2 "roads must be cycle or random, got 'chain'" $study --roads=chain
# Not an error, but said: tc-ctho without announced handovers plans as ctHO.
expect 0 "note: tc-ctho coordinates announced handovers; with --handover=A3-RSRP" \
  $study --schemes=tc-ctho --handover=A3-RSRP --uesPerSite=1 --loads=0 --monitorIntervalMs=0
expect 2 "--platoonSpreadMs must be in [0, 60000] ms" $study --platoonSpreadMs=1e300
expect 2 "--backhaulDelayUs must be in [0, 1e6] us" $study --backhaulDelayUs=1e300
expect 2 "--promptMin must be in [1, promptMax] = [1, 1000] tokens, got 2000" $study --promptMin=2000 --promptMax=1000
expect 2 "--promptMax must be in [1, 1000000] tokens, got 0" $study --promptMax=0
expect 2 "backhaul must be mesh, star, ring, file or x2, got 'bus'" $study --backhaul=bus
expect 2 "backhaul file needs backhaulFile, a readable topology file, got '/no/such.inet'" $study --backhaul=file --backhaulFile=/no/such.inet
expect 2 "queueDisc: 'ns3::Node' is no ns3::QueueDisc" $study --queueDisc=ns3::Node
expect 2 "--ns3::EdgeLlmBackhaul::LinkDataRate=1Gbps: this program sets this attribute itself" \
  $study --ns3::EdgeLlmBackhaul::LinkDataRate=1Gbps
expect 2 "--ns3::LteEnbRrc::SrsPeriodicity=80: this program sets this attribute itself" \
  $study --ns3::LteEnbRrc::SrsPeriodicity=80
expect 2 "--planWithCrossTraffic=maybe: must be true or false" $study --planWithCrossTraffic=maybe
expect 2 "--promptTimeMs must be in (0, 10000] ms" $study --promptTimeMs=0
expect 2 "--monitorIntervalMs must be 0 (no monitor) or in (0, 10000] ms" $study --monitorIntervalMs=-1
expect 2 "--outputDir: cannot write" $bin/edge-llm-backhaul-study --outputDir=/proc/no/such
# A string option is taken whole: ns-3.37's CommandLine reads strings with operator>>, so
# a folder with a blank was cut at it and the outputs went to another folder (exit 0).
expect 0 "" $bin/ctho-figures --figure=3a --runs=2 "--outputDir=$tmp/a b/c"
if [ -f "$tmp/a b/c/fig3a.csv" ] && [ ! -e "$tmp/a" ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL: ctho-figures --outputDir='$tmp/a b/c' did not write '$tmp/a b/c/fig3a.csv'"
fi
expect 2 "unknown scheme 'ctho tho'" $main "--schemes=ctho tho"
# edge-llm-pre-transfer (flow level): each knob on both sides of its boundary; an accepted
# value runs one tiny point (1 UE, 1 run) and writes nothing for a refused one.
pre="$bin/edge-llm-pre-transfer --numUes=1 --runs=1"
expect 2 "--offsets must be a comma-separated list of dB values in [-15, 15]" \
  $pre --offsets=-15.5 --outputDir="$tmp/pre1"
expect 2 "--offsets must be a comma-separated list of dB values in [-15, 15]" \
  $pre --offsets=15.01 --outputDir="$tmp/pre1"
expect 0 "" $pre --offsets=-15,15 --outputDir="$tmp/pre0"
for bad in abc "-6,,0" "-6,x" "1e999" "nan"; do
  expect 2 "--offsets must be a comma-separated list" $pre "--offsets=$bad" --outputDir="$tmp/pre1"
done
expect 2 "--runs must be in [1, 4294967295], got 0" $pre --runs=0 --outputDir="$tmp/pre1"
expect 2 "--rateShare must be in (0, 1]" $pre --rateShare=0 --outputDir="$tmp/pre1"
expect 2 "--rateShare must be in (0, 1]" $pre --rateShare=1.01 --outputDir="$tmp/pre1"
expect 0 "" $pre --rateShare=1 --outputDir="$tmp/pre0"
expect 2 "--kvMemoryGb must be in [1e-9, 1e+06] GB (1 byte to 10^15 bytes), got 0" $pre --kvMemoryGb=0 --outputDir="$tmp/pre1"
expect 0 "" $pre --kvMemoryGb=1e-9 --outputDir="$tmp/pre0"
# The byte boundaries: below 1 byte, above 10^15 bytes (KvMemoryCapacity's range); nan, inf.
expect 2 "--kvMemoryGb must be in [1e-9, 1e+06] GB" $pre --kvMemoryGb=1e-12 --outputDir="$tmp/pre1"
expect 2 "--kvMemoryGb must be in [1e-9, 1e+06] GB" $pre --kvMemoryGb=1e7 --outputDir="$tmp/pre1"
expect 2 "--kvMemoryGb must be in [1e-9, 1e+06] GB" $pre --kvMemoryGb=1e300 --outputDir="$tmp/pre1"
expect 2 "kvMemoryGb" $pre --kvMemoryGb=nan --outputDir="$tmp/pre1"
expect 0 "" $pre --kvMemoryGb=1e6 --runs=1 --outputDir="$tmp/pre0"
expect 2 "--batching must be known or online, got 'sometimes'" $pre --batching=sometimes \
  --outputDir="$tmp/pre1"
expect 2 "--stopShare must be in [0, 1]" $pre --stopShare=1.01 --outputDir="$tmp/pre1"
expect 0 "" $pre --stopShare=1 --outputDir="$tmp/pre0"
expect 2 "--decodeRate must be a finite number > 0 tokens/s" $pre --decodeRate=0 --outputDir="$tmp/pre1"
expect 2 "--startMin must be in [0, startMax] = [0, 130] m, got 140" \
  $pre --startMin=140 --startMax=130 --outputDir="$tmp/pre1"
expect 2 "--startMax must be in [0, boundary) = [0, 150) m, got 150" \
  $pre --startMax=150 --outputDir="$tmp/pre1"
expect 0 "" $pre --startMin=130 --startMax=130 --outputDir="$tmp/pre0"
expect 0 "" $pre --startMax=149.9 --outputDir="$tmp/pre0"
# One backhaul range for both levels (edgellm::CheckBackhaulGbps): both sides of each end.
expect 2 "--backhaulGbps must be in (0, 1000] Gbit/s, got 0" $pre --backhaulGbps=0 --outputDir="$tmp/pre1"
expect 2 "backhaulGbps must be in (0, 1000] Gbit/s, got 1000.001" $pre --backhaulGbps=1000.001 \
  --outputDir="$tmp/pre1"
expect 0 "" $pre --backhaulGbps=1000 --outputDir="$tmp/pre0"
expect 2 "use --offsets" $pre --ns3::PreTransferScheduler::A3Offset=-6 --outputDir="$tmp/pre1"
expect 2 "ns3::PreTransferScheduler::HoldTime" $pre --ns3::PreTransferScheduler::HoldTime=-1s \
  --outputDir="$tmp/pre1"
# The main job's pre-ctho: an inner policy that is no batch policy, and the flow-level-only
# YieldToHandovers false, refused before anything runs.
expect 2 "set per scheme: pre-ctho (ns3::CtHoScheduler)" \
  $main --schemes=pre-ctho --ns3::PreTransferScheduler::InnerScheduler=ns3::ThoScheduler
expect 2 "YieldToHandovers=false is modelled at flow level only" \
  $main --numUes=1 --schemes=ctho,pre-ctho --ns3::PreTransferScheduler::YieldToHandovers=false
expect 2 "Trigger=PredictedCrossing needs scripted handovers" \
  $main --numUes=1 --schemes=pre-ctho --handoverAlgorithm=ns3::A3RsrpHandoverAlgorithm \
  --ns3::PreTransferScheduler::Trigger=PredictedCrossing
expect 0 "" $main --numUes=1 --contextMax=1024 --schemes=pre-ctho \
  --ns3::PreTransferScheduler::Trigger=PredictedCrossing
# pre-X exists for the main job's X = ctho and impactho only.
expect 2 "unknown scheme 'pre-tho'; valid schemes: ctho, tho, cho, pre-ctho, impactho, ea, wta, pf, pre-impactho" \
  $main --schemes=pre-tho
expect 0 "" $main --numUes=1 --contextMax=1024 --schemes=pre-impactho
# A trailing comma or an empty name is refused, not ignored (main job and study alike).
expect 2 "--schemes: give one or more of ctho, tho, cho, pre-ctho, impactho, ea, wta, pf, pre-impactho" \
  $main --schemes=pre-impactho,
expect 2 "--schemes: give one or more of ctho, tho, cho" $main --schemes=ctho,,tho
expect 2 "--schemes: give one or more of ctho, tho, cho" $main --schemes=,pre-ctho
expect 2 "--schemes: give one or more of" $study --schemes=,pre-ctho
expect 2 "--schemes: give one or more of" $study --schemes=ctho,,tho
expect 2 "--schemes: give one or more of" $study --schemes=pre-impactho,
# WindowGrace and PingPongTime: [0, 3600] s, both ends valid.
expect 2 "ns3::EdgeLlmTargetRole::WindowGrace" $main --numUes=1 --schemes=impactho \
  --ns3::EdgeLlmTargetRole::WindowGrace=-1ns
expect 2 "ns3::EdgeLlmTargetRole::WindowGrace" $main --numUes=1 --schemes=impactho \
  --ns3::EdgeLlmTargetRole::WindowGrace=3601s
expect 0 "" $main --numUes=1 --contextMax=1024 --schemes=impactho --ns3::EdgeLlmTargetRole::WindowGrace=0s
expect 2 "ns3::PreTransferScheduler::PingPongTime" $main --numUes=1 --schemes=pre-ctho \
  --ns3::PreTransferScheduler::PingPongTime=-1ns
expect 2 "ns3::PreTransferScheduler::PingPongTime" $main --numUes=1 --schemes=pre-ctho \
  --ns3::PreTransferScheduler::PingPongTime=3601s
expect 0 "" $main --numUes=1 --contextMax=1024 --schemes=pre-ctho \
  --ns3::PreTransferScheduler::PingPongTime=3600s
# The RRC's time-to-trigger is 16 bits of ms; a negative memory must not wrap to 2^64 - 1.
expect 2 "ns3::PreTransferScheduler::TimeToTrigger" $main --numUes=1 --schemes=pre-ctho \
  --ns3::PreTransferScheduler::TimeToTrigger=65536ms
expect 0 "" $main --numUes=1 --contextMax=1024 --schemes=pre-ctho \
  --ns3::PreTransferScheduler::TimeToTrigger=65535ms
expect 2 "ns3::EdgeLlmPreTransferRole::KvMemoryCapacity" $main --numUes=1 --schemes=pre-ctho \
  --ns3::EdgeLlmPreTransferRole::KvMemoryCapacity=-1
expect 2 "ns3::EdgeLlmPreTransferRole::KvMemoryCapacity" $main --numUes=1 --schemes=pre-ctho \
  --ns3::EdgeLlmPreTransferRole::KvMemoryCapacity=1000000000000001
expect 0 "" $main --numUes=1 --contextMax=1024 --schemes=pre-ctho \
  --ns3::EdgeLlmPreTransferRole::KvMemoryCapacity=1000000000000000
expect 2 "set per scheme: pre-ctho (ns3::CtHoScheduler), pre-impactho (ns3::ImpactHoScheduler" \
  $main --schemes=pre-impactho --ns3::PreTransferScheduler::InnerScheduler=ns3::ImpactHoScheduler
expect 2 "set per scheme: pre-ctho (ns3::CtHoScheduler)" $study --schemes=pre-ctho \
  --ns3::PreTransferScheduler::InnerScheduler=ns3::ChoScheduler
expect 2 "Trigger=PredictedCrossing needs scripted handovers" $study --schemes=pre-ctho \
  --handover=A3-RSRP --ns3::PreTransferScheduler::Trigger=PredictedCrossing
expect 2 "the program sweeps the A3 trigger's offset" $pre \
  --ns3::PreTransferScheduler::Trigger=PredictedCrossing --outputDir="$tmp/pre1"
expect 2 "--offsets must be a comma-separated list" $pre "--offsets=-3," --outputDir="$tmp/pre1"
expect 2 "--offsets: -6 is listed twice" $pre "--offsets=-6,0,-6" --outputDir="$tmp/pre1"
expect 2 "--offsets: -6.0 is listed twice" $pre "--offsets=-6,-6.0" --outputDir="$tmp/pre1"
[ ! -e "$tmp/pre1/pre-transfer-delay.csv" ] ||
  { echo "FAIL: edge-llm-pre-transfer wrote a CSV for a refused run"; fail=$((fail + 1)); }
[ -s "$tmp/pre0/pre-transfer-ues.csv" ] ||
  { echo "FAIL: edge-llm-pre-transfer wrote no CSV for an accepted run"; fail=$((fail + 1)); }

# Issue 45 point 5: an attribute of a type of this module the program never builds is
# refused, naming why (exit 2), before anything runs; where the type is built it is not.
# The main job's backhaul is the RAN's own X2 link: no EdgeLlmBackhaul.
for a in QueueDisc=ns3::Foo Topology=Star LinkDataRate=1kbps; do
  expect 2 "--ns3::EdgeLlmBackhaul::$a: not used: the road's backhaul is the RAN's own X2 link; use edge-llm-backhaul-study (--backhaul) for EdgeLlmBackhaul" \
    $main --ns3::EdgeLlmBackhaul::$a
done
# The study builds one (mesh by default): the same three are its own knobs' (not "not used").
expect 2 "--ns3::EdgeLlmBackhaul::QueueDisc=ns3::Foo: this program sets this attribute itself, so the value would be ignored; use --queueDisc" \
  $study --ns3::EdgeLlmBackhaul::QueueDisc=ns3::Foo
expect 2 "--ns3::EdgeLlmBackhaul::Topology=Star: this program sets this attribute itself, so the value would be ignored; use --backhaul" \
  $study --ns3::EdgeLlmBackhaul::Topology=Star
expect 2 "--ns3::EdgeLlmBackhaul::LinkDataRate=1kbps: this program sets this attribute itself, so the value would be ignored; use --aggregationGbps" \
  $study --ns3::EdgeLlmBackhaul::LinkDataRate=1kbps
# One it does not set: used with a built backhaul (star), not used with backhaul x2.
tiny="--numSites=2 --layout=road --uesPerSite=1 --loads=0 --schemes=cho"
expect 2 "--ns3::EdgeLlmBackhaul::SignallingPriority=false: not used: the backhaul is the RAN's own X2 link (backhaul x2)" \
  $study $tiny --backhaul=x2 --ns3::EdgeLlmBackhaul::SignallingPriority=false
expect 0 "" $study $tiny --backhaul=star --ns3::EdgeLlmBackhaul::SignallingPriority=false
# Schedulers: only those the schemes run build (HandoverSchemeRegistry::TypesUnused).
expect 2 "--ns3::ImpactHoScheduler::TransferWindow=400ms: not used: no scheme of this run builds it (running: tho); schemes that do: impactho, ea, wta, pf, pre-impactho" \
  $quick --ns3::ImpactHoScheduler::TransferWindow=400ms
expect 0 "" $main --numUes=1 --contextMax=1024 --schemes=impactho \
  --ns3::ImpactHoScheduler::TransferWindow=400ms
expect 2 "--ns3::PreTransferScheduler::PingPongTime=1s: not used: no scheme of this run builds it (running: tho)" \
  $quick --ns3::PreTransferScheduler::PingPongTime=1s
# Flow-level programs build no BS, UE, link or GPU of this module.
expect 2 "--ns3::EdgeLlmTargetRole::TransferTimeout=1s: not used: ctho-figures runs at flow level without --packetLevel=1" \
  $bin/ctho-figures --figure=3a --ns3::EdgeLlmTargetRole::TransferTimeout=1s --outputDir="$tmp/f45"
expect 2 "--ns3::EdgeLlmBackhaul::RedForLink=true: not used: impactho-figures runs at flow level (--figure=3a, without --packetLevel=1)" \
  $bin/impactho-figures --figure=3a --ns3::EdgeLlmBackhaul::RedForLink=true --outputDir="$tmp/i45"
expect 2 "--ns3::CoordinatedCtHoScheduler::PlanLead=1s: not used: no scheme of this run builds it (running: impactho, ea, wta, pf); schemes that do: tc-ctho" \
  $bin/impactho-figures --figure=3a --ns3::CoordinatedCtHoScheduler::PlanLead=1s --outputDir="$tmp/i45"
expect 2 "--ns3::EdgeLlmUeApp::PromptRetry=1s: not used: edge-llm-pre-transfer runs at flow level" \
  $pre --ns3::EdgeLlmUeApp::PromptRetry=1s --outputDir="$tmp/pre45"
expect 2 "--ns3::ImpactHoClairvoyantBound::TimeLimit=10s: not used: only --figure=bound runs the clairvoyant bound" \
  $bin/impactho-figures --figure=3a --ns3::ImpactHoClairvoyantBound::TimeLimit=10s --outputDir="$tmp/i45"
# edge-llm-plan takes no attribute at all (an unknown option).
expect 2 "--ns3::EdgeLlmBackhaul::Topology: unknown option; valid options:" \
  $bin/edge-llm-plan --scheme=ctho --ues="$(dirname "$0")/four-ues.csv" --ns3::EdgeLlmBackhaul::Topology=Star

# Contexts beyond the model's window (131,072 tokens for every preset, LlmModelProfile):
# the window is accepted, one more refused naming the field, the model and the window,
# unless --allowBeyondContextWindow=1. A later check's error shows the window passed.
window="exceeds the context window of qwen2.5-7b-instruct (131072 tokens); set allowBeyondContextWindow to simulate it anyway"
expect 2 "--contextMax = 131073 tokens $window" $main --contextMax=131073
expect 2 "bsDistance must be in (0, " $main --contextMax=131072 --bsDistance=0
expect 2 "bsDistance must be in (0, " $main --contextMax=131073 --allowBeyondContextWindow=1 --bsDistance=0
expect 2 "--promptMax = 131073 tokens $window" $study --promptMax=131073
expect 2 "--outputDir: cannot write" $bin/edge-llm-backhaul-study --promptMax=131072 --outputDir=/proc/no/such
expect 2 "--outputDir: cannot write" $bin/edge-llm-backhaul-study --promptMax=131073 \
  --allowBeyondContextWindow=1 --outputDir=/proc/no/such
expect 2 "--contextMax = 131073 tokens $window" $bin/ctho-figures --figure=3a --contextMax=131073
expect 2 "--outputDir: cannot write" $bin/ctho-figures --figure=3a --contextMax=131072 --outputDir=/proc/no/such
printf 'ue_id,handover_time_s,context_tokens\n1,1.0,131072\n2,1.1,%s\n' 131073 >"$tmp/beyond.csv"
printf 'ue_id,handover_time_s,context_tokens\n1,1.0,131072\n' >"$tmp/window.csv"
expect 2 "beyond.csv:3: context_tokens = 131073 tokens $window" \
  $bin/edge-llm-plan --scheme=tho --ues="$tmp/beyond.csv"
expect 0 "" $bin/edge-llm-plan --scheme=tho --ues="$tmp/window.csv"
grep -qF '"note"' "$tmp/out" && { echo "FAIL: edge-llm-plan notes a context within the window"; fail=$((fail + 1)); }
expect 0 "" $bin/edge-llm-plan --scheme=tho --ues="$tmp/beyond.csv" --allowBeyondContextWindow=1
grep -qF '"note": "note: contexts up to 131073 tokens exceed the context window of qwen2.5-7b-instruct (131072 tokens): allowed by allowBeyondContextWindow"' "$tmp/out" ||
  { echo "FAIL: edge-llm-plan does not say it allowed a context beyond the window"; fail=$((fail + 1)); }
expect 2 "--allowBeyondContextWindow: must be 0 or 1, got 'yes'" \
  $bin/edge-llm-plan --scheme=tho --ues="$tmp/window.csv" --allowBeyondContextWindow=yes

# Sites from a file, vehicles from a trace (issue 45): line-numbered errors, and the options
# they replace refused beside them.
study="$bin/edge-llm-backhaul-study --outputDir=$tmp/o"
data=$(cd "$(dirname "$0")/../data/trace" && pwd)
printf '$node_(0) set X_ 0\n$node_(0) set Y_ 0\n$ns_ at 1 "$node_(3) setdest 1 1 1"\n' >"$tmp/bad.ns2"
expect 2 "bad.ns2:3: unknown node \$node_(3)" $study --mobilityTrace="$tmp/bad.ns2"
printf '$node_(0) set X_ 0\n$node_(0) set Y_ 0\n$ns_ at 2 "$node_(0) setdest 1 1 1"\n$ns_ at 1 "$node_(0) setdest 2 2 1"\n' >"$tmp/back.ns2"
expect 2 "back.ns2:4: time goes backwards for \$node_(0): 1 s after 2 s" $study --mobilityTrace="$tmp/back.ns2"
expect 2 "--uesPerSite means nothing with --mobilityTrace" \
  $study --mobilityTrace="$data/two-vehicles.ns2" --uesPerSite=3
expect 2 "--numSites means nothing with --siteFile" $study --siteFile="$data/three-sites.csv" --numSites=7
expect 2 "--traceMinDwellMs means nothing without --mobilityTrace" $study --traceMinDwellMs=100
expect 2 "--traceMinDwellMs must be in [0, 60000] ms, got 60001" \
  $study --mobilityTrace="$data/two-vehicles.ns2" --traceMinDwellMs=60001
expect 2 "--mobilityActivity means nothing without --mobilityTrace" \
  $study --mobilityActivity="$data/two-vehicles.activity"
# The main job (the road) takes a trace too: the same errors, the road's draw refused beside it.
expect 2 "bad.ns2:3: unknown node \$node_(3)" $main --mobilityTrace="$tmp/bad.ns2"
for option in numUes=4 startMin=10 startMax=100 speed=10 boundary=100 warmupOnGpu=1; do
  expect 2 "--${option%=*} means nothing with --mobilityTrace" \
    $main --mobilityTrace="$data/road-both-ways.ns2" --"$option"
done
expect 2 "--mobilityActivity means nothing without --mobilityTrace" \
  $main --mobilityActivity="$data/road-both-ways.activity"
expect 2 "--traceMinDwellMs must be in [0, 60000] ms, got -1" \
  $main --mobilityTrace="$data/road-both-ways.ns2" --traceMinDwellMs=-1
# A valid trace in which no vehicle hands over (x from 20 to 120 m, the cells change at 150 m;
# road-both-ways, the golden main-trace set, is the other side): exit 0, said, a plot.
printf '$node_(0) set X_ 20\n$node_(0) set Y_ 10\n$ns_ at 1 "$node_(0) setdest 120 10 20"\n' >"$tmp/stay.ns2"
expect 0 "" $main --mobilityTrace="$tmp/stay.ns2" --schemes=ctho
for line in "every handover: 0 started (0 implied by the trace), 0 restored, n/a" \
  "worst-user delay: n/a (no UE handed over)"; do
  grep -qF "$line" "$tmp/out" || { echo "FAIL: no-handover trace: no '$line'"; fail=$((fail + 1)); }
done
[ -s "$tmp/o/handover-delays.png" ] || { echo "FAIL: no-handover trace: empty PNG"; fail=$((fail + 1)); }
printf 'id,x,y,height,txPowerDbm\na,0,0,301,43\nb,300,0,30,43\n' >"$tmp/sites.csv"
expect 2 "sites.csv:2: height must be in [0, 300], got 301" $study --siteFile="$tmp/sites.csv"
expect 2 "siteFile is read with layout file only" \
  $study --siteFile="$data/three-sites.csv" --layout=hex
# Sectors (azimuth, beamwidth): both columns or neither, each in its range, with a trace.
printf 'id,x,y,height,txPowerDbm,azimuth\na,0,0,30,43,0\nb,300,0,30,43,0\n' >"$tmp/lone.csv"
expect 2 "lone.csv:1: the header has azimuth but no beamwidth" $study --siteFile="$tmp/lone.csv"
printf 'id,x,y,height,txPowerDbm,azimuth,beamwidth\na,0,0,30,43,0,65\nb,0,0,30,43,120,0\nc,300,0,30,43,0,360\n' >"$tmp/narrow.csv"
expect 2 "narrow.csv:3: beamwidth must be in (0, 360], got 0" \
  $study --siteFile="$tmp/narrow.csv" --mobilityTrace="$data/past-two-sectors.ns2"
expect 2 "sector antennas (azimuth, beamwidth columns) need mobility trace" \
  $study --siteFile="$data/two-sectors.csv"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
