# The healthy fleet measures 4-6 % below the predicted busbw: with a 2 % margin those are warnings, and
# --fail-on warning turns them into exit 1.
# exit: 1
validate --cluster tests/validate-fleets/dgx-h100-6-nodes.yaml --measured tests/validate-fleets/clean --busbw-margin 2% --fail-on warning
