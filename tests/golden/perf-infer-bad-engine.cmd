# An unknown engine generation on perf infer is refused with the known ids.
# exit: 2
perf infer --system dgx-h100 --model llama3.1-70b --tp 4 --engine vllm-9
