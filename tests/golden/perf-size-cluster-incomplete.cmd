# perf size --cluster refuses a cluster whose prices are incomplete: its TCO per GPU-hour would leave parts out.
# exit: 1
perf size --model llama3-70b --tokens 15T --days 30 --cluster tests/specs/superpod-2048-gpus-ufm.yaml
