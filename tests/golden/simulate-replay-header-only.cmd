# A job CSV with a header and no rows: an error naming the file, exit 1 (was: "0 jobs replayed", exit 0).
# exit: 1
simulate replay --jobs tests/traces/header-only.csv --nodes 2
