# A scalable unit of 32 trays cuts the GB200 NVL72 racks (18 trays each): a located error, exit 1.
# exit: 1
plan tests/specs/gb200-su-cuts-rack.yaml
