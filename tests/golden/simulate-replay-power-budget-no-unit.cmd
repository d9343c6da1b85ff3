# A power budget without a unit is refused (is 2500 watts, kilowatts or megawatts?).
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-1su.yaml --power-budget 2500
