# A finding on a host the replayed cluster does not have is refused at its place in the file.
# exit: 1
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster tests/validate-fleets/dgx-h100-8-nodes.yaml --out-of-service tests/replay/validate-unknown-host.json --policy fifo
