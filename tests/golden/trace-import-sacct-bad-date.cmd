# A date sacct would not write: the error names the file, line and column, and the exit status is 1.
# exit: 1
trace import sacct tests/specs/sacct-bad-date.psv
