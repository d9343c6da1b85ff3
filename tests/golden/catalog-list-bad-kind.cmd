# exit: 2
catalog list --kind bogus
