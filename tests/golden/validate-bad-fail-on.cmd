# An unknown severity is a usage error: exit 2.
# exit: 2
validate --measured tests/validate-fleets/clean --fail-on severe
