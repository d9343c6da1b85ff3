# A --slurm sweep dir where task 1 left no result: merge names the task and the end of its log, and exits 1.
# exit: 1
sweep merge tests/sweeps/merge-partial
