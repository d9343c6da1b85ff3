# A node directory holding only a note: a critical finding (nothing of it was validated), exit 1.
# exit: 1
validate --measured tests/validate-fleets/no-capture
