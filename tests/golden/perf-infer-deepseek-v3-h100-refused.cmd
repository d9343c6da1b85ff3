# DeepSeek-V3's 671B FP8 weights do not fit on 8 x 80 GB: refused with the memory missing per GPU, no latencies.
# exit: 1
perf infer --system dgx-h100 --model deepseek-v3 --tp 8
