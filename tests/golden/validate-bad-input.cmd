# A capture with a value nvidia-smi never prints ("lots W"): a critical finding naming file, line and field.
# exit: 1
validate --cluster examples/dgx-h100-single-node.yaml --measured tests/validate-fleets/bad-input
