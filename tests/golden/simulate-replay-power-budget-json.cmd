# JSON of a replay under an admit-fewer budget, one interval a day: the energy object (per job, idle, the budget's
# figures) and each interval's IT power and energy.
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-1su.yaml --policy fifo --power-budget 230kW --power-policy admit-fewer --interval 86400 --json
