# The same as JSON (schema gputwin.replay/1 with its optional "failures" object), with Daly's optimum interval
# per job and quarterly-style rolling maintenance (every 2 days here, so the short trace sees it).
simulate replay --jobs tests/traces/long-training-jobs.csv --nodes 8 --policy easy --node-failure-rate 60/1000/day --repair 12h --checkpoint-interval young-daly --checkpoint-write 2min --restart 10min --maintenance every=2d,duration=4h,mode=all --interval 86400 --json
