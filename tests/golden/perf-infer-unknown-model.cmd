# An unknown model lists the known presets, exit 1.
# exit: 1
perf infer --system dgx-h100 --model llama9-1t
