# perf goodput on a designed cluster: the shape (leaves, rails, domains) comes from the design; Llama 3 rates, 4 spares.
perf goodput --cluster examples/dgx-h100-superpod-4su.yaml --gpus 512 --days 7 --spare-nodes 4 --seeds 10
