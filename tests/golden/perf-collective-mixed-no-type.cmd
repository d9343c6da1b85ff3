# Without --node-type a model of one node type refuses the two-group design, listing its types.
# exit: 1
perf collective --cluster examples/mixed-h100-gb200.yaml --op all_reduce --gpus 128 --min 1M --max 1G --factor 32
