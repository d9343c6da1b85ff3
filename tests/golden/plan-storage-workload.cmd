# checkpoint size: workload on a workload-sized spec: Llama 3 8B's 8.03B parameters x (2 bytes of bf16 weights +
# 12 of Adam state) = 0.112 TB, written within 30 s: 3.75 GB/s, one appliance.
plan tests/specs/storage-workload-checkpoint.yaml
