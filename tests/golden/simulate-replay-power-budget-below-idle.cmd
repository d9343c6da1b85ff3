# A budget below what the cluster draws with every GPU idle could never run a job: an error with the figures.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-1su.yaml --power-budget 100kW
