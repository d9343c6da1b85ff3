# A decode pool without instances has no GPUs to decode on: a usage error naming the flag, exit 2.
# exit: 2
perf serve --system dgx-h100 --model llama3.1-8b --disaggregate prefill=2,decode=0 --rate 1
