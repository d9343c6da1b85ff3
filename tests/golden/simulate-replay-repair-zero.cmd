# A node that fails must be out for some time: a repair time of zero is refused.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs.csv --nodes 8 --node-mtbf 3000h --repair 0h
