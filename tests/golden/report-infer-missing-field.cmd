# A perf infer result whose second point lost its TPOT: the file, the line and the field's JSON pointer are named.
# exit: 1
report examples/dgx-h100-superpod-1su.yaml --perf tests/report/infer-no-tpot.json --out /dev/null
