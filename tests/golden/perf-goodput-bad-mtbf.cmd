# perf goodput: an MTBF without its unit is refused; exit status 2.
# exit: 2
perf goodput --system dgx-h100 --gpus 64 --days 3 --mtbf 3
