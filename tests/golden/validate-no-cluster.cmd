# Without --cluster busbw is not judged, and the report says so.
validate --measured tests/validate-fleets/faulty --fail-on info
# exit: 1
