# A JSON document of another schema given as a simulation result: the file and what was expected are named.
# exit: 1
report examples/dgx-h100-superpod-1su.yaml --simulation tests/report/foreign.json --out /dev/null
