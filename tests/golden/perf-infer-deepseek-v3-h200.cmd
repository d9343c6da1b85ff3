# DeepSeek-V3 on a DGX H200 at TP 8: 671B FP8 weights fit; the MLA latent KV cache is whole on every rank.
perf infer --system dgx-h200 --model deepseek-v3 --tp 8 --sequences 1 64 256
