# --ep on a dense model: it has no experts to split; exit status 2.
# exit: 2
perf train --system dgx-h100 --nodes 1 --model llama3-8b --seq 8192 --global-batch 64 --ep 2
