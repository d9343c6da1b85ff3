# perf size across platforms: each accelerator on its catalog platform (DGX H100/B200/B300, NVL72 trays, AMD 8-GPU
# platforms), with racks and power. mi355x (cdna4) and mi300x (cdna3) use their fitted GEMM fractions (AMD's MLPerf
# v5.1 MI355X run; AMD's ROCm PyTorch training container MI300X/MI325X rows); b300, the NVL72 trays and the AMD
# parts have no price in the illustrative price list, and the output says so.
perf size --model llama3-70b --tokens 15T --days 30 --accelerators h100-sxm,b200,b300,gb200,gb300,mi300x,mi355x --prices examples/gpu-hour-prices.yaml
