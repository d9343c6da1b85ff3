# A checkpoint target on an appliance with no published write bandwidth is a located error, exit status 1.
# exit: 1
plan tests/specs/storage-no-write.yaml
