#!/usr/bin/env python3
"""Golden test of one whole CLI run: NAME.cmd holds the arguments (and '# exit: N'), NAME.out what it must print.

Usage: run_golden.py GPUTWIN NAME.cmd [--update]
Stdout and stderr are compared together (stderr after stdout). With --update, NAME.out is rewritten.
"""
import pathlib
import shlex
import subprocess
import sys


def main() -> int:
    binary, case = sys.argv[1], pathlib.Path(sys.argv[2])
    update = "--update" in sys.argv[3:]
    expected_exit = 0
    arguments = []
    for line in case.read_text().splitlines():
        if line.startswith("# exit:"):
            expected_exit = int(line.split(":", 1)[1])
        elif line.strip() and not line.startswith("#"):
            arguments = shlex.split(line)
    run = subprocess.run([binary, *arguments], capture_output=True, text=True)
    output = run.stdout + run.stderr
    golden = case.with_suffix(".out")
    if update:
        golden.write_text(output)
    failures = []
    if run.returncode != expected_exit:
        failures.append(f"exit status {run.returncode}, expected {expected_exit}")
    if not golden.exists():
        failures.append(f"{golden} is missing (run with --update to create it)")
    elif golden.read_text() != output:
        import difflib
        diff = difflib.unified_diff(golden.read_text().splitlines(), output.splitlines(), "expected", "actual", lineterm="")
        failures.append("output differs:\n" + "\n".join(list(diff)[:80]))
    for failure in failures:
        print(f"{case.name}: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
