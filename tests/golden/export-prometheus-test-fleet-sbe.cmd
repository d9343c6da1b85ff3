# exit: 0
# The single-bit ECC alert, off by default, at the user's limit (--ecc-sbe-rate): the test fleet's alerts file.
export prometheus tests/prometheus/l4-fleet.yaml --catalog tests/prometheus/catalog --ecc-sbe-rate 20 --for 0s --out -
