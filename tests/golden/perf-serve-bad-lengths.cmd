# A length distribution missing its CV: a usage error naming the option, exit 2.
# exit: 2
perf serve --system dgx-h100 --model llama3.1-8b --rate 5 --input-tokens lognormal:1024
