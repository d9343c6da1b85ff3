# --ep with --disaggregate: Mixtral 8x7B instances of TP 1 x DP 2 (EP 2) in both pools (each DP rank with the
# engine's limits); the KV slice of a request lives on its rank's GPU.
perf serve --system dgx-h100 --model mixtral-8x7b --tp 1 --ep 2 --disaggregate prefill=1,decode=2 --rate 8 --duration 30 --input-tokens 2048 --output-tokens 256 --slo ttft-p90=1s,tpot-p90=50ms
