# A sweep with failures: 3 checkpoint intervals x 3 spare pools x 3 failure seeds on 10 nodes; one row per
# replay with interruptions, goodput, ETTR and availability.
sweep tests/sweeps/failures.yaml --threads 2
