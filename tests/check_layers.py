#!/usr/bin/env python3
"""Keeps the layering true (ARCHITECTURE.md: "dependencies point down only").

Reads each layer's dependencies from CMakeLists.txt (`kubesim_layer(NAME deps...)`, and the
`kubesim` executable's links for cli/), closes them transitively, and checks that
  - no library file under src/<layer>/ includes a header of a layer it does not depend on
    (`#include "other/..."`); unit tests (*_test.cpp) are linked into kubesim_tests, which
    links every layer, so they are not checked;
  - ARCHITECTURE.md's layer diagram lists every layer above all the layers it depends on
    (`workload/  platform/` on one line are one rank).
Prints one line per violation and exits 1 if there is any.

Usage: check_layers.py [SOURCE_DIR]   (default: the repository holding this script)
"""
import pathlib
import re
import sys

LAYER_CALL = re.compile(r"kubesim_layer\(\s*(\w+)([^)]*)\)", re.S)
CLI_LINKS = re.compile(r"target_link_libraries\(\s*kubesim\s+PRIVATE([^)]*)\)", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/', re.M)


def direct_dependencies(cmake_text):
    """{layer: set of layers it links directly} from the kubesim_layer calls."""
    body = re.sub(r"#[^\n]*", "", cmake_text)  # comments
    body = body[body.index("endfunction()"):]  # skip the function's definition
    deps = {}
    for name, args in LAYER_CALL.findall(body):
        deps[name] = {a[len("kubesim_"):] for a in args.split() if a.startswith("kubesim_")}
    cli = CLI_LINKS.search(body)
    if cli:
        deps["cli"] = {a[len("kubesim_"):] for a in cli.group(1).split() if a.startswith("kubesim_")}
    return deps


def closure(deps):
    """{layer: every layer it depends on, transitively}."""
    result = {}

    def visit(layer, path):
        if layer in result:
            return result[layer]
        if layer in path:
            raise SystemExit("CMakeLists.txt: dependency cycle " + " -> ".join(path + [layer]))
        below = set()
        for d in deps.get(layer, ()):
            below |= {d} | visit(d, path + [layer])
        result[layer] = below
        return below

    for layer in sorted(deps):
        visit(layer, [])
    return result


def include_violations(src, layers, below):
    problems = []
    for layer in sorted(layers):
        root = src / layer
        if not root.is_dir():
            continue
        for f in sorted(root.rglob("*")):
            if f.suffix not in (".hpp", ".cpp", ".h", ".inc") or f.name.endswith("_test.cpp"):
                continue
            text = f.read_text(encoding="utf-8", errors="replace")
            for m in INCLUDE.finditer(text):
                other = m.group(1)
                if other != layer and other in layers and other not in below[layer]:
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{f.relative_to(src.parent)}:{line}: {layer}/ includes {other}/, "
                                    f"which it does not link (CMakeLists.txt kubesim_layer({layer} ...))")
    return problems


def diagram_ranks(architecture_text, layers):
    """{layer: rank} from the first ``` block of ARCHITECTURE.md (0: top)."""
    block = architecture_text.split("```")[1]
    ranks = {}
    for rank, line in enumerate(l for l in block.splitlines() if l and not l[0].isspace()):
        for word in line.split():
            if word.endswith("/") and word[:-1] in layers:
                ranks[word[:-1]] = rank
            else:
                break
    return ranks


def diagram_violations(ranks, layers, below):
    problems = [f"ARCHITECTURE.md: the diagram does not draw {layer}/" for layer in sorted(layers - ranks.keys())]
    for layer in sorted(ranks):
        for d in sorted(below.get(layer, ())):
            if d in ranks and ranks[d] <= ranks[layer]:
                problems.append(f"ARCHITECTURE.md: {layer}/ depends on {d}/ but is drawn "
                                f"{'beside' if ranks[d] == ranks[layer] else 'below'} it")
    return problems


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    deps = direct_dependencies((root / "CMakeLists.txt").read_text(encoding="utf-8"))
    below = closure(deps)
    layers = set(deps)
    problems = include_violations(root / "src", layers, below)
    problems += diagram_violations(diagram_ranks((root / "ARCHITECTURE.md").read_text(encoding="utf-8"), layers),
                                   layers, below)
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"layers ok: {len(layers)} layers, includes and ARCHITECTURE.md's diagram agree with CMakeLists.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
