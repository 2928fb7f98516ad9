#!/usr/bin/env bash
# Builds the documentation site (mkdocs.yml, docs/) with MkDocs and the Material theme
# (Debian: mkdocs, mkdocs-material). First writes the subcommand reference,
# docs/reference/commands.md (git-ignored), from the command tree of the kubesim binary
# (`kubesim man`, then scripts/man_to_markdown.py), so it cannot drift from --help.
#   scripts/docs.sh [SITE_DIR]          build into SITE_DIR (default build/site), --strict
#   scripts/docs.sh --serve             the same page, then `mkdocs serve` on 127.0.0.1:8000
#   scripts/docs.sh --picture           redraws the README's picture, docs/img/e3-running-cores.png:
#                                       E3's running-cores chart from a real run, by headless Chromium
# KUBESIM=BINARY picks the binary (default build/kubesim).
set -euo pipefail
cd "$(dirname "$0")/.."
kubesim="${KUBESIM:-build/kubesim}"
[ -x "$kubesim" ] || { echo "docs.sh: $kubesim is not built (scripts/build.sh --no-tests, or set KUBESIM=)" >&2; exit 2; }
if [ "${1:-}" = --picture ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
  "$kubesim" run --scenario examples/multitenant/e3.yaml --out "$out/e3" --quiet
  chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars --window-size=960,400 \
    --screenshot="$PWD/docs/img/e3-running-cores.png" "file://$out/e3/cores_running.svg" 2>/dev/null
  exit 0
fi
command -v mkdocs >/dev/null || { echo "docs.sh: mkdocs is missing (apt-get install mkdocs mkdocs-material)" >&2; exit 2; }
export PYTHONWARNINGS="${PYTHONWARNINGS:-ignore::DeprecationWarning}"  # Debian's jinja2 under Python 3.11
man=$(mktemp -d)
trap 'rm -rf "$man"' EXIT
"$kubesim" man --out "$man"
python3 scripts/man_to_markdown.py "$man" docs/reference/commands.md
if [ "${1:-}" = --serve ]; then
  exec mkdocs serve --strict
fi
mkdocs build --strict --site-dir "$(realpath -m "${1:-build/site}")"
