# The same jobs from the real sacct --json capture (Slurm 22.05 shape).
trace import sacct tests/slurm/captures/sacct.json
