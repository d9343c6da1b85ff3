# perf goodput --json: a 1024-GPU job under Meta RSC-1's 6.5 failures per 1000 node-days, no spares (waits for repairs).
perf goodput --system dgx-h100 --gpus 1024 --days 10 --node-failure-rate 6.5/1000/day --repair-time 12h --seeds 20 --json
