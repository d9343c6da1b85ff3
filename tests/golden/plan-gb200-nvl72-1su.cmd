# The GB200 NVL72 SuperPOD, 1 SU: 8 racks that are one system each, one 72-GPU domain per rack, the liquid plant.
# exit: 0
plan examples/gb200-nvl72-superpod-1su.yaml
