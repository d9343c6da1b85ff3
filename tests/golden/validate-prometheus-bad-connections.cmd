# --connections is how many queries are in flight at once: 0 is a usage error (exit 2), before any request.
# exit: 2
validate --prometheus http://127.0.0.1:9 --connections 0
