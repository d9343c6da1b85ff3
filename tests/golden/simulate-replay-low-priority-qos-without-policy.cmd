# --low-priority-qos means nothing without a policy that reads it: a usage error.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs-qos.csv --cluster examples/dgx-h100-superpod-1su.yaml --power-budget 230kW --low-priority-qos scavenger
