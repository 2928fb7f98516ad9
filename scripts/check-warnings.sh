#!/usr/bin/env bash
# Compiles the given source files with -Wshadow -Wconversion (syntax only, no object written)
# using their commands from build/compile_commands.json; with no argument, every .cpp of src/.
# Prints the warnings; exits 1 if there is any. Cheaper than a second build tree.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KUBESIM_BUILD_DIR:-build}
exec python3 - "$build" "$@" <<'PY'
import json, os, shlex, subprocess, sys
build, files = sys.argv[1], sys.argv[2:]
db = {os.path.realpath(e["file"]): e for e in json.load(open(os.path.join(build, "compile_commands.json")))}
if not files:
    files = sorted(f for f in db if "/src/" in f)
bad = 0
for f in files:
    entry = db.get(os.path.realpath(f))
    if entry is None:
        print(f"{f}: not in {build}/compile_commands.json (re-run cmake?)", file=sys.stderr)
        bad = 1
        continue
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    args = [a for a in args if a not in ("ccache", "/usr/bin/ccache")]
    out = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        out.append(a)
    out += ["-Wshadow", "-Wconversion", "-fsyntax-only"]
    r = subprocess.run(out, cwd=entry["directory"], capture_output=True, text=True)
    if r.stderr.strip():
        sys.stdout.write(r.stderr)
        bad = 1
sys.exit(bad)
PY
