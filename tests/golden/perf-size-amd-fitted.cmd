# perf size on AMD without --gemm-fraction: mi355x (cdna4) answers with its fitted fraction; mi300x (cdna3) has
# none and says how to assume one.
perf size --model llama3-70b --tokens 15T --days 30 --accelerators mi300x,mi355x
