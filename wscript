# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# waf build of the edge-llm module for waf-era ns-3 (<= 3.35): place this directory
# at contrib/edge-llm. CMakeLists.txt is the primary build (ns-3 >= 3.36 and
# standalone); keep the file lists of both in step.

import re

MODULE_SOURCES = [
    'model/llm-model-profile.cc',
    'model/prefill-time-model.cc',
    'model/llm-request-trace.cc',
    'model/ctho-planner.cc',
    'model/coordinated-planner.cc',
    'model/handover-scheduler.cc',
    'model/handover-batcher.cc',
    'model/ctho-scheduler.cc',
    'model/pre-transfer-scheduler.cc',
    'model/handover-scheme-registry.cc',
    'model/kv-pre-transfer-store.cc',
    'model/kv-transfer-header.cc',
    'model/kv-transfer-connection.cc',
    'model/kv-datagram-header.cc',
    'model/kv-datagram-socket.cc',
    'model/prefill-engine.cc',
    'model/fluid-pre-transfer.cc',
    'model/edge-llm-serving-gpu.cc',
    'model/gpu-iteration-model.cc',
    'model/continuous-batching-gpu.cc',
    'model/fluid-handover-engine.cc',
    'model/fluid-serving-engine.cc',
    'model/fluid-slot-share.cc',
    'model/streaming-radio-model.cc',
    'model/accuracy-utility.cc',
    'model/slot-allocator.cc',
    'model/impactho-scheduler.cc',
    'model/clairvoyant-bound.cc',
    'model/token-stream-header.cc',
    'model/edge-llm-peer.cc',
    'model/edge-llm-session.cc',
    'model/edge-llm-bs-state.cc',
    'model/edge-llm-node.cc',
    'model/edge-llm-source-role.cc',
    'model/edge-llm-target-role.cc',
    'model/edge-llm-idle-cache-role.cc',
    'model/edge-llm-pre-transfer-role.cc',
    'model/edge-llm-backhaul-transport.cc',
    'model/edge-llm-ue-app.cc',
    'model/edge-llm-backhaul-routing.cc',
    'helper/edge-llm-csv.cc',
    'helper/edge-llm-helper.cc',
    'helper/edge-llm-stats.cc',
    'helper/edge-llm-ran.cc',
    'helper/edge-llm-backhaul-helper.cc',
    'helper/edge-llm-backhaul-routing-helper.cc',
    'helper/lte-edge-llm-ran.cc',
    'helper/edge-llm-session-stats.cc',
    'helper/backhaul-monitor.cc',
    'helper/cross-traffic-meter.cc',
]
# No NR here: 5G-LENA needs ns-3 >= 3.36's CMake build (CMakeLists.txt adds
# helper/nr-edge-llm-ran.cc when the nr module is present).

MODULE_HEADERS = [s.replace('.cc', '.h') for s in MODULE_SOURCES]
MODULE_HEADERS.append('model/edge-llm-compat.h')
MODULE_HEADERS.append('model/edge-llm-limits.h')

TEST_SOURCES = [
    'test/edge-llm-planner-test-suite.cc',
    'test/edge-llm-protocol-test-suite.cc',
    'test/edge-llm-lte-handover-test-suite.cc',
    'test/edge-llm-fluid-test-suite.cc',
    'test/edge-llm-ctho-figures-test-suite.cc',
    'test/edge-llm-impactho-test-suite.cc',
    'test/edge-llm-faults-test-suite.cc',
    'test/edge-llm-transport-test-suite.cc',
    'test/edge-llm-mesh-test-suite.cc',
    'test/edge-llm-outputs-test-suite.cc',
    'test/edge-llm-backhaul-test-suite.cc',
    'test/edge-llm-scale-test-suite.cc',
    'test/edge-llm-backhaul-study-test-suite.cc',
    'test/edge-llm-bound-test-suite.cc',
    'test/edge-llm-pre-transfer-test-suite.cc',
    'test/edge-llm-trace-test-suite.cc',
    'test/edge-llm-serving-test-suite.cc',
    # The program parts two suites test: examples' sources, not the module's API.
    'examples/common/program-options.cc',
    'examples/road-handover/road-handover-example.cc',
    'examples/ctho-figures/ctho-figures-study.cc',
]

# The study and figure drivers the programs and the test suites share (examples/studies):
# an internal static library, edge-llm-studies, not the module's API (../CMakeLists.txt).
STUDY_SOURCES = [
    'examples/studies/multi-cell-scenario.cc',
    'examples/studies/mobility-trace.cc',
    'examples/studies/site-list.cc',
    'examples/studies/road-handover-scenario.cc',
    'examples/studies/road-ue-draw.cc',
    'examples/studies/fluid-handover-scenario.cc',
    'examples/studies/pre-transfer-fluid-scenario.cc',
    'examples/studies/impactho-fluid-scenario.cc',
    'examples/studies/impactho-calibration.cc',
    'examples/studies/impactho-packet-scenario.cc',
    'examples/studies/impactho-bound-scenario.cc',
    'examples/studies/edge-llm-figure-writer.cc',
    'examples/studies/edge-llm-run-progress.cc',
]


def configure(conf):
    conf.env.append_value('CXXFLAGS', ['-std=c++17'])
    # EDGE_LLM_NS3_VERSION (model/edge-llm-compat.h) = 1000 * major + minor of the ns-3
    # release, from the VERSION file at the top of the ns-3 tree ("3.35" -> 3035).
    version_node = conf.srcnode.find_node('VERSION')
    text = version_node.read().strip() if version_node else ''
    match = re.match(r'3\.(\d+)', text)
    if not match:
        conf.fatal('edge-llm: cannot tell the ns-3 version from %s (%r, expected 3.MINOR)'
                   % (conf.srcnode.make_node('VERSION').abspath(), text))
    conf.env.EDGE_LLM_NS3_VERSION = 3000 + int(match.group(1))
    # COIN-OR CBC (Debian coinor-libcbc-dev): the clairvoyant-bound MILP.
    conf.check_cfg(package='cbc', args=['--cflags', '--libs'], uselib_store='CBC',
                   mandatory=True)
    conf.msg('edge-llm: EDGE_LLM_NS3_VERSION', conf.env.EDGE_LLM_NS3_VERSION)


def build(bld):
    module = bld.create_ns3_module(
        'edge-llm',
        ['core', 'network', 'internet', 'point-to-point', 'applications', 'mobility', 'antenna', 'lte', 'stats', 'traffic-control', 'topology-read'])
    module.source = MODULE_SOURCES
    module.use.append('CBC')
    # The module and everything that uses it (its tests, examples, scratch programs).
    if not bld.env.EDGE_LLM_NS3_VERSION:
        bld.fatal('edge-llm: EDGE_LLM_NS3_VERSION is unset: run ./waf configure again')
    version_define = 'EDGE_LLM_NS3_VERSION=%d' % bld.env.EDGE_LLM_NS3_VERSION
    module.env.append_value('DEFINES', [version_define])
    module.export_defines = [version_define]

    # PIC: the module's test library (shared) links it, as the programs do.
    bld(features='cxx cxxstlib', source=STUDY_SOURCES, target='edge-llm-studies',
        name='edge-llm-studies', includes=[bld.bldnode.abspath()], defines=[version_define],
        cxxflags=['-fPIC'], use=['ns3-edge-llm'])

    module_test = bld.create_ns3_module_test_library('edge-llm')
    module_test.source = TEST_SOURCES
    module_test.use.append('edge-llm-studies')

    headers = bld(features='ns3header')
    headers.module = 'edge-llm'
    headers.source = MODULE_HEADERS

    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
