# A rack-scale system: compute trays, NVLink switch trays, power shelves, heat split, each figure with its source.
# exit: 0
catalog show gb200-nvl72
