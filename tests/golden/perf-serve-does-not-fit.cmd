# Llama 3.1 405B on one H100: the weights do not fit, so nothing is simulated; exit 1.
# exit: 1
perf serve --system dgx-h100 --model llama3.1-405b --tp 1 --rate 1
