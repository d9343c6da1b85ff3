# perf size on AMD without --gemm-fraction: mi355x (cdna4) answers with its fraction fitted on AMD's MLPerf v5.1
# run, mi300x (cdna3) with its fraction fitted on AMD's ROCm PyTorch training container rows.
perf size --model llama3-70b --tokens 15T --days 30 --accelerators mi300x,mi355x
