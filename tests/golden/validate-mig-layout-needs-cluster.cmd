# --mig-layout is read against the cluster's GPU, so it needs --cluster: a usage error, exit 2.
# exit: 2
validate --measured tests/validate-fleets/clean --mig-layout 3g.40gb+4g.40gb
