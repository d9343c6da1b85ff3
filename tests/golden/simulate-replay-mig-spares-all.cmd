# Every MIG-mode node held as a spare leaves none to run slice jobs: refused, saying why.
# exit: 2
simulate replay --jobs tests/traces/mig-jobs.csv --nodes 2 --mig-nodes 1 --mig-spare-nodes 1 --mig-profile-set a100-80gb --policy fifo --node-mtbf 6h --repair 1h
