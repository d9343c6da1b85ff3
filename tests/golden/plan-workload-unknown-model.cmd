# An unknown workload model is named at its spec field, with the known presets, and the exit status is 1.
# exit: 1
plan tests/specs/workload-unknown-model.yaml
