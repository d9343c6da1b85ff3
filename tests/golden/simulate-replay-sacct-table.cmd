# sacct's plain table output is recognised and refused with the fix (--parsable2 or --json), exit 1.
# exit: 1
simulate replay --jobs tests/traces/sacct-table.txt --nodes 2
