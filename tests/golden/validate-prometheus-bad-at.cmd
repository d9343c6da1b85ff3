# --at must be RFC 3339 with a zone or Unix seconds: a date without a zone is a usage error (exit 2).
# exit: 2
validate --prometheus http://127.0.0.1:9090 --at 2026-11-26T12:00:00
