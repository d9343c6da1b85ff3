# A maintenance window longer than its period is refused.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs.csv --nodes 8 --maintenance every=8h,duration=9h,mode=rolling
