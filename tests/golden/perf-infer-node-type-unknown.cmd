# perf infer --node-type: an unknown node type, located, with the design's types (perf serve takes the same
# option).
# exit: 1
perf infer --cluster examples/dgx-h100-single-node.yaml --node-type h100-pcie-server --model llama3.1-70b --tp 2 --sequences 1
