# --search --cluster on the GB200 NVL72 SuperPOD example (issue 15): the cluster's rack system searched on its
# compute tray, every answer bought in whole 72-GPU racks (2 x TP 64 fills two racks: an instance never
# straddles a domain); the example has no price list, so the Prices line says why there is no price.
# exit: 0
perf serve --search --cluster examples/gb200-nvl72-superpod-1su.yaml --model llama3.1-70b --rate 150 --duration 10 --input-tokens 1024 --output-tokens 128 --slo ttft-p90=500ms,tpot-p90=50ms --threads 2
