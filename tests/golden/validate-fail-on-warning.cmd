# The healthy fleet measures 4-6 % below the predicted busbw: with a 2 % margin those are warnings, and
# --fail-on warning turns them into exit 1.
# exit: 1
validate --cluster examples/dgx-h100-single-node.yaml --measured tests/validate-fleets/clean --busbw-margin 2% --fail-on warning
