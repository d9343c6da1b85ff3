# A capture with a value nvidia-smi never prints ("lots W"): a critical finding naming file, line and field.
# exit: 1
validate --cluster tests/validate-fleets/dgx-h100-2-nodes.yaml --measured tests/validate-fleets/bad-input
