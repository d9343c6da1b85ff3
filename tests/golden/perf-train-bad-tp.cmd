# An impossible split: tensor parallelism must divide the attention heads; exit status 2.
# exit: 2
perf train --cluster examples/dgx-h100-superpod-1su.yaml --model llama3-70b --seq 8192 --global-batch 64 --tp 3 --gpus 96
