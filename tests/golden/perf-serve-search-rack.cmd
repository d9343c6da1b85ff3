# A rack-scale system by its rack id (gb200-nvl72: its compute tray is searched) beside 8-GPU boxes: the NVL72
# is bought by the 72-GPU rack, the box by the node; $/h on the GPUs bought, "no price" where the price list
# has none.
# exit: 0
perf serve --search --systems gb200-nvl72,dgx-h100 --model llama3.1-70b --rate 4 --duration 20 --input-tokens 1024 --output-tokens 128 --slo ttft-p90=500ms,tpot-p90=50ms --prices examples/gpu-hour-prices.yaml --threads 2
