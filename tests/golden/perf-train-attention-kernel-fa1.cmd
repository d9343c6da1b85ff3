# perf train --attention-kernel fa1: FlashAttention 1.x's published H100 forward + backward speed (FlashAttention-2
# paper, Figure 7; both passes at the pair's rate), the proxy of llm-foundry's Triton kernel; slower than fa2 at 32K.
perf train --system dgx-h100 --nodes 1 --model llama3-8b --seq 32768 --global-batch 8 --zero 3 --recompute full --attention-kernel fa1
