# A spec sized for its workload: the answer, its split and every node count tried, then the design.
plan tests/specs/workload-llama3-8b.yaml
