# The same table given to `trace import sacct`.
# exit: 1
trace import sacct tests/traces/sacct-table.txt
