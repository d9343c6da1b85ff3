# A spec that chooses among DGX H100, DGX B200 and GB200 NVL72 racks for Llama 3 70B on 15T tokens in 30 days:
# the comparison (GPUs, racks, days, MFU, power, cost, why the others lost), the chosen one's sizing and design.
plan examples/llama3-70b-choose-platform.yaml
