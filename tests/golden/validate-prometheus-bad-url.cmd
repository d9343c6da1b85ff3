# A Prometheus URL must be http(s)://HOST[:PORT][/PREFIX]: a bare host is a usage error (exit 2).
# exit: 2
validate --prometheus localhost:9090
