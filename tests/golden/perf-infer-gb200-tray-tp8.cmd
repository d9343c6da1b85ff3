# TP 8 on a GB200 NVL72 tray system: two trays of one 72-GPU NVLink domain, its all-reduces timed on NVLink
# (the quick path once refused it as more than the tray's 4 GPUs).
perf infer --system gb200-nvl72-tray --model llama3.1-70b --tp 8 --sequences 1 64 --load-rounds 0
