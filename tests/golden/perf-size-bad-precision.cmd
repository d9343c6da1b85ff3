# perf size --precision with no such recipe: a usage error listing the recipes of data/perf/precision-recipes.yaml.
# exit: 2
perf size --model llama3-70b --tokens 15T --days 30 --precision fp4
