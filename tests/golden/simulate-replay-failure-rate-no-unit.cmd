# A failure rate without its time unit is refused, naming the option and the form it needs.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs.csv --nodes 8 --node-failure-rate 6.5/1000 --repair 48h
