# perf goodput: an unknown component is a located error; exit status 1.
# exit: 1
perf goodput --system dgx-h100 --gpus 64 --days 3 --rates tests/reliability/rates-unknown-component.yaml --profile broken
