# A fleet that is not the design (tests/validate-fleets/generate.py, mixed/): wrong GPU model, count and memory,
# a missing node and one too many; the T4 node is reported as a wrong model, not as a busbw shortfall.
# exit: 1
validate --cluster tests/validate-fleets/dgx-h100-6-nodes.yaml --measured tests/validate-fleets/mixed
