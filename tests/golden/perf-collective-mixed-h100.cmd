# --node-type picks one group of the two-group design: the DGX H100 nodes on their own compute fabric.
# exit: 0
perf collective --cluster examples/mixed-h100-gb200.yaml --node-type dgx-h100 --op all_reduce --gpus 128 --min 1M --max 1G --factor 32
