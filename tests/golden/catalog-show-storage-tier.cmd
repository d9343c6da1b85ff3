# The DGX H100 SuperPOD RA's storage tiers: per node and aggregate per SU count, as printed (Table 6).
catalog show dgx-h100-superpod
