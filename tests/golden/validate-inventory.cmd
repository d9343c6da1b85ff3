# The inventory reads and judges files as validate does: health is the rules of the checks' findings.
validate inventory --measured tests/validate-fleets/faulty
