# A decode instance of TP 16 does not fit the 8-GPU NVLink domain of a DGX H100: a usage error naming the flag.
# exit: 2
perf serve --system dgx-h100 --model llama3.1-70b --tp 4 --disaggregate prefill=1,decode=1 --decode-tp 16 --rate 1
