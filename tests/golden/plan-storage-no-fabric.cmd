# Storage appliances without a storage fabric to join are a located error, exit status 1.
# exit: 1
plan tests/specs/storage-no-fabric.yaml
