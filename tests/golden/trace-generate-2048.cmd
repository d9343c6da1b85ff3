# A day on 2,048 GPUs at load 0.85: the job count follows from the load at the shape's durations (the arrival
# rate), sizes keep the shape's shares; the summary on standard error says what was generated.
trace generate --gpus 2048 --days 1 --load 0.85 --out /dev/null
