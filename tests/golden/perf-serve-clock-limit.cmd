# --clock-limit on perf serve, the same option and model as perf train/infer (docs/perf-power.md): prefill's
# compute-bound iterations at f = 1485 / 1980 MHz, decode's memory-bound ones unchanged; the run's power and
# energy with the compute-bound draw from the clock^3 rule inverted (341 W).
perf serve --system dgx-h100 --model llama3.1-70b --tp 4 --rate 5 --duration 120 --input-tokens 2048 --output-tokens 256 --slo ttft-p90=500ms,tpot-p90=50ms --clock-limit 1485MHz
