# --gemm-fraction never replaces a fitted fraction: usage error naming the fitted value.
# exit: 2
perf size --model llama3-70b --tokens 15T --days 30 --accelerators h100-sxm --gemm-fraction hopper=0.9
