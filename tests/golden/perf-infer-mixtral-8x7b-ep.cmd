# The same model with expert parallelism: 4 attention groups of TP 2, experts split over all 8 GPUs, an
# all-to-all dispatch and combine per MoE layer, four KV caches.
perf infer --system dgx-h100 --model mixtral-8x7b --tp 2 --ep 4 --sequences 1 64 256
