# The two-group design as JSON: one fabrics entry per group's compute fabric, power.node_typicals per type.
# exit: 0
plan examples/mixed-h100-gb200.yaml --json
