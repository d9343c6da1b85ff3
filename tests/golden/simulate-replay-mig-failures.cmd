# MIG-mode nodes fail too: one of two 8-GPU A100-80GB nodes in MIG mode, each node failing once in 6 h on average
# (out 1 h), checkpoints every 15 min of work, 2 min restarts. The whole-GPU node's two interruptions are as before;
# the MIG node's failures interrupt the ten slice jobs on it, which restart from their checkpoint after its repair.
simulate replay --jobs tests/traces/mig-jobs.csv --nodes 2 --mig-nodes 1 --mig-profile-set a100-80gb --policy fifo --node-mtbf 6h --repair 1h --failure-seed 4 --checkpoint-interval 15min --restart 2min
