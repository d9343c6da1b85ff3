# perf train --precision fp8-cs: Megatron-Bridge's current-scaling FP8 recipe keeps the first and the last
# transformer layer in BF16 (bf16_with_fp8_current_scaling_mixed), printed beside the precision.
perf train --system dgx-h100 --nodes 1 --model llama3-8b --seq 8192 --global-batch 64 --precision fp8-cs --recompute none
