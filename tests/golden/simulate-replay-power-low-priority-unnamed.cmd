# A trace whose jobs carry Slurm-style QOS classes, none named low: refused, listing the classes and the option.
# exit: 2
simulate replay --jobs tests/traces/long-training-jobs-qos.csv --cluster examples/dgx-h100-superpod-1su.yaml --power-budget 230kW --power-policy cap-low-priority
