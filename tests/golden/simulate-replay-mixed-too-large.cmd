# A replay on one group of the two-group design (--node-type): a job asking for more GPUs than that group holds
# (200 of the 144 GB200 GPUs, fewer than the design's 272) is rejected and counted, never placed across types.
# exit: 0
simulate replay --jobs tests/traces/mixed-types.csv --cluster examples/mixed-h100-gb200.yaml --node-type gb200-nvl72-tray --policy fifo
