# The same model as JSON (schema gputwin.infer/1), from a catalog system rather than a spec.
perf infer --system dgx-h200 --model llama3.1-8b --sequences 1 256 --json
