# cap-all on A100s: the power model has no published minimum settable limit for them, so they cannot be capped;
# refused, pointing at admit-fewer.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-a100-4-nodes.yaml --power-budget 30kW
