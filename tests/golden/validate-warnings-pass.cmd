# The same warnings do not fail the default gate (--fail-on critical).
validate --cluster tests/validate-fleets/dgx-h100-6-nodes.yaml --measured tests/validate-fleets/clean --busbw-margin 2%
