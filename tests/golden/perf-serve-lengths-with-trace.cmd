# A trace carries its own lengths: a distribution beside it is refused, naming the option: a usage error, exit 2.
# exit: 2
perf serve --system dgx-h100 --model llama3.1-8b --trace tests/traces/llm-requests-out-of-order.csv --input-tokens uniform:10,20
