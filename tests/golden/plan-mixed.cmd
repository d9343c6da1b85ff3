# Two GPU systems in one spec (a list of node groups): 16 DGX H100 beside 2 GB200 NVL72 racks, each group with
# its own racks and its own compute fabric (compute:dgx-h100, compute:gb200-nvl72); in-band and OOB shared.
# exit: 0
plan examples/mixed-h100-gb200.yaml
