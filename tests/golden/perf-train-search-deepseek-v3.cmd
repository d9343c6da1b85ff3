# perf train --search for DeepSeek-V3 FP8 on 2,048 H100 (its published batch, 15,360 x 4K): FSDP at ep 1 is
# refused (one MoE block's 256 experts gathered twice and one unsharded gradient exceed 80 GB).
perf train --system dgx-h100 --nodes 256 --model deepseek-v3 --precision fp8 --seq 4096 --global-batch 15360 --search
