# simulate replay --node-type: an unknown node type, located, with the design's types.
# exit: 1
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-1su.yaml --node-type gb200-nvl72-tray --policy fifo
