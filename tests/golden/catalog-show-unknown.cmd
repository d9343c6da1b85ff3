# exit: 1
catalog show qm9800
