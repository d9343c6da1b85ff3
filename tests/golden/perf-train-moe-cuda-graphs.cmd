# perf train --moe-cuda-graphs on: the recipe captures the MoE router and preprocessing in CUDA graphs, so each MoE
# layer and forward pass pays the graphed host wait (moe_layer_host_graphed_s, 5.60 ms) instead of the kernel-by-kernel
# one (moe_layer_host_s, 7.75 ms): compare perf-train-expert-comm-overlap-off, the same search without graphs.
perf train --system dgx-h100 --nodes 4 --model qwen3-30b-a3b --seq 4096 --global-batch 256 --search --moe-cuda-graphs on
