# nccl-tests-shaped all_reduce on one DGX H100 with the algorithm, protocol and both terms per size.
perf collective --cluster examples/dgx-h100-single-node.yaml --op all_reduce --gpus 8 --min 1K --max 1G --factor 8 --explain
