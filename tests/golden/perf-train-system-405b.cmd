# perf train --system: Llama 3.1 405B as Meta trained it (Dubey et al. 2024, 3.3.2, Table 4) on 2048 DGX H100 nodes
# with no cluster spec: TP 8, PP 16 (7, 8 x 14, 7 layers), DP 128, FSDP sharding gradients and optimizer (ZeRO 2),
# no activation checkpointing. It fits (issue 14: it was judged out of memory by 27.5 GB).
perf train --system dgx-h100 --nodes 2048 --model llama3.1-405b --seq 8192 --global-batch 2048 --tp 8 --pp 16 --zero 2 --recompute none
