# The same run on hopper's default attention kernel (cuDNN fused attention, Transformer Engine's choice on Hopper).
perf train --system dgx-h100 --nodes 1 --model llama3-8b --seq 32768 --global-batch 8 --zero 3 --recompute full
