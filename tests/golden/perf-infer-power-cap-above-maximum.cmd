# A power cap above the GPU's maximum settable limit: a usage error (exit 2) naming the figure and where it is
# (data/power/power-model.yaml: h100-sxm's 700 W, from nvidia-smi's Max Power Limit), not a silent clamp.
# exit: 2
perf infer --system dgx-h100 --model llama3.1-70b --tp 2 --power-cap 800W --load-rounds 0
