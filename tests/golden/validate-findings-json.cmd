# The same faulty fleet as JSON (schema gputwin.validate/1).
# exit: 1
validate --cluster examples/dgx-h100-single-node.yaml --measured tests/validate-fleets/faulty --json
