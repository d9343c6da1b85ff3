# --at, --range and --step read a Prometheus server: with --measured they are a usage error (exit 2).
# exit: 2
validate --measured tests/validate-fleets/clean --range 24h
