# An unknown precision recipe names the known ones and where they are defined.
# exit: 2
perf train --system dgx-h100 --nodes 1 --model llama3-8b --seq 8192 --global-batch 64 --precision fp6
