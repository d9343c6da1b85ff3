# --node-type that is no group of the spec: the groups are listed.
# exit: 2
perf size --model llama3-70b --tokens 15T --days 30 --cluster tests/specs/mixed-priced.yaml --node-type b200
