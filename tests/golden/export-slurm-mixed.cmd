# Slurm files of the two-group design on stdout: a NodeName and gres line per node type, each group's compute
# fabric a switch tree of its own in topology.conf.
# exit: 0
export slurm examples/mixed-h100-gb200.yaml --out -
