# perf train --search on 23 DGX H100 nodes (184 GPUs): the global batch of 96 sequences does not split over every
# GPU, so data parallelism leaves some idle instead of forcing an odd pipeline; the top choices and why the
# others lost.
perf train --system dgx-h100 --nodes 23 --model llama3-70b --seq 8192 --global-batch 96 --search
