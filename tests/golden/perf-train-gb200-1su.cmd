# Llama 3 70B on the GB200 SuperPOD, TP 8 over two trays of an NVL72 (NVLink), data parallel across racks.
perf train --cluster examples/gb200-nvl72-superpod-1su.yaml --model llama3-70b --seq 8192 --global-batch 576 --tp 8 --pp 1
