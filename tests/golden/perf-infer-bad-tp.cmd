# A tensor-parallel size that does not divide the heads is an error naming both, exit 1.
# exit: 1
perf infer --system dgx-h100 --model llama3.1-70b --tp 3
