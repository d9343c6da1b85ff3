# A misspelt accelerator id is a usage error naming the known ids (it was a row saying so under exit 0).
# exit: 2
perf size --model llama3-70b --tokens 15T --days 30 --accelerators h100-sxm,h100-sxmm
