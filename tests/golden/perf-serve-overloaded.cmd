# Twice the traffic one TP-2 replica carries: the queue grows, TTFT misses its target, the run says NOT MET.
perf serve --system dgx-h100 --model llama3.1-70b --tp 2 --rate 8 --duration 60 --input-tokens 4096 --output-tokens 512 --slo ttft-p90=1s,tpot-p90=60ms
