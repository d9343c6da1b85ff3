# cdna3 (MI300X, MI325X) has a fitted GEMM fraction (0.370, fitted on AMD's ROCm PyTorch training container
# reference rows, Llama 3.1 8B with FSDP on 8 GPUs): perf train answers for one 8 x MI300X node (before that fit
# it refused cdna3 by name, exit 1).
perf train --system amd-mi300x-8gpu --nodes 1 --model llama3.1-8b --seq 8192 --global-batch 32 --micro-batch 2 --precision fp8
