# Kimi K2 in BF16 (about 2 TB) on H100 boxes, at most 2 nodes per replica: every layout is refused by name and
# the answer names the least memory per GPU that would hold the weights; exit 1.
# exit: 1
perf serve --search --systems dgx-h100 --model kimi-k2 --precision bf16 --rate 1 --duration 5 --slo ttft-p90=1s --max-pp 2
