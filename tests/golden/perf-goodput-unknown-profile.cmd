# perf goodput: an unknown failure profile names the known ones; exit status 2.
# exit: 2
perf goodput --system dgx-h100 --gpus 1024 --days 3 --profile llama4
