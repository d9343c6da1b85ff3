# A capacity search needs targets to search for: a usage error, exit 2.
# exit: 2
perf serve --search --systems dgx-h100 --model llama3.1-8b --rate 10
