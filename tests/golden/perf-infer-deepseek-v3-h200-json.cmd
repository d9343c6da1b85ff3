# DeepSeek-V3 with expert parallelism as JSON: 8 attention groups of TP 1, 32 experts per GPU.
perf infer --system dgx-h200 --model deepseek-v3 --ep 8 --sequences 1 256 --json
