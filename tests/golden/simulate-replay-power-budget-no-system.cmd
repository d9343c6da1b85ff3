# On --nodes no system is known, so energy and power are not modelled: a budget is refused, saying why.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs.csv --nodes 32 --power-budget 250kW
