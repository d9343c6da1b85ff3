# On a designed cluster (the 1-SU DGX H100 SuperPOD) the replay knows the system, so it reports energy: IT and
# facility (PUE from the design), jobs + idle adding up to the total, mean and peak IT power (docs/simulate.md,
# "Energy and a power budget").
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-1su.yaml --policy fifo
