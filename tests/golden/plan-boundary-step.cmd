# 2048 GPUs and 4 UFM ports: the boundary step is printed first with its cost and alternatives, and the DGX
# left unpriced makes capex INCOMPLETE with no cost per GPU-hour (issue 13, items 7 and 8).
# exit: 0
plan tests/specs/superpod-2048-gpus-ufm.yaml
