# alltoall across two nodes, JSON.
perf collective --cluster examples/dgx-h100-superpod-1su.yaml --op alltoall --gpus 16 --min 1M --max 64M --factor 8 --json
