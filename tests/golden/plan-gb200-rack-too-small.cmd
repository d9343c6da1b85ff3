# An NVL72 rack (37 U) in 36 U racks: a located error at facility.rack_units, exit 1.
# exit: 1
plan tests/specs/gb200-rack-too-small.yaml
