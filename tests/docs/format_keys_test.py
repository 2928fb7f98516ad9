#!/usr/bin/env python3
"""Every key an input reader accepts is documented on its reference page: the keys are taken
from the readers themselves (their check_keys lists, the model file's `key == "..."` tests), so
a key added to a reader without a word on its page fails here.

Usage: format_keys_test.py"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from checks import summary  # noqa: E402  tests/checks.py

CHECK_KEYS = re.compile(r"check_keys\(\s*[\w.\[\]\"]+\s*,\s*\{(.*?)\}", re.S)
MODEL_KEY = re.compile(r'key == "(\w+)"')

# reader source, how its keys are found, the page that documents them
READERS = [
    ("src/scenario/scenario.cpp", CHECK_KEYS, "docs/reference/scenario.md"),
    ("src/platform/cluster_yaml.cpp", CHECK_KEYS, "docs/reference/cluster.md"),
    ("src/platform/device_yaml.cpp", CHECK_KEYS, "docs/reference/cluster.md"),
    ("src/sweep/plan.cpp", CHECK_KEYS, "docs/reference/sweep-plan.md"),
    ("src/bsp/gang_spec.cpp", CHECK_KEYS, "docs/reference/bsp-spec.md"),
    ("src/engine/model_config.cpp", MODEL_KEY, "docs/reference/model.md"),
]


def keys(source, pattern):
    with open(os.path.join(ROOT, source), encoding="utf-8") as f:
        text = f.read()
    found = set()
    for m in pattern.finditer(text):
        found.update(re.findall(r'"([^"]+)"', m.group(1)) if pattern is CHECK_KEYS else [m.group(1)])
    return found


def main():
    passed, failures = 0, []
    for source, pattern, page in READERS:
        found = keys(source, pattern)
        if not found:
            failures.append(f"{source}: no keys found (has the reader changed its form?)")
            continue
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            doc = f.read()
        for key in sorted(found):
            if re.search(r"(?<![\w-])" + re.escape(key) + r"(?![\w-])", doc):
                passed += 1
            else:
                failures.append(f"{page}: says nothing of `{key}`, a key {source} accepts")
    return summary("format keys", passed, failures)


if __name__ == "__main__":
    sys.exit(main())
