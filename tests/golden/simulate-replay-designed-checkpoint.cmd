# On a design whose spec sizes storage for a 2 TB checkpoint (4 x DDN AI400X2, 260 GB/s write together), a replay
# with checkpoints and no --checkpoint-write takes the write time from the designed storage (as perf goodput
# --cluster does) and says so in the failures section.
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-4su-storage.yaml --policy fifo --node-mtbf 400h --repair 24h --failure-seed 3 --checkpoint-interval 30min --restart 5min
