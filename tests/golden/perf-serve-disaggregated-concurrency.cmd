# --concurrency with --disaggregate: 16 closed-loop clients, each sending its next request when the decode pool
# has answered the last one (the pools stepped on one clock), on one TP-4 prefill instance feeding three TP-4
# decode instances of Llama 3.1 70B.
perf serve --system dgx-h100 --model llama3.1-70b --tp 4 --disaggregate prefill=1,decode=3 --concurrency 16 --requests 160 --input-tokens 4096 --output-tokens 512 --slo ttft-p90=1s,tpot-p90=50ms
