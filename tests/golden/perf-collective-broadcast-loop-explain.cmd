# A 32-GPU broadcast on 4 DGX H100 nodes (1 SU, 4 of its nodes) with --explain: one broadcast alone pays the
# chain's 32 network hops, but nccl-tests' loop of 20 back-to-back broadcasts overlaps them down the chain, so
# the time column is the loop's (perf/nccl_tests_loop.hpp) and each small size says how.
perf collective --cluster examples/dgx-h100-superpod-1su.yaml --op broadcast --gpus 32 --min 8 --max 64M --factor 64 --explain
