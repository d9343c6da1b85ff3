# The same dir merged with --allow-partial: the rows there are, and the missing task on standard error.
sweep merge tests/sweeps/merge-partial --allow-partial
