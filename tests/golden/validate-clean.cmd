# A healthy 6-node DGX H100 fleet (tests/validate-fleets/generate.py): no finding, no outlier, exit 0.
validate --cluster tests/validate-fleets/dgx-h100-6-nodes.yaml --measured tests/validate-fleets/clean
