# --jobs fixes the arrival rate, so the durations are scaled to reach the load; the summary says by how much,
# how many jobs the load alone needs, and which sizes larger than the cluster were left out.
trace generate --gpus 64 --jobs 500 --days 7 --load 0.5 --out /dev/null
