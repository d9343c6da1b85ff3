# All 576 GPUs of the GB200 SuperPOD: 8 NVLink domains joined over the trays' 400G NICs.
perf collective --cluster examples/gb200-nvl72-superpod-1su.yaml --op all_reduce --gpus 576 --min 1M --max 1G --factor 32 --explain
