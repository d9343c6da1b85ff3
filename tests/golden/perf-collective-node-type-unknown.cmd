# A node type the design does not hold is an error located at the spec and the option, listing the design's
# compute node types (a CPU-only server is not one).
# exit: 1
perf collective --cluster examples/gb200-nvl72-2-racks-login-nodes.yaml --node-type mgmt-server-2s --op all_reduce --gpus 8
