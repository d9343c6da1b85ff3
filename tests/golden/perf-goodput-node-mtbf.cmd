# perf goodput takes simulate replay's option names: --node-mtbf is one node-scope rate (1/3000 per node-hour);
# without --repair its repair is node_repair_default of data/reliability/failure-rates.yaml (24 h, assumed).
perf goodput --system dgx-h100 --gpus 1024 --days 10 --node-mtbf 3000h --seeds 3 --checkpoint-write 1min --restart 5min
