# --ep must divide the routed experts (DeepSeek-V3 has 256); exit status 2.
# exit: 2
perf train --system dgx-h100 --nodes 4 --model deepseek-v3 --seq 4096 --global-batch 64 --ep 3
