# exit: 2
export prometheus tests/prometheus/l4-fleet.yaml --catalog tests/prometheus/catalog --ecc-sbe-rate 0 --out /tmp/gputwin-golden-unwritten
