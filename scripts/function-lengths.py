#!/usr/bin/env python3
"""Lists C++ functions longer than a limit (default 120 lines, from the line of the opening
brace's header to the closing brace). Text-based: comments, strings and character literals
are blanked, then braces are matched; a block is a function when its header (the text since
the previous ';', '{' or '}') has a parameter list and is not a control statement, a lambda
inside a function (part of its function) or a class/namespace/enum. Test files (*_test.cpp)
are skipped unless --tests. Exits 1 when any function is over the limit.

Usage: function-lengths.py [--limit N] [--tests] [--all] [PATH ...]   (default: src)"""
import os
import re
import sys

CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|do|else|return)\b")
TYPE_HEAD = re.compile(r"\b(namespace|class|struct|union|enum)\b")


def blank(text):
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                j = n if end < 0 else end + len(m.group(1)) + 2
                out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
            else:
                out.append(c); i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i)); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)


def functions(path):
    text = blank(open(path, encoding="utf-8", errors="replace").read())
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)  # preprocessor lines
    stack, last = [], 0  # stack of (kind, start_line, name)
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c in ";":
            last = i + 1
        elif c == "{":
            head = text[last:i]
            inside_function = any(k == "function" for k, _, _ in stack)
            if inside_function:
                kind = "block"
            elif TYPE_HEAD.search(head) and "(" not in head.split("=")[0]:
                kind = "scope"
            elif "(" in head and not CONTROL.match(head) and not head.strip().endswith("="):
                kind = "function"
            else:
                kind = "block"
            name = ""
            if kind == "function":
                m = re.search(r"([~\w:<>]+)\s*\((?:[^()]|\([^()]*\))*\)[^()]*$", head)
                name = m.group(1) if m else head.strip().split("\n")[-1][:60]
                start = line - head.rstrip().count("\n") - head[len(head.rstrip()):].count("\n")
                start = line - text[last:i].strip("\n ").count("\n") if head.strip() else line
            else:
                start = line
            stack.append((kind, start, name))
            last = i + 1
        elif c == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    yield name, start, line - start + 1
            last = i + 1


def main(argv):
    limit, tests, show_all, paths = 120, False, False, []
    it = iter(argv)
    for a in it:
        if a == "--limit":
            limit = int(next(it))
        elif a == "--tests":
            tests = True
        elif a == "--all":
            show_all = True
        else:
            paths.append(a)
    paths = paths or ["src"]
    files = []
    for p in paths:
        if os.path.isfile(p):
            files.append(p)
        for root, _, names in os.walk(p):
            files += [os.path.join(root, f) for f in names if f.endswith((".cpp", ".hpp", ".h", ".cc"))]
    rows = []
    for f in sorted(set(files)):
        if not tests and f.endswith("_test.cpp"):
            continue
        for name, start, length in functions(f):
            if length > limit or show_all:
                rows.append((length, f, start, name))
    for length, f, start, name in sorted(rows, reverse=True):
        print(f"{length:5d} {f}:{start} {name}")
    over = sum(1 for r in rows if r[0] > limit)
    print(f"{over} function(s) over {limit} lines", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
