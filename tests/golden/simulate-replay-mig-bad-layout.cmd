# A layout that cannot exist on the GPU: two 3g.40gb take all 8 memory slots.
# exit: 2
simulate replay --jobs tests/traces/mig-jobs.csv --nodes 2 --mig-nodes 1 --mig-profile-set a100-80gb --mig-layout 3g.40gb+3g.40gb+1g.10gb
