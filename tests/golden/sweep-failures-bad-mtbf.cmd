# A failure rate without its unit in a sweep file: a located error, exit 1.
# exit: 1
sweep tests/sweeps/failures-bad-mtbf.yaml
