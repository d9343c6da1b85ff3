# A budget too small for one node of any platform: the error names the smallest useful budget.
# exit: 1
plan tests/specs/power-budget-too-small.yaml
