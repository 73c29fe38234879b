#! /usr/bin/env python3

# A list of C++ examples to run in order to ensure that they remain
# buildable and runnable over time.  Each tuple in the list contains
#
#     (example_name, do_run, do_valgrind_run).
#
# See test.py for more information.
#
# ns-3's test.py runs each example with the working directory
# testpy-output/<date and time>/ under the ns-3 top directory, so
#  * an input file of this module is ../../contrib/edge-llm/<path>, and
#  * every output (results/<program>/...) lands in that folder, not in the
#    source tree.
# Each LTE example below finishes in under 2 s on one core (standalone build,
# build/bin/: 0.1 s, 0.6 s, 0.2 s, 1.8 s); edge-llm-nr-handover has the LTE road's options.
cpp_examples = [
    # One ctHO batch plan (JSON on stdout) from the CLI test's four UEs.
    (
        "edge-llm-plan --scheme=ctho --ues=../../contrib/edge-llm/test/cli/four-ues.csv "
        "--backhaulGbps=4.5",
        "True",
        "True",
    ),
    # ctHO Fig. 3a at flow level (100 Monte-Carlo runs per point).
    ("ctho-figures --figure=3a", "True", "True"),
    # ImpactHO Table II (compute baselines), 2 runs.
    ("impactho-figures --figure=table2 --runs=2", "True", "True"),
    # The main packet-level job (LTE X2 handovers, ctHO, tHO, cHO) on a small road.
    (
        "edge-llm-lte-handover --numUes=2 --contextMax=2048 --tokensAfterHandover=50",
        "True",
        "False",
    ),
    # The backhaul study on its smallest case: 2 road sites, 1 UE each, one load, ctHO
    # (1 s).
    (
        "edge-llm-backhaul-study --layout=road --numSites=2 --uesPerSite=1 --loads=0 "
        "--schemes=ctho --promptMin=100 --promptMax=200",
        "True",
        "False",
    ),
    # Proactive KV pre-transfer on the road at flow level: two runs, two offsets.
    ("edge-llm-pre-transfer --runs=2 --offsets=-6,0", "True", "True"),
    # Many users on a shared GPU per BS at flow level (issue 46): 10 s of generated requests.
    ("edge-llm-serving-study --traceDuration=10", "True", "True"),
    # A user's own LTE script with edge LLMs added (examples/existing-script): one UE, one
    # A3 handover at 4.1 s, restored (0.6 s).
    ("edge-llm-lena-x2-handover --numberOfUes=1 --simTime=5", "True", "False"),
    # The same small road over NR (5G-LENA): built only when the nr module is enabled
    # (test.py also skips an example whose program was not built).
    (
        "edge-llm-nr-handover --numUes=2 --contextMax=2048 --tokensAfterHandover=50",
        "'ns3-nr' in NS3_ENABLED_CONTRIBUTED_MODULES",
        "False",
    ),
    # A user's own NR script with edge LLMs added (examples/existing-script), the NR twin of
    # edge-llm-lena-x2-handover: two UEs, one A3 handover each (3.5 and 4.3 s). It checks
    # itself: exit 1 unless each handover's session was restored at the RRC's target with a
    # token from it reaching the UE (2 to 3 s). Built only with nr, as the one above.
    (
        "edge-llm-nr-x2-handover --numberOfUes=2 --simTime=5",
        "'ns3-nr' in NS3_ENABLED_CONTRIBUTED_MODULES",
        "False",
    ),
]

# A list of Python examples to run in order to ensure that they remain
# runnable over time.  Each tuple in the list contains
#
#     (example_name, do_run).
#
# See test.py for more information.
python_examples = []
