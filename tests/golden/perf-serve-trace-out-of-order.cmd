# A trace whose rows go back in time is an error naming the file, line and field, exit 1.
# exit: 1
perf serve --system dgx-h100 --model llama3.1-8b --trace tests/traces/llm-requests-out-of-order.csv
