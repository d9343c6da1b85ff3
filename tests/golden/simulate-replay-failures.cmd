# Node failures (each node fails once in 400 h on average, out 24 h), checkpoints every 30 min of work (1 min to
# write, 5 min to restart) and one hot spare on 9 nodes: the usual summary counts what really ran, and the
# failures section gives goodput, ETTR, availability and the lost GPU-hours by cause and job size.
simulate replay --jobs tests/traces/long-training-jobs.csv --nodes 9 --policy fifo --node-mtbf 400h --repair 24h --failure-seed 3 --checkpoint-interval 30min --checkpoint-write 1min --restart 5min --spare-nodes 1
