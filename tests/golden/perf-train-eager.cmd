# perf train --torch-compile off: a Llama 3.1 8B FSDP split in eager mode (8 GPUs, one sequence of 8K per GPU,
# per-op SAC): the elementwise term carries the unfused ops beyond torch.compile's fused regions and their recompute
# (data/perf/pytorch-eager-ops.yaml); the same command without the flag is the compiled block.
perf train --system dgx-h100 --nodes 1 --model llama3.1-8b --seq 8192 --global-batch 8 --micro-batch 1 --zero 3 --recompute op-sac --torch-compile off --explain
