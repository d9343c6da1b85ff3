# EASY on a trace where one job is larger than the cluster and one has a requested time: the job that can
# never run is counted; the utilisation is given over the arrival window and the drain tail apart; the
# output says which run-time estimate EASY planned with (the data default) and for how many jobs.
simulate replay --jobs tests/traces/some-too-large.csv --nodes 2 --policy easy
