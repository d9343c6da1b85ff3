# Lengths drawn per request: prompts lognormal of mean 1024 and CV 0.8, outputs uniform from 64 to 256 (their own
# random stream for --seed: the arrival times are those of fixed lengths).
# exit: 0
perf serve --system dgx-h100 --model llama3.1-8b --rate 5 --duration 30 --input-tokens lognormal:1024,0.8 --output-tokens uniform:64,256 --seed 3
