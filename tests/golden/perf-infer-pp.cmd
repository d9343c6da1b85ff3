# Llama 3.1 405B FP8 as TP 8 x PP 2 over two DGX H100 nodes: the weights per GPU of one stage (63 of 126 layers)
# and a batch's time through both stages.
perf infer --system dgx-h100 --model llama3.1-405b --tp 8 --pp 2 --input-tokens 2048 --output-tokens 256 --sequences 1 16 64 --load-rounds 2
