# A clock limit in the wrong unit is a usage error.
# exit: 2
perf train --system dgx-h100 --nodes 16 --model llama3-70b --seq 8192 --global-batch 128 --tp 8 --pp 4 --clock-limit 1.5GHz
