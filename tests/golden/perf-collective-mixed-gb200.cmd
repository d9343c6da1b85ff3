# --node-type picks the other group: the GB200 NVL72 trays (two 72-GPU NVLink domains) on their own fabric.
# exit: 0
perf collective --cluster examples/mixed-h100-gb200.yaml --node-type gb200-nvl72-tray --op all_reduce --gpus 144 --min 1M --max 1G --factor 32
