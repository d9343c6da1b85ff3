# An unknown collective lists the known ones; usage error.
# exit: 2
perf collective --cluster examples/dgx-h100-single-node.yaml --op allreduce --gpus 8
