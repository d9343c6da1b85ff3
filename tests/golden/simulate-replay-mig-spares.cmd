# MIG hot spares: the MIG trace on two whole-GPU and two MIG-mode A100-80GB nodes, the last MIG-mode node held as
# a spare partitioned like the other (slices on demand). Nodes fail once in 6 h on average and are out 1 h. When
# the MIG-mode node fails, the spare stands in at once and the slice jobs on the failed node restart there from
# their checkpoint; the repaired node becomes the spare. Compare simulate-replay-mig-failures (no spare: the
# slice jobs wait for the repair).
simulate replay --jobs tests/traces/mig-jobs.csv --nodes 4 --mig-nodes 2 --mig-spare-nodes 1 --mig-profile-set a100-80gb --policy fifo --node-mtbf 6h --repair 1h --failure-seed 4 --checkpoint-interval 15min --restart 2min
