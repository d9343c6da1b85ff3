# Jobs a design can never run are counted under the table, per design (issue 13 item 13: nothing skipped silently).
sweep tests/sweeps/too-small.yaml --threads 1
