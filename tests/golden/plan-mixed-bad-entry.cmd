# A list entry naming the NVL72 tray instead of its rack system: a located error at the entry's field, exit 1.
# exit: 1
plan tests/specs/mixed-tray-entry.yaml
