# cap-low-priority needs jobs with a priority or QOS; no trace format read here records one: refused with why.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-1su.yaml --power-budget 250kW --power-policy cap-low-priority
