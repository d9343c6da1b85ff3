# --search --disaggregate auto: every layout also as prefill/decode pools, the instances found by doubling and
# bisection and, at each count, the prefill:decode split searched (the binding target says which pool is
# short). Llama 3.1 8B on H100s at 20 req/s of long prompts and short answers: P:D rows rank with the others.
perf serve --search --systems dgx-h100 --model llama3.1-8b --rate 20 --duration 30 --input-tokens 4096 --output-tokens 256 --slo ttft-p90=300ms,tpot-p90=20ms --disaggregate auto --threads 2
