#!/usr/bin/env python3
"""Writes the subcommand reference of the documentation site (docs/reference/commands.md) from
the man pages that `kubesim man --out DIR` generates from the CLI's command tree
(src/cli/cli_reference.cpp), so the page says what `--help` says and cannot drift from it.

Reads only the roff that cli_reference.cpp writes: .TH, .SH, .B, .TP, .nf/.fi, \\fB/\\fI/\\fR
and the escapes \\- \\e \\&. One page: `kubesim` first, then every subcommand in the order the
pages list them (nested ones after their parent), each a section with its synopsis, options,
subcommands and examples.

Usage: man_to_markdown.py MAN_DIR OUT.md"""
import html
import os
import re
import sys

FONT = re.compile(r"\\f([BIR])")


def plain(text):
    """A roff line's text: escapes undone, font changes dropped."""
    text = FONT.sub("", text)
    return text.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")


def inline(text):
    """A description as Markdown: HTML-escaped (help texts say <file>), `kubesim-x(1)` linked."""
    text = html.escape(plain(text), quote=False).replace("*", "\\*").replace("`", "\\`")
    return re.sub(r"(kubesim(?:-[a-z0-9-]+)?)\(1\)", lambda m: f"[{title(m.group(1))}](#{anchor(m.group(1))})", text)


TITLES = {}  # page name (kubesim-convert-swf-to-batsim) -> command (kubesim convert swf-to-batsim)


def title(page_name):
    return TITLES.get(page_name, page_name)


def anchor(page_name):
    return page_name  # MkDocs' toc slug of "kubesim run" is "kubesim-run"


def sections(roff):
    """{section name: [lines]} of one page, in order."""
    out, current = {}, None
    for line in roff.splitlines():
        if line.startswith(".SH "):
            current = line[4:].strip()
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return out


def entries(lines):
    """The .TP entries of a section: (term, description) pairs."""
    items = []
    for line in lines:
        if line == ".TP":
            items.append(["", ""])
        elif items and not items[-1][0]:
            items[-1][0] = line
        elif items:
            items[-1][1] += (" " if items[-1][1] else "") + line
    return items


def option_item(term, description):
    """`--out TEXT`: **`--out`** *TEXT*, description."""
    m = re.match(r"\\fB(.*?)\\fR(?: \\fI(.*?)\\fR)?$", term)
    names, value = (plain(m.group(1)), plain(m.group(2) or "")) if m else (plain(term), "")
    value = f" *{html.escape(value, quote=False)}*" if value else ""
    return f"- `{names}`{value}: {inline(description)}"


def page_markdown(name, roff):
    s = sections(roff)
    head = plain(" ".join(s.get("NAME", [])))
    description = head.split(" - ", 1)[1] if " - " in head else head
    synopsis = plain(" ".join(line[3:] if line.startswith(".B ") else line for line in s.get("SYNOPSIS", [])))
    md = [f"## {title(name)}", "", html.escape(description, quote=False), "", "```", synopsis, "```", ""]
    options = entries(s.get("OPTIONS", []))
    if options:
        md += ["**Options**", ""] + [option_item(t, d) for t, d in options] + [""]
    commands = entries(s.get("COMMANDS", []))
    if commands:
        md += ["**Subcommands**", ""] + [f"- `{plain(t)}`: {inline(d)}" for t, d in commands] + [""]
    notes = [plain(line) for line in s.get("NOTES AND EXAMPLES", []) if line not in (".nf", ".fi")]
    if notes:
        md += ["**Notes and examples**", "", "```text"] + notes + ["```", ""]
    return md


def order(pages):
    """kubesim first, then each page followed by its subcommands' pages (in COMMANDS order)."""
    done = []

    def visit(name):
        done.append(name)
        for term, _ in entries(sections(pages[name]).get("COMMANDS", [])):
            child = f"{name}-{plain(term)}"
            if child in pages and child not in done:
                visit(child)

    visit("kubesim")
    return done + sorted(n for n in pages if n not in done)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    man_dir, out = sys.argv[1:]
    pages = {}
    for f in sorted(os.listdir(man_dir)):
        if f.endswith(".1"):
            with open(os.path.join(man_dir, f), encoding="utf-8") as fh:
                pages[f[:-2]] = fh.read()
    for name, roff in pages.items():
        bold = [line[3:] for line in sections(roff).get("SYNOPSIS", []) if line.startswith(".B ")]
        TITLES[name] = plain(bold[0]) if bold else name
    if "kubesim" not in pages:
        sys.exit(f"man_to_markdown: no kubesim.1 in {man_dir}")
    md = ["# Commands", "",
          "Every subcommand and option, generated from the command tree of the `kubesim` binary",
          "(`scripts/docs.sh` writes this page from `kubesim man`; the man pages and `--help` say the",
          "same). The options shared by every subcommand are described in",
          "[runs, options and outputs](running.md).", ""]
    for name in order(pages):
        md += page_markdown(name, pages[name])
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("\n".join(md).rstrip("\n") + "\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
