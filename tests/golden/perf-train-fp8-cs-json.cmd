# perf train --json names the precision recipe and its BF16 layers beside the GEMM precision.
perf train --system dgx-h100 --nodes 1 --model llama3-8b --seq 8192 --global-batch 64 --precision fp8-cs --recompute none --json
