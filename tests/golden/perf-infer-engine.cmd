# --engine on perf infer, as on perf serve: every time divided by the generation's fitted efficiency (0.889),
# the throughput multiplied by it, the loaded columns simulated with it; a line names it.
perf infer --system dgx-h100 --model llama3.1-70b --tp 4 --sequences 1 64 --engine trtllm-mlperf-v4.1
