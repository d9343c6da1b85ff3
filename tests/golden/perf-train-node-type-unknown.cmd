# perf train --node-type: an unknown node type, located, with the design's types.
# exit: 1
perf train --cluster examples/dgx-h100-superpod-1su.yaml --node-type dgx-b200 --model llama3-8b --seq 8192 --global-batch 128 --tp 8 --pp 1
