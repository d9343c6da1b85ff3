# TP wider than the 72-GPU NVLink domain is refused naming --tp, exit 2.
# exit: 2
perf infer --system gb200-nvl72-tray --model llama3.1-405b --tp 128
