# perf train --attention-kernel: FlashAttention-2's published speed (FlashAttention-3 paper, Figures 5-6) instead of
# hopper's default cuDNN kernel; at 32K tokens attention is most of the step, so the step is slower.
perf train --system dgx-h100 --nodes 1 --model llama3-8b --seq 32768 --global-batch 8 --zero 3 --recompute full --attention-kernel fa2
