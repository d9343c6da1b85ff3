# The same broadcasts as nccl-tests -z 1 would time them: each completes before the next, so the time column is
# one broadcast's.
perf collective --cluster examples/dgx-h100-superpod-1su.yaml --op broadcast --gpus 32 --min 8 --max 64M --factor 64 --blocking
