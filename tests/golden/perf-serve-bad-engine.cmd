# An engine generation that is not in the data: a usage error listing the known ones.
# exit: 2
perf serve --system dgx-h100 --model llama3.1-70b --tp 4 --rate 5 --engine tgi-9
