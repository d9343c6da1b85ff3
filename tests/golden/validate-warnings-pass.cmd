# The same warnings do not fail the default gate (--fail-on critical).
validate --cluster examples/dgx-h100-single-node.yaml --measured tests/validate-fleets/clean --busbw-margin 2%
