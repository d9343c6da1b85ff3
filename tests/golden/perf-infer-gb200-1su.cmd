# Inference on the designed GB200 SuperPOD: TP 8 across two trays, inside one rack's NVLink domain.
perf infer --cluster examples/gb200-nvl72-superpod-1su.yaml --model llama3.1-70b --tp 8 --sequences 1 64 --load-rounds 0
