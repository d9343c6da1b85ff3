# H100 BF16 ceilings (ridge 295 FLOP/byte) and a decode-shaped GEMM under them (memory-bound).
perf roofline --accelerator h100-sxm --gemm 16 8192 8192
