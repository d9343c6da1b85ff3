# exit: 0
# The rules of the Prometheus test fleet (tests/prometheus): 8 test L4 servers, 2 per rack; both files printed.
export prometheus tests/prometheus/l4-fleet.yaml --catalog tests/prometheus/catalog --out -
