# A spec with a unit error: the message names file, line, column and field, and the exit status is 1.
# exit: 1
plan tests/specs/bad-unit.yaml
