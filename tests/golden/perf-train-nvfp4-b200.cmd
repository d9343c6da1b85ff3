# perf train --precision nvfp4 (Megatron-Bridge's NVFP4 recipe: GEMMs at the FP4 rate, attention and the output
# layer in BF16), Llama 3 70B on 8 DGX B200 as in the Bridge 26.x GB200 recipe's split (tp 2, pp 4).
perf train --system dgx-b200 --nodes 8 --model llama3-70b --seq 8192 --global-batch 128 --tp 2 --pp 4 --precision nvfp4 --recompute none
