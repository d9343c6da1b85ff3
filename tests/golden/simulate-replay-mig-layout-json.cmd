# The same MIG node pre-partitioned: only the layout's instances run; jobs of other profiles are counted out.
simulate replay --jobs tests/traces/mig-jobs.csv --nodes 2 --mig-nodes 1 --mig-profile-set a100-80gb --mig-layout 3g.40gb+2g.20gb+1g.10gb+1g.10gb --policy easy --interval 7200 --json
