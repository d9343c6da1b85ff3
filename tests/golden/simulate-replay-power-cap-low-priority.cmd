# The budget of simulate-replay-power-compare held by capping the scavenger jobs' GPUs first, and the trade-off of
# every policy at it: the low-priority jobs lose throughput, the others keep more of theirs than under cap-all.
simulate replay --jobs tests/traces/long-training-jobs-qos.csv --cluster examples/dgx-h100-superpod-1su.yaml --policy fifo --power-budget 230kW --power-policy cap-low-priority --low-priority-qos scavenger --compare-power-policies
