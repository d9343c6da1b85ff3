# --node-type names the compute nodes to model in a design (here the GB200 NVL72 trays beside CPU login
# servers): accepted when the design holds that type, whatever else it holds.
perf collective --cluster examples/gb200-nvl72-2-racks-login-nodes.yaml --node-type gb200-nvl72-tray --op all_reduce --gpus 144 --min 1M --max 1G --factor 32
