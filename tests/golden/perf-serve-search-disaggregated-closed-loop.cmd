# --search with --concurrency and --disaggregate auto: every candidate, aggregated or pools, runs 64 closed-loop
# clients (the pools on one clock), so the load follows each deployment's speed and the latency targets bind.
perf serve --search --systems dgx-h100 --model llama3.1-8b --concurrency 64 --requests 640 --input-tokens 4096 --output-tokens 256 --slo ttft-p90=300ms,tpot-p90=20ms --disaggregate auto --threads 2
