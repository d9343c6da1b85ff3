# --ep that divides the experts but neither dp x cp nor tp x dp x cp (8 GPUs, ep 16); exit status 2.
# exit: 2
perf train --system dgx-h100 --nodes 1 --model qwen3-30b-a3b --seq 4096 --global-batch 64 --ep 16
