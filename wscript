# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# waf build of the edge-llm module for waf-era ns-3 (<= 3.35): place this directory
# at contrib/edge-llm. CMakeLists.txt is the primary build (ns-3 >= 3.36 and
# standalone); keep the file lists of both in step.

MODULE_SOURCES = [
    'model/llm-model-profile.cc',
    'model/prefill-time-model.cc',
    'model/ctho-planner.cc',
    'model/handover-scheduler.cc',
    'model/handover-batcher.cc',
    'model/ctho-scheduler.cc',
    'model/kv-transfer-header.cc',
    'model/kv-transfer-connection.cc',
    'model/kv-datagram-header.cc',
    'model/kv-datagram-socket.cc',
    'model/prefill-engine.cc',
    'model/fluid-backhaul.cc',
    'model/streaming-radio-model.cc',
    'model/accuracy-utility.cc',
    'model/slot-allocator.cc',
    'model/impactho-scheduler.cc',
    'model/token-stream-header.cc',
    'model/edge-llm-node.cc',
    'model/edge-llm-ue-app.cc',
    'helper/edge-llm-csv.cc',
    'helper/edge-llm-plan-cli.cc',
    'helper/edge-llm-helper.cc',
    'helper/road-handover-scenario.cc',
    'helper/fluid-handover-scenario.cc',
    'helper/road-ue-draw.cc',
    'helper/edge-llm-stats.cc',
    'helper/ctho-figures.cc',
    'helper/edge-llm-figure-writer.cc',
    'helper/impactho-fluid-scenario.cc',
    'helper/impactho-packet-scenario.cc',
    'helper/edge-llm-ran.cc',
    'helper/lte-edge-llm-ran.cc',
    'helper/road-handover-example.cc',
]
# No NR here: 5G-LENA needs ns-3 >= 3.36's CMake build (CMakeLists.txt adds
# helper/nr-edge-llm-ran.cc when the nr module is present).

MODULE_HEADERS = [s.replace('.cc', '.h') for s in MODULE_SOURCES]

TEST_SOURCES = [
    'test/edge-llm-planner-test-suite.cc',
    'test/edge-llm-protocol-test-suite.cc',
    'test/edge-llm-lte-handover-test-suite.cc',
    'test/edge-llm-fluid-test-suite.cc',
    'test/edge-llm-ctho-figures-test-suite.cc',
    'test/edge-llm-impactho-test-suite.cc',
    'test/edge-llm-faults-test-suite.cc',
    'test/edge-llm-transport-test-suite.cc',
]


def configure(conf):
    conf.env.append_value('CXXFLAGS', ['-std=c++17'])


def build(bld):
    module = bld.create_ns3_module(
        'edge-llm',
        ['core', 'network', 'internet', 'point-to-point', 'applications', 'mobility', 'lte', 'stats'])
    module.source = MODULE_SOURCES

    module_test = bld.create_ns3_module_test_library('edge-llm')
    module_test.source = TEST_SOURCES

    headers = bld(features='ns3header')
    headers.module = 'edge-llm'
    headers.source = MODULE_HEADERS

    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
