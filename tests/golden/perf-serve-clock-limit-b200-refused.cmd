# --clock-limit on a part without a published SM clock range is refused by name (data/power/power-model.yaml).
# exit: 2
perf serve --system dgx-b200 --model llama3.1-70b --tp 4 --rate 5 --duration 60 --clock-limit 1500MHz
