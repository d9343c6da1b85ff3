# Eight nodes with planted faults, one kind per node: findings by severity, outliers, exit 1.
# exit: 1
validate --cluster tests/validate-fleets/dgx-h100-8-nodes.yaml --measured tests/validate-fleets/faulty
