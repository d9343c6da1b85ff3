# perf train --memory-reserve: the same 405B run with a 10 GiB reserve per GPU instead of the data's 4.0 GB no
# longer fits.
# exit: 0
perf train --system dgx-h100 --nodes 2048 --model llama3.1-405b --seq 8192 --global-batch 2048 --tp 8 --pp 16 --zero 2 --recompute none --memory-reserve 10GiB
