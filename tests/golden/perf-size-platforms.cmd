# perf size across platforms: each accelerator on its catalog platform (DGX H100/B200/B300, AMD 8-GPU platforms),
# with racks and power. gb200/gb300 are refused until their NVL72 systems are in the catalog; the AMD rows rest on
# an assumed GEMM fraction (--gemm-fraction, printed as an assumption: no AMD runs are fitted); b300 and the AMD
# parts have no price in the illustrative price list, and the output says so.
perf size --model llama3-70b --tokens 15T --days 30 --accelerators h100-sxm,b200,b300,gb200,gb300,mi300x,mi355x --prices examples/gpu-hour-prices.yaml --gemm-fraction cdna3=0.5,cdna4=0.5
