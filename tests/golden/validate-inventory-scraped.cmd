# Scrapes saved as .txt are read by content (no extension decides), health from the same checks.
validate inventory --measured tests/validate-fleets/scraped
