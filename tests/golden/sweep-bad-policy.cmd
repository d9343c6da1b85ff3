# A sweep naming a policy gputwin does not have: file, line, field, exit 1.
# exit: 1
sweep tests/sweeps/bad-policy.yaml
