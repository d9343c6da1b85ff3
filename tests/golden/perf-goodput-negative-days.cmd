# perf goodput: negative days are refused; exit status 2.
# exit: 2
perf goodput --system dgx-h100 --gpus 1024 --days -3
