# --step is the interval of a range: without --range it is a usage error (exit 2).
# exit: 2
validate --prometheus http://127.0.0.1:9090 --step 5m
