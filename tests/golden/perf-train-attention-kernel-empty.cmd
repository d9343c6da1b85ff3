# perf train --attention-kernel "": an empty name is a usage error (leave the option out for the architecture's
# default kernel).
# exit: 2
perf train --system dgx-h100 --nodes 1 --model llama3-8b --seq 8192 --global-batch 8 --attention-kernel ""
