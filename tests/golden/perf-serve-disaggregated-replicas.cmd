# --replicas with --disaggregate: two units of one TP-2 prefill and two TP-2 decode instances, a proxy each
# (request k to unit k mod 2), with TensorRT-LLM's MLPerf v4.1 engine efficiency on both pools.
perf serve --system dgx-h100 --model llama3.1-70b --tp 2 --disaggregate prefill=1,decode=2 --replicas 2 --rate 4 --duration 30 --input-tokens 2048 --output-tokens 256 --slo ttft-p90=1s,tpot-p90=50ms --engine trtllm-mlperf-v4.1
