# --failure-profile and --repair (simulate replay's names) are the same options as --profile and --repair-time.
perf goodput --system dgx-h100 --gpus 1024 --days 10 --failure-profile llama3-table5 --repair 48h --seeds 3 --checkpoint-write 1min --restart 5min
