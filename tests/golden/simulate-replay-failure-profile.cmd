# The failure data's Llama 3 profile (data/reliability/failure-rates.yaml: every Table 5 component with its scope
# and repair time) on a designed cluster: GPU and host faults drain a node, switch/cable faults take a leaf
# group's nodes off the fabric, software faults restart the job; Daly's optimum interval per job.
simulate replay --jobs tests/traces/long-training-jobs.csv --cluster examples/dgx-h100-superpod-1su.yaml --policy fifo --failure-profile llama3-table5 --failure-seed 7 --checkpoint-interval young-daly --checkpoint-write 1min --restart 5min
