# The same as perf-train-ep as JSON: config.ep and config.expert_load_imbalance.
perf train --system dgx-h100 --nodes 4 --model qwen3-30b-a3b --seq 4096 --global-batch 64 --ep 8 --expert-load-imbalance 1.2 --json
