# GB300 NVL72, 1 SU of 8 racks on XDR 800 Gb/s: 142 kW racks, 84 % of their heat to liquid, the CDU plant.
# exit: 0
plan examples/gb300-nvl72-1su.yaml
