# A100 has no FP8 tensor cores: an error naming the accelerator, exit 1.
# exit: 1
perf roofline --accelerator a100-80gb-sxm --precision fp8
