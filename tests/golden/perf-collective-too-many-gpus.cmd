# More GPUs than the cluster has; usage error.
# exit: 2
perf collective --cluster examples/dgx-h100-single-node.yaml --op all_reduce --gpus 16
