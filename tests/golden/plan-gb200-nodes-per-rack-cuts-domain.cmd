# A node limit of 16 per rack would cut the 18-tray NVL72 domain: a located error, exit 1.
# exit: 1
plan tests/specs/gb200-nodes-per-rack-cuts-domain.yaml
