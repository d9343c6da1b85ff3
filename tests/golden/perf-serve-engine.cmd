# --engine applies an engine generation's fitted efficiency (data/perf/serving-engine-generations.yaml): the
# perf model's iteration times divided by TensorRT-LLM's MLPerf v4.1 figure; the limits stay vLLM's defaults.
perf serve --system dgx-h100 --model llama3.1-70b --tp 4 --rate 5 --duration 120 --input-tokens 2048 --output-tokens 256 --slo ttft-p90=500ms,tpot-p90=50ms --engine trtllm-mlperf-v4.1
