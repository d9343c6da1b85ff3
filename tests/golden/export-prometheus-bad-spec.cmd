# exit: 1
export prometheus tests/specs/bad-unit.yaml --out /tmp/gputwin-golden-unwritten
