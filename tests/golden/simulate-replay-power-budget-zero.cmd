# A power budget of 0 W is refused (no job could run under it), as the replay's budget parser says.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-1su.yaml --power-budget 0MW
