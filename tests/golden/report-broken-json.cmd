# A simulation result that is not JSON: the file, line and column are named.
# exit: 1
report examples/dgx-h100-superpod-1su.yaml --simulation tests/report/broken.json --out /dev/null
