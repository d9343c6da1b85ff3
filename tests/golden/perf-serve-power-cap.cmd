# --power-cap on perf serve: the iterations run on the capped GPU (prefill compute-bound at the compute-bound
# clock, decode memory-bound at the memory-bound one; data/power/power-model.yaml), and the run's power and
# energy: per GPU, node and rack, J per output token and per request.
perf serve --system dgx-h100 --model llama3.1-70b --tp 4 --rate 5 --duration 120 --input-tokens 2048 --output-tokens 256 --slo ttft-p90=500ms,tpot-p90=50ms --power-cap 400W
