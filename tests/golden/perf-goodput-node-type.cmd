# perf goodput --cluster --node-type: the chosen node type's shape (here the design's only GPU type).
perf goodput --cluster examples/dgx-h100-superpod-1su.yaml --node-type dgx-h100 --gpus 128 --days 10
