# The hall's air and water capacities are below what 2 NVL72 racks give off: two prominent warnings, exit 0.
# exit: 0
plan tests/specs/gb200-room-over-capacity.yaml
