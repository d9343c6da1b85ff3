# A perf infer result (tests/report/infer-llama3.1-8b-h200.json, what golden perf-infer-json prints) is accepted
# as a --perf input: the report is written and its path printed.
report examples/dgx-h100-superpod-1su.yaml --perf tests/report/infer-llama3.1-8b-h200.json --out /dev/null
