# A target no deployment meets: every candidate says which target binds and by how much; exit 1.
# exit: 1
perf serve --search --systems dgx-h100 --model llama3.1-8b --rate 10 --duration 20 --max-gpus 16 --slo ttft-p90=1ms
