# exit: 0
catalog show qm9700
