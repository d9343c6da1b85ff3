# validate --json findings as nodes out of service from the start: node02 (a failed DCGM diagnostic and an
# uncorrectable ECC error) and node03 (a row-remap failure) are out; node05's throttled clocks drain nothing.
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster tests/validate-fleets/dgx-h100-8-nodes.yaml --out-of-service tests/replay/validate-drain.json --policy fifo
