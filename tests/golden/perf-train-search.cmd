# perf train --search: the fastest split of Llama 3 8B that fits on 64 H100.
perf train --cluster examples/dgx-h100-superpod-1su.yaml --model llama3-8b --seq 8192 --global-batch 256 --gpus 64 --search
