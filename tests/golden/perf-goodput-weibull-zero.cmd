# perf goodput: a Weibull shape of zero is refused; exit status 2.
# exit: 2
perf goodput --system dgx-h100 --gpus 64 --days 3 --weibull-shape 0
