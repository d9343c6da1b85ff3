# A healthy 6-node DGX H100 fleet (tests/validate-fleets/generate.py): no finding, no outlier, exit 0.
validate --cluster examples/dgx-h100-single-node.yaml --measured tests/validate-fleets/clean
