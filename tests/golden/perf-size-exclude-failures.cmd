# perf size --days-exclude-failures: the former meaning, --days held against the failure-free work days. b300 and
# gb200 then answer 2048 and 3096 GPUs whose time-to-train under failures (31.0 and 32.4 days, printed) exceeds
# the 30 days; the Deadline line says which rule was used (compare perf-size-platforms).
perf size --model llama3-70b --tokens 15T --days 30 --accelerators b300,gb200 --days-exclude-failures
