# perf size: GPUs and split per accelerator for Llama 3 70B on 15T tokens in 30 days, with a GPU-hour price list.
perf size --model llama3-70b --tokens 15T --days 30 --accelerators h100-sxm,b200,mi300x --prices examples/gpu-hour-prices.yaml
