# The same with --runtime-estimate-factor 1 (perfect foresight, stated as such) in JSON.
simulate replay --jobs tests/traces/some-too-large.csv --nodes 2 --policy easy --runtime-estimate-factor 1 --json
