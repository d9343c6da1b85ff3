# Eight nodes with planted faults, one kind per node: findings by severity, outliers, exit 1.
# exit: 1
validate --cluster examples/dgx-h100-single-node.yaml --measured tests/validate-fleets/faulty
