# perf train --memory-reserve with a size that is not one: a usage error naming the option.
# exit: 2
perf train --system dgx-h100 --nodes 1 --model llama3-8b --seq 8192 --global-batch 8 --memory-reserve 4parsecs
