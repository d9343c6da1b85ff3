# A count that must be positive says so (CLI11's own check printed "Value 0 not in range 0.000000 to 1.797...e308").
# exit: 2
perf train --system dgx-h100 --nodes 0 --model llama3-8b --seq 8192 --global-batch 8
