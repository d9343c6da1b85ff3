# cap-low-priority on a trace with no priority class (this job CSV has no qos column): refused with why.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-1su.yaml --power-budget 250kW --power-policy cap-low-priority
