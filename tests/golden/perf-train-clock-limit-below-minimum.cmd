# A clock below the part's lowest published SM clock: a located error naming the figure in the data file.
# exit: 2
perf train --system dgx-h100 --nodes 16 --model llama3-70b --seq 8192 --global-batch 128 --tp 8 --pp 4 --clock-limit 200MHz
