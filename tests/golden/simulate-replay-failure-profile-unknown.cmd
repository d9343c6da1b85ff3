# exit: 2
# An unknown profile names the known ones and the file.
simulate replay --jobs tests/traces/long-training-jobs.csv --nodes 8 --failure-profile llama4
