# perf train --search for Llama 3.1 405B on 16,384 H100 at 8K, Meta's batch (2,048 x 8K): ZeRO 2 is on the axis.
perf train --system dgx-h100 --nodes 2048 --model llama3.1-405b --seq 8192 --global-batch 2048 --search
