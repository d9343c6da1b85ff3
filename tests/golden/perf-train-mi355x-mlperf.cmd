# AMD's MLPerf Training v5.1 Llama 3.1 8B run as perf train sees it: 8 x MI355X, TP/PP/CP 1, DP 8, micro-batch 2,
# global batch 32 x 8192 tokens, FP8, no recomputation. cdna4's GEMM fraction (0.505) is fitted on this run
# (published 31,354 tokens/s per GPU: 30.62 samples/s x 8192 / 8); no --gemm-fraction is needed.
perf train --system amd-mi355x-8gpu --nodes 1 --model llama3.1-8b --seq 8192 --global-batch 32 --micro-batch 2 --precision fp8 --recompute none
