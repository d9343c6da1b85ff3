# The real sacct --parsable2 capture of our local Slurm (steps included) as job CSV; skipped rows are counted.
trace import sacct tests/slurm/captures/sacct-steps.psv
