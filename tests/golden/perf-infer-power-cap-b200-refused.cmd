# No published minimum settable limit or capped-throughput figure for the B200: --power-cap is refused by name
# (exit 2) rather than modelled with a curve nobody measured.
# exit: 2
perf infer --system dgx-b200 --model llama3.1-70b --tp 2 --power-cap 600W --load-rounds 0
