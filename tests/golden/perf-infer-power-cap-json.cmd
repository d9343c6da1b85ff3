# perf infer --power-cap 400W --json: the power object (limit, factors, draws, energy per output token) beside
# the latency rows computed on the capped GPU.
perf infer --system dgx-h100 --model llama3.1-70b --tp 2 --sequences 1 64 --load-rounds 0 --power-cap 400W --json
