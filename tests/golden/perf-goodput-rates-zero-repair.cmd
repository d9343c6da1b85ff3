# perf goodput: a hardware failure with a zero repair time is a located error; exit status 1.
# exit: 1
perf goodput --system dgx-h100 --gpus 64 --days 3 --rates tests/reliability/rates-zero-repair.yaml --profile broken
