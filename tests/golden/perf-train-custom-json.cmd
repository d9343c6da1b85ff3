# perf train with a custom GPT shape given by flags (Megatron 175B, as in Korthikanti Table 5) and JSON output.
perf train --cluster examples/dgx-h100-superpod-1su.yaml --layers 96 --hidden 12288 --heads 96 --vocab 51200 --seq 2048 --global-batch 64 --tp 8 --pp 8 --vp 3 --gpus 64 --json
