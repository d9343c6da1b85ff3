# perf goodput: a failure rate without its unit is a located error; exit status 1.
# exit: 1
perf goodput --system dgx-h100 --gpus 64 --days 3 --rates tests/reliability/rates-no-unit.yaml --profile broken
