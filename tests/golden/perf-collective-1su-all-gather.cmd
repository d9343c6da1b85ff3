# all_gather across 8 DGX H100 of a SuperPOD SU: NVLink-bound ring, latency of 63 steps at small sizes.
perf collective --cluster examples/dgx-h100-superpod-1su.yaml --op all_gather --gpus 64 --min 1M --max 4G --factor 8
