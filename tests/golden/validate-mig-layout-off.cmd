# Every H100 of the clean fleet has MIG off while a layout is intended: 48 warnings, exit 0 at the default gate.
validate --cluster tests/validate-fleets/dgx-h100-6-nodes.yaml --measured tests/validate-fleets/clean --mig-layout 3g.40gb+2g.20gb+1g.10gb+1g.10gb --json
