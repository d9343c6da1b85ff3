# A plan result given as a perf result: the four perf schemas the report draws are named.
# exit: 1
report examples/dgx-h100-superpod-1su.yaml --perf tests/report/foreign.json --out /dev/null
