# docs/perf-power.md's worked example: Llama 3 70B on 16 DGX H100 (tp 8, pp 4) with every GPU capped at 500 W:
# the step at the cap beside the step at 700 W, power per GPU, node and rack, energy per step, token and run.
perf train --system dgx-h100 --nodes 16 --model llama3-70b --seq 8192 --global-batch 128 --tp 8 --pp 4 --power-cap 500W --run-tokens 15T
