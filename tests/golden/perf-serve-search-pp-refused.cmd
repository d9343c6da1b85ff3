# The search chooses PP itself: --pp with --search is refused, saying so.
# exit: 2
perf serve --search --systems dgx-h100 --model llama3.1-8b --rate 10 --slo ttft-p90=300ms --pp 2
