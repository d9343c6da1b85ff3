# Every job is larger than the cluster (one node of 8 GPUs): nothing can run, so no report and exit 1.
# exit: 1
simulate replay --jobs tests/traces/too-large.csv --nodes 1
