# --search --cluster: the cluster's own node system searched, priced at the cluster's TCO per GPU-hour (plan's),
# each answer bought in whole nodes and racks.
# exit: 0
perf serve --search --cluster tests/specs/priced-1su.yaml --model llama3.1-8b --rate 20 --duration 30 --input-tokens 1024 --output-tokens 128 --slo ttft-p90=300ms,tpot-p90=30ms --threads 2
