# Buy or rent: the priced 1-SU DGX H100 SuperPOD's TCO against the example cloud prices (break-even utilisation
# per tier; docs/plan.md, "Buy or rent").
plan tests/specs/priced-1su.yaml --rent examples/cloud-gpu-prices.yaml
