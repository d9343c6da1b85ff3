# The search chooses the split itself: a fixed prefill=P,decode=D with --search is refused, saying what to give.
# exit: 2
perf serve --search --systems dgx-h100 --model llama3.1-8b --rate 10 --slo ttft-p90=300ms --disaggregate prefill=1,decode=3
