# A checks file naming a rule the code does not know: a located error, exit 1.
# exit: 1
validate --measured tests/validate-fleets/clean --checks tests/validate-fleets/bad-checks.yaml
