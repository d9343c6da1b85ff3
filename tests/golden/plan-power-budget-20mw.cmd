# The most training of Llama 3 70B in 20 MW of facility power, among DGX H100 (every cap of its published
# range), DGX B200 and GB200 NVL72 (their TDP): the candidates compared, the chosen design (docs/plan.md).
plan examples/llama3-70b-20mw.yaml
