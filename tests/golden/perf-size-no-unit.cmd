# perf size: a token count without its unit is refused; exit status 2.
# exit: 2
perf size --model llama3-70b --tokens 15 --days 30
