# A perf size result (tests/report/size-llama3-70b.json, from perf size --json) is accepted as a --perf input,
# beside a perf infer result: the report is written and its path printed.
report examples/dgx-h100-superpod-1su.yaml --perf tests/report/size-llama3-70b.json --perf tests/report/infer-llama3.1-8b-h200.json --out /dev/null
