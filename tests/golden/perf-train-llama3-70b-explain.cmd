# perf train: Llama 3 70B on 128 H100 of the 1-SU SuperPOD, tp 8 pp 4, with the terms explained.
perf train --cluster examples/dgx-h100-superpod-1su.yaml --model llama3-70b --seq 8192 --global-batch 128 --tp 8 --pp 4 --gpus 128 --explain
