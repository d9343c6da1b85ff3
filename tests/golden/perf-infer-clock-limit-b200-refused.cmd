# A part without a published SM clock range refuses --clock-limit by name.
# exit: 2
perf infer --system dgx-b200 --model llama3.1-70b --tp 2 --clock-limit 1500MHz
