# A size with an unknown unit is refused (nccl-tests' -b/-e accept K, M, G); usage error.
# exit: 2
perf collective --cluster examples/dgx-h100-single-node.yaml --op all_reduce --gpus 8 --max 8X
