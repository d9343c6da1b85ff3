# plan --json gains a `storage` object (docs/plan-json.md) when the spec has a `storage:` section.
plan examples/dgx-h100-superpod-4su-storage.yaml --json
