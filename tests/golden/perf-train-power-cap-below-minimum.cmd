# A power cap below the GPU's minimum settable limit: a usage error (exit 2) naming the figure and where it is
# (data/power/power-model.yaml: h100-sxm's 200 W, from nvidia-smi's Min Power Limit).
# exit: 2
perf train --system dgx-h100 --nodes 1 --model llama3-8b --seq 8192 --global-batch 64 --power-cap 150W
