# A 72-GPU all_reduce on one NVL72 of the GB200 SuperPOD: NVLS on the NVLink switches, no NIC in the path.
perf collective --cluster examples/gb200-nvl72-superpod-1su.yaml --op all_reduce --gpus 72 --min 1M --max 1G --factor 32 --explain
