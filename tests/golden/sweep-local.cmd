# A 16-task sweep on local threads: the real sacct capture under two policies, two designs, two variants, two seeds.
sweep tests/sweeps/small.yaml --threads 2
