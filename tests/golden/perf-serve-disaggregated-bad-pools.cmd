# --disaggregate needs both pools' instance counts: naming the one missing is a usage error, exit 2.
# exit: 2
perf serve --system dgx-h100 --model llama3.1-8b --disaggregate prefill=2 --rate 1
