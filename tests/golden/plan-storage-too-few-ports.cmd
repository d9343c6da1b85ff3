# A storage fabric that cannot take the appliances' ports within its tiers is a located error, exit status 1.
# exit: 1
plan tests/specs/storage-too-few-ports.yaml
