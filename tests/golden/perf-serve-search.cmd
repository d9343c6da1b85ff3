# The fewest H100s that serve 100 req/s of Llama 3.1 8B within the targets: every TP up to the node, replicas by
# doubling and bisection; the answer first, the runners-up with what they cost more.
perf serve --search --systems dgx-h100 --model llama3.1-8b --rate 100 --duration 30 --input-tokens 1024 --output-tokens 128 --slo ttft-p90=300ms,tpot-p90=30ms
