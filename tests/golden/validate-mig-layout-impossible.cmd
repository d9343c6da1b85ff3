# A layout that cannot exist on an H100 80GB (at most one 4g.40gb instance fits a GPU): exit 2.
# exit: 2
validate --cluster tests/validate-fleets/dgx-h100-6-nodes.yaml --measured tests/validate-fleets/clean --mig-layout 4g.40gb+4g.40gb
