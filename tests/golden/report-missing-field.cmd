# A perf train result without its terms: the file and the missing field are named.
# exit: 1
report examples/dgx-h100-superpod-1su.yaml --perf tests/report/train-no-terms.json --out /dev/null
