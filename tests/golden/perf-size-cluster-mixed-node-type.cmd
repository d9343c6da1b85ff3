# perf size --cluster of two node groups with --node-type: that group only.
# exit: 0
perf size --model llama3-70b --tokens 15T --days 30 --cluster tests/specs/mixed-priced.yaml --node-type gb200-nvl72
