#!/usr/bin/env python3
"""The Debian package (cpack -G DEB) on a clean root: what a user who installs the .deb gets.

Usage: package_test.py BUILD_DIR [--dpkg-install]   (or KUBESIM_TEST_DPKG_INSTALL=1)

1. `cpack -G DEB` in BUILD_DIR (the configured, built tree) writes kubesim_VERSION_ARCH.deb.
2. Depends is complete: every shared library the packaged ELF files need (readelf NEEDED,
   resolved by ldconfig) belongs to a Debian package that Depends names (dpkg-shlibdeps wrote it).
3. The package's files alone work: `dpkg-deb -x` into an empty folder (no build tree, no
   source tree visible), then from another empty folder:
   - ROOT/usr/bin/kubesim run --scenario ROOT/usr/share/kubesim/examples/multitenant/e2.yaml
     writes results/run/e2/ (the default output rule) with report.html and jobs.csv;
   - the man pages and the bash completion are there and the completion completes `kubesim ru`;
   - the documentation is in /usr/share/doc/kubesim (README.md, docs/ as Markdown with its
     pictures) and every relative link of the installed README names an installed file;
   - python3 with ROOT/usr/lib/python3/dist-packages imports kubesim and runs the example.
4. With --dpkg-install (as root, e.g. on CI's throwaway machine: .ci/run): a real `dpkg -i`, which
   checks Depends against the system, then `kubesim run` from PATH in an empty folder and
   `import kubesim` with the system python3, then `dpkg -r kubesim`.
Skips (exit 77) with one line where cpack or dpkg-deb is missing (not a Debian system).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

EXAMPLE = "share/kubesim/examples/multitenant/e2.yaml"


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("package_test: %s failed (exit %d): %s" % (" ".join(cmd), p.returncode, (p.stderr or p.stdout)[-2000:]))
    return p.stdout


def needed_packages(root):
    """{soname: Debian package} for every library the ELF files under root/usr need."""
    libraries = {}
    for line in run(["ldconfig", "-p"]).splitlines()[1:]:
        m = re.match(r"\s*(\S+) \(([^)]*)\) => (\S+)", line)
        if m:
            libraries.setdefault(m.group(1), m.group(3))
    owners = {}
    for path in glob.glob(os.path.join(root, "usr/bin/*")) + glob.glob(os.path.join(root, "usr/lib/python3/dist-packages/kubesim/*.so")):
        for soname in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run(["readelf", "-d", path])):
            real = os.path.realpath(libraries[soname])
            owner = subprocess.run(["dpkg", "-S", real], capture_output=True, text=True).stdout
            if not owner:  # /lib -> /usr/lib (merged /usr): dpkg knows one of the two names
                owner = run(["dpkg", "-S", real.replace("/usr/lib/", "/lib/", 1)])
            owners[soname] = owner.split(":")[0]
    return owners


def check_docs(doc):
    """README.md, the docs' Markdown and pictures under DOC, and the README's links resolve there."""
    for rel in ["README.md", "docs/index.md", "docs/getting-started.md", "docs/tutorials/first-scenario.md",
                "docs/img/e3-running-cores.png"]:
        if not os.path.exists(os.path.join(doc, rel)):
            sys.exit("package_test: the package has no /usr/share/doc/kubesim/" + rel)
    with open(os.path.join(doc, "README.md"), encoding="utf-8") as f:
        links = {t.split("#", 1)[0] for t in re.findall(r"\]\(([^)\s]+)\)", f.read()) if "://" not in t}
    broken = sorted(t for t in links if t.startswith("docs/") and not os.path.exists(os.path.join(doc, t)))
    if broken:
        sys.exit("package_test: the installed README links to files the package lacks: %s" % broken)
    pages = len(glob.glob(os.path.join(doc, "docs", "**", "*.md"), recursive=True))
    print("package_test: /usr/share/doc/kubesim: README.md and %d Markdown pages; the README's %d docs/ links resolve"
          % (pages, sum(1 for t in links if t.startswith("docs/"))))


def check_files(root, work):
    usr = os.path.join(root, "usr")
    for rel in ["bin/kubesim", "bin/kubesim-timeshim", "share/man/man1/kubesim.1", "share/man/man1/kubesim-run.1",
                "share/bash-completion/completions/kubesim", EXAMPLE]:
        if not os.path.exists(os.path.join(usr, rel)):
            sys.exit("package_test: the package has no /usr/" + rel)
    check_docs(os.path.join(usr, "share/doc/kubesim"))
    cwd = tempfile.mkdtemp(dir=work)
    run([os.path.join(usr, "bin/kubesim"), "run", "--scenario", os.path.join(usr, EXAMPLE), "--quiet"], cwd=cwd)
    for name in ["report.html", "jobs.csv", "pods.csv"]:
        if not os.path.getsize(os.path.join(cwd, "results/run/e2", name)):
            sys.exit("package_test: kubesim run of the installed example wrote no " + name)
    words = run(["bash", "-c", "source %s/share/bash-completion/completions/kubesim; COMP_WORDS=(kubesim ru); "
                 "COMP_CWORD=1; _kubesim; echo ${COMPREPLY[@]}" % usr], cwd=cwd).split()
    if "run" not in words:
        sys.exit("package_test: the bash completion of `kubesim ru` gave %s" % words)
    python = "import kubesim, sys; files = dict(kubesim.run_files(sys.argv[1])); print(len(files['jobs.csv'].splitlines()))"
    env = dict(os.environ, PYTHONPATH=os.path.join(usr, "lib/python3/dist-packages"))
    rows = run(["/usr/bin/python3", "-c", python, os.path.join(usr, EXAMPLE)], cwd=cwd, env=env).strip()
    print("package_test: dpkg-deb -x: kubesim run of the installed e2 wrote report.html; import kubesim ran it (%s jobs.csv lines)" % rows)


def dpkg_install(deb, work):
    run(["dpkg", "-i", deb])
    try:
        cwd = tempfile.mkdtemp(dir=work)
        run(["kubesim", "run", "--scenario", "/usr/" + EXAMPLE, "--quiet"], cwd=cwd)
        if not os.path.exists(os.path.join(cwd, "results/run/e2/report.html")):
            sys.exit("package_test: the installed kubesim wrote no report.html")
        run(["/usr/bin/python3", "-c", "import kubesim; print(kubesim.__version__)"], cwd=cwd)
        print("package_test: dpkg -i: kubesim from PATH wrote results/run/e2/report.html; import kubesim works")
    finally:
        run(["dpkg", "-r", "kubesim"])


def main():
    build = os.path.abspath(sys.argv[1])
    if not shutil.which("cpack") or not shutil.which("dpkg-deb") or not shutil.which("dpkg-shlibdeps"):
        print("package_test: SKIP: needs cpack, dpkg-deb and dpkg-shlibdeps (a Debian system with dpkg-dev)")
        return 77
    with tempfile.TemporaryDirectory() as work:
        run(["cpack", "-G", "DEB", "-B", work], cwd=build)
        deb = glob.glob(os.path.join(work, "kubesim_*.deb"))[0]
        depends = run(["dpkg-deb", "-f", deb, "Depends"])
        root = os.path.join(work, "root")
        run(["dpkg-deb", "-x", deb, root])
        declared = {d.strip().split(" ")[0] for d in depends.split(",")}
        missing = {s: p for s, p in needed_packages(root).items() if p not in declared}
        if missing:
            sys.exit("package_test: Depends (%s) lacks the packages of %s" % (depends.strip(), missing))
        print("package_test: %s, Depends: %s" % (os.path.basename(deb), depends.strip()))
        check_files(root, work)
        if "--dpkg-install" in sys.argv or os.environ.get("KUBESIM_TEST_DPKG_INSTALL") == "1":
            if os.geteuid() == 0:
                dpkg_install(deb, work)
            else:
                print("package_test: dpkg -i not tried: needs root")
    return 0


if __name__ == "__main__":
    sys.exit(main())
