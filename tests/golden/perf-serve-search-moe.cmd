# A MoE model: TP layouts and data-parallel attention with expert parallelism (DP x TP dividing Mixtral's 8
# experts) on one H100 box, each under both of vLLM's default batch limits; the fewest GPUs first.
perf serve --search --systems dgx-h100 --model mixtral-8x7b --rate 20 --duration 10 --input-tokens 1024 --output-tokens 64 --slo ttft-p90=500ms,tpot-p90=40ms --max-gpus 32 --threads 2
