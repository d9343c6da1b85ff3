# The same sweep as CSV: seconds to 0.1 s, slowdown to 0.001, utilisation to 0.0001 (was 17 digits); an empty
# window_utilisation cell where every job arrives at once.
sweep tests/sweeps/small.yaml --threads 2 --csv
