# exit: 2
# perf train --torch-compile takes on or off; anything else is refused by name.
perf train --system dgx-h100 --nodes 1 --model llama3.1-8b --seq 8192 --global-batch 16 --torch-compile maybe
