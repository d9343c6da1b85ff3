# exit: 2
# perf train --torch-compile off on a GPT block (LayerNorm, GELU, biases): the eager op table is torchtitan's Llama
# block, so the split is refused rather than answered with the wrong ops.
perf train --system dgx-h100 --nodes 1 --model gpt3-5b --seq 2048 --global-batch 16 --torch-compile off
