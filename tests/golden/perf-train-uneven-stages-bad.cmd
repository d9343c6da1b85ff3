# Stage layers Megatron would refuse: 126 - 6 - 7 = 113 layers do not split over 14 middle stages.
# exit: 2
perf train --system dgx-h100 --nodes 2048 --model llama3.1-405b --seq 8192 --global-batch 2048 --tp 8 --pp 16 --first-stage-layers 6 --last-stage-layers 7
