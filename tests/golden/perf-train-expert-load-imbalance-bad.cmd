# --expert-load-imbalance below 1 (fewer tokens than the balanced share on the busiest GPU); exit status 2.
# exit: 2
perf train --system dgx-h100 --nodes 4 --model qwen3-30b-a3b --seq 4096 --global-batch 64 --ep 8 --expert-load-imbalance 0.5
