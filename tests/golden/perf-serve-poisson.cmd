# A Poisson stream on one TP-4 replica of Llama 3.1 70B: latency percentiles, throughput and the targets met.
perf serve --system dgx-h100 --model llama3.1-70b --tp 4 --rate 5 --duration 120 --input-tokens 2048 --output-tokens 256 --slo ttft-p90=500ms,tpot-p90=50ms
