# Llama 3.1 70B on two replicas of TP 4 x PP 2 (two DGX H100 nodes): each stage holds 40 of the 80 layers, a
# batch's time adds one activation send between the stages, and each replica keeps two batches in flight.
perf serve --system dgx-h100 --model llama3.1-70b --tp 4 --pp 2 --replicas 2 --rate 5 --duration 60 --input-tokens 2048 --output-tokens 256 --slo ttft-p90=500ms,tpot-p90=50ms
