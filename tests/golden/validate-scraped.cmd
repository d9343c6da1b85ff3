# dcgm-exporter scrapes saved as .txt by curl -v (its trailing "* Connection #0 ... left intact" kept): the sick
# node02 (XID 79, 12 DBE, a failed row remapping, 97 C) fails the same checks nvidia-smi output would.
# exit: 1
validate --measured tests/validate-fleets/scraped
