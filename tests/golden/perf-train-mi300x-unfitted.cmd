# cdna3 (MI300X, MI325X) has no fitted GEMM fraction (no published pre-training run with its configuration was
# found): perf train refuses it by name, exit 1, instead of printing an infinite step time.
# exit: 1
perf train --system amd-mi300x-8gpu --nodes 1 --model llama3.1-8b --seq 8192 --global-batch 32 --micro-batch 2 --precision fp8
