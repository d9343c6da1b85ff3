# perf goodput: Llama 3's 16,384 H100 GPUs for 54 days of work under Table 5's per-component failure rates, 32 hot-spare nodes.
perf goodput --system dgx-h100 --gpus 16384 --days 54 --spare-nodes 32 --checkpoint-write 1min --restart 5min
