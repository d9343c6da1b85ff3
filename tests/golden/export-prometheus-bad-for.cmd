# exit: 2
export prometheus tests/prometheus/l4-fleet.yaml --catalog tests/prometheus/catalog --for "5 minutes" --out /tmp/gputwin-golden-unwritten
