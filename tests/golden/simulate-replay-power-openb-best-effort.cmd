# An Alibaba openb pod list (format told by its header; pods made up for the test): BE (best effort) pods are the
# low-priority class, capped first under a budget that binds with 8 nodes busy.
simulate replay --jobs tests/traces/openb-pods-qos.csv --cluster tests/validate-fleets/dgx-h100-8-nodes.yaml --policy fifo --power-budget 70kW --power-policy cap-low-priority
