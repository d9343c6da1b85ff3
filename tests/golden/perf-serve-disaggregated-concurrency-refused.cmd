# A closed loop cannot drive the two pools (they are simulated one after the other): refused with the reason.
# exit: 2
perf serve --system dgx-h100 --model llama3.1-8b --disaggregate prefill=1,decode=1 --concurrency 8
