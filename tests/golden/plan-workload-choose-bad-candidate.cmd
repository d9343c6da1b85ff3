# A candidate the spec's fabric cannot carry (DGX A100's 200G NICs under a 400G fabric) is named at the fabric
# field with the candidate, and the exit status is 1.
# exit: 1
plan tests/specs/workload-choose-bad-candidate.yaml
