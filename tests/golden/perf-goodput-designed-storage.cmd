# On a design whose spec sizes storage for a 2 TB checkpoint (4 x DDN AI400X2, 260 GB/s write together), the
# checkpoint write time comes from the designed storage, not the assumed default; Daly's interval follows it.
perf goodput --cluster examples/dgx-h100-superpod-4su-storage.yaml --gpus 512 --days 20 --seeds 10 --restart 5min
