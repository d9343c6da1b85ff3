# A measured directory that does not exist: exit 1, saying so.
# exit: 1
validate inventory --measured nonexistent
