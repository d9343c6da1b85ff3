# Two node types: 2 GB200 NVL72 racks (36 trays) with 4 CPU login/head servers; both listed with their counts.
# exit: 0
plan examples/gb200-nvl72-2-racks-login-nodes.yaml
