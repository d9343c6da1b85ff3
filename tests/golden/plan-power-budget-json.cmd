# workload_fit.power_budget in plan --json: every platform and cap compared, the chosen cap (docs/plan-json.md).
plan tests/specs/power-budget-llama3-8b.yaml --json
