# A job asks for a profile the MIG-mode GPUs do not have: the error names file, line and field.
# exit: 1
simulate replay --jobs tests/traces/mig-bad-profile.csv --nodes 2 --mig-nodes 1 --mig-profile-set a100-80gb
