# --gemm-fraction never replaces a fitted fraction: cdna4 is fitted now (AMD's MLPerf v5.1 MI355X run), so
# assuming one for it is a usage error naming the fitted value.
# exit: 2
perf size --model llama3-70b --tokens 15T --days 30 --accelerators mi355x --gemm-fraction cdna4=0.5
