# A cloud price without its unit is a located error (file, line, field).
# exit: 1
plan tests/specs/priced-1su.yaml --rent tests/specs/rent-prices-bare-number.yaml
