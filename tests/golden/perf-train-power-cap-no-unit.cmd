# A power cap without a unit is refused (exit 2): a bare number is not a power.
# exit: 2
perf train --system dgx-h100 --nodes 1 --model llama3-8b --seq 8192 --global-batch 64 --power-cap 500
