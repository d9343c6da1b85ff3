# Serving Llama-3.1-70B on two H100s of the single-node example: capacity, TTFT/TPOT and tokens/s by concurrency.
perf infer --cluster examples/dgx-h100-single-node.yaml --model llama3.1-70b --tp 2 --input-tokens 2048 --output-tokens 256 --sequences 1 16 64
