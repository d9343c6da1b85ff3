# The JSON document (schema gputwin.plan/1) of the 1-SU DGX H100 SuperPOD.
# exit: 0
plan examples/dgx-h100-superpod-1su.yaml --json
