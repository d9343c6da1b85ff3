# The same search with the all-to-all exposed (the default).
perf train --system dgx-h100 --nodes 4 --model qwen3-30b-a3b --seq 4096 --global-batch 256 --search --expert-comm-overlap off
