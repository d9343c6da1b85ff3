# The sweep with failures as CSV: the failure columns follow the replay's.
sweep tests/sweeps/failures.yaml --threads 2 --csv
