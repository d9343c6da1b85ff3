# An unknown model: the error lists the known presets; exit status 2.
# exit: 2
perf train --cluster examples/dgx-h100-superpod-1su.yaml --model llama3-65b --seq 8192 --global-batch 64
