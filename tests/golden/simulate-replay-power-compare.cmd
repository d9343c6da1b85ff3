# The same replay under an IT power budget held by capping every busy GPU, and the trade-off of none, cap-all and
# admit-fewer at that budget: work done by the last arrival, waits, makespan, energy and peak power vs the budget.
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-1su.yaml --policy fifo --power-budget 230kW --compare-power-policies
