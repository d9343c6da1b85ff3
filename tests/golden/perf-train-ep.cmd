# A mixture of experts at a given expert-parallel size and load imbalance: the header prints ep 8.
perf train --system dgx-h100 --nodes 4 --model qwen3-30b-a3b --seq 4096 --global-batch 64 --ep 8 --expert-load-imbalance 1.2
