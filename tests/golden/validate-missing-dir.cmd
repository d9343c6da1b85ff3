# A measured directory that does not exist: exit 1 naming it.
# exit: 1
validate --measured tests/validate-fleets/missing
