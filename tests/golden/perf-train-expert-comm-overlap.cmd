# perf train --expert-comm-overlap on: the MoE dispatch/combine hidden behind another micro-batch's compute
# (Megatron overlap_moe_expert_parallel_comm); the search's splits with ep > 1 expose less all-to-all time.
perf train --system dgx-h100 --nodes 4 --model qwen3-30b-a3b --seq 4096 --global-batch 256 --search --expert-comm-overlap on
