# perf goodput: a job MTBF and a fixed checkpoint interval (restart only, no repair).
perf goodput --system dgx-h100 --gpus 4096 --days 30 --mtbf 3h --checkpoint-write 2min --restart 10min --checkpoint-interval 2h --seeds 10
