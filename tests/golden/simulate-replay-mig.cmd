# One node of 8 A100-80GB in MIG mode (slices made on demand) beside one whole-GPU node: MIG jobs queue apart.
simulate replay --jobs tests/traces/mig-jobs.csv --nodes 2 --mig-nodes 1 --mig-profile-set a100-80gb --policy fifo --interval 3600
