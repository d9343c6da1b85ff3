# perf goodput with Weibull times between failures (shape 0.7: failures cluster early in a node's life), the
# same Llama 3 rates and job as perf-goodput-llama3-16k: more interruptions over the 54 days of new nodes.
perf goodput --system dgx-h100 --gpus 16384 --days 54 --spare-nodes 32 --checkpoint-write 1min --restart 5min --weibull-shape 0.7
