# Closed-loop clients on two replicas, as JSON (schema gputwin.serve/1).
perf serve --system dgx-h100 --model llama3.1-8b --replicas 2 --concurrency 32 --requests 256 --input-tokens 1024 --output-tokens 128 --json
