# A power budget given in an energy unit (MWh) is refused: the budget is a power.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-1su.yaml --power-budget 2.5MWh
