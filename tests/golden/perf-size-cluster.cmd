# perf size priced at a designed cluster's own TCO per GPU-hour (every part of the spec priced).
# exit: 0
perf size --model llama3-70b --tokens 15T --days 30 --cluster tests/specs/priced-1su.yaml
