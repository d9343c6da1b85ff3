# perf size on a spec of two node groups: each group's accelerator sized for the workload, priced at the TCO per
# GPU-hour of that group designed alone (its nodes, its compute fabric and the shared fabrics, management and
# facility as written).
# exit: 0
perf size --model llama3-70b --tokens 15T --days 30 --cluster tests/specs/mixed-priced.yaml
