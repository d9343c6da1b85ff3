# exit: 1
# --replay must be a simulate replay --json result; a size result is refused at its schema field.
export prometheus tests/prometheus/l4-fleet.yaml --catalog tests/prometheus/catalog --replay tests/report/size-llama3-70b.json --out /tmp/gputwin-golden-unwritten
