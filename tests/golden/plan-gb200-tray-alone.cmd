# The NVL72 tray named alone: a 72-GPU scale_up_domain the design cannot honour without its rack, a located error, exit 1.
# exit: 1
plan tests/specs/gb200-tray-alone.yaml
