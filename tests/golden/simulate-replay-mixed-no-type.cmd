# Without --node-type the replay refuses the two-group design and lists its node types.
# exit: 1
simulate replay --jobs tests/traces/mixed-types.csv --cluster examples/mixed-h100-gb200.yaml --policy fifo
