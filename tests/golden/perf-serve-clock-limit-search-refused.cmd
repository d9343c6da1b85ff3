# --clock-limit is for one deployment: with --search it is refused, saying why (as --power-cap is).
# exit: 2
perf serve --search --systems dgx-h100,dgx-b200 --model llama3.1-8b --rate 10 --slo ttft-p90=300ms --clock-limit 1500MHz
