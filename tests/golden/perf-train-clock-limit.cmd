# docs/perf-power.md's --clock-limit example: Llama 3 70B on 16 DGX H100 (tp 8, pp 4) with the SM clock locked at
# 1485 of 1980 MHz (f = 0.75): compute-bound time / 0.75, its draw by the clock^3 rule inverted (341 W).
perf train --system dgx-h100 --nodes 16 --model llama3-70b --seq 8192 --global-batch 128 --tp 8 --pp 4 --clock-limit 1485MHz
