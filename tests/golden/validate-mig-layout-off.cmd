# Every H100 of the clean fleet has MIG off while a layout is intended: 48 warnings, exit 0 at the default gate.
validate --cluster examples/dgx-h100-single-node.yaml --measured tests/validate-fleets/clean --mig-layout 3g.40gb+2g.20gb+1g.10gb+1g.10gb --json
