# Llama 3.1 70B with one TP-4 prefill instance feeding three TP-4 decode instances (vLLM's disaggregated
# prefilling with the NixlConnector): the KV cache of each prompt moves over NVLink inside the first node and
# across the NICs to the other; TTFT includes the transfer.
perf serve --system dgx-h100 --model llama3.1-70b --tp 4 --disaggregate prefill=1,decode=3 --rate 4 --duration 60 --input-tokens 4096 --output-tokens 512 --slo ttft-p90=1s,tpot-p90=50ms
