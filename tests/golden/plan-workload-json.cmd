# plan --json carries the sizing as workload_fit beside the design.
plan tests/specs/workload-llama3-8b.yaml --json
