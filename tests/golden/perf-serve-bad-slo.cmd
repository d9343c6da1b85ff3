# Targets with different percentiles cannot be read as one share of requests: a usage error, exit 2.
# exit: 2
perf serve --system dgx-h100 --model llama3.1-8b --rate 1 --slo ttft-p90=500ms,tpot-p99=50ms
