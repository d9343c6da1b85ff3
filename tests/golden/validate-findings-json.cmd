# The same faulty fleet as JSON (schema gputwin.validate/1).
# exit: 1
validate --cluster tests/validate-fleets/dgx-h100-8-nodes.yaml --measured tests/validate-fleets/faulty --json
