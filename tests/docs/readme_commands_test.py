#!/usr/bin/env python3
"""Every command of the README, of docs/getting-started.md and of every tutorial page
(docs/tutorials/*.md) is run by the test suite: the lines of their fenced code blocks (``` or
```sh/bash/console; output goes in ```text), continuation lines joined, comments dropped, `{a..b}`
expanded as the shell does.
  - a `kubesim ...` or `build/kubesim ...` command is run here, from the repository's root,
    with its outputs redirected into a temporary folder: each `--out`/`-o`/`--report` path (or
    the default results/<subcommand>/<input name>) gets a folder of its own there, and a later
    command naming that path (a kubeconfig under it, `sweep merge OUT`) gets the same folder.
    It must exit 0;
  - `kubesim serve` starts in the background (`--port 0`); the commands after it in the same
    code block talk to it (kubectl, the real kube-scheduler, `calibrate --kubeconfig`; a client
    command is retried for up to 20 s while the server submits its workload). At the end of
    the block each server still running gets SIGINT and must exit 0 with its outputs written;
  - `build/peers/kube-scheduler` (the real kube-scheduler, unpacked from the peers folder as
    ctest real_kube_scheduler does) must bind a pod within 30 s; where the peers are absent it
    is skipped with one line, and kubectl commands likewise where kubectl is missing;
  - any other command must be in COVERED, which names the ctest that runs it, and that ctest
    must be registered (CMakeLists.txt, cmake/*.cmake); `scripts/test.sh` is what CI runs
    (.ci/run must call it).
A command in none of these fails the test: run it here, or name the test that runs it.
Also, every relative link of the README (to the site's pages, a picture) names a file that exists.

Usage: readme_commands_test.py KUBESIM_BINARY"""
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tests", "peers"))
from checks import summary  # noqa: E402  tests/checks.py
from real_scheduler import real_kube_scheduler, stop  # noqa: E402  the peers' unpacking, shared

PAGES = ["README.md", "docs/getting-started.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "tutorials", "*.md")))

# Commands other than kubesim's, and the ctest that runs each (what it runs, exactly, or on a
# machine it sets up itself).
COVERED = {
    "scripts/run-example.sh": "standalone",  # runs it in a copy of the repository
    "scripts/docs.sh": "docs_site",  # runs it, then checks the built site
    "cd build && cpack -G DEB && dpkg -i kubesim_0.1.0_amd64.deb": "package_deb",  # cpack; dpkg -i in CI
    "cmake --install build": "package_deb",  # cpack installs the same files (CPack runs the install rules)
    "kubesim run --scenario /usr/share/kubesim/examples/multitenant/e2.yaml": "package_deb",  # the installed e2
    "man kubesim-run; source <(kubesim completion bash)": "cli_conventions",  # the man page, the completion
    "python3 -m venv venv && venv/bin/pip install --no-build-isolation .": "pip_venv",
    "venv/bin/pip install --no-build-isolation '.[frames]'": "pip_venv",  # the same install, extras from Debian
    "tests/batsim_oracle.py build/kubesim": "batsim_oracle",
    # Needs a Slurm cluster: sweep_slurm starts one (munge, slurmctld, slurmd) and runs sweep --slurm --wait on it.
    "kubesim sweep examples/sweep/e3-schedulers.yaml --out results/e3-sweep --slurm --cells-per-task 2 --wait": "sweep_slurm",
}
# Commands run by hand only, and why (each a benchmark of minutes, not a check, or long where a
# ctest runs the same inputs).
BY_HAND = {
    "kubesim compare --platform data/batsim/platform_cluster128.xml --workload data/batsim/nasa_ipsc_exact_delay.json "
    "--schedulers fcfs,easy-backfill,conservative-backfill,default-scheduler --model batsim --seeds 1":
        "the NASA trace's 18,239 jobs under four policies: 14 s; the scenarios ctest runs each policy on the "
        "NASA trace (nasa-swf-*) and batsim_oracle compares them with Batsim",
    "bench/batsim_nasa_oracle.py build/kubesim": "the whole NASA trace against Batsim: minutes; "
                                                 "batsim_protocol_oracle runs its first 1500 jobs",
    "examples/compare/run.sh": "every shipped comparison (E3, E4, spaced, NASA x several setups and seeds): "
                               "minutes; the scenarios ctest runs a compare of each kind",
}
INPUTS = ["--scenario", "--workload", "--swf", "--openb-pods", "--measured", "--cluster", "--platform", "--data"]
CLIENT_RETRY_S = 20


def commands(path):
    """(line number, command) of every line of the file's fenced code blocks but YAML/Python/text
    ones, with the number of the block it is in: [(block, line, command)]."""
    out, fence, current, block = [], None, None, 0
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("```"):
                fence = None if fence is not None else line[3:].strip()
                block += 1
                continue
            if fence is None or fence not in ("", "sh", "bash", "console"):
                continue
            text = re.sub(r"\s+#.*$", "", line).strip()
            if current is not None:
                current = (current[0], current[1] + " " + text.rstrip("\\").strip())
                if not text.endswith("\\"):
                    out.append((block, *current))
                    current = None
            elif text:
                if text.endswith("\\"):
                    current = (n, text.rstrip("\\").strip())
                else:
                    out.append((block, n, text))
    return out


def expand_braces(words):
    """`x_{0..2}_y` -> x_0_y x_1_y x_2_y, as bash does."""
    out = []
    for w in words:
        m = re.search(r"\{(\d+)\.\.(\d+)\}", w)
        out += [w[:m.start()] + str(i) + w[m.end():] for i in range(int(m.group(1)), int(m.group(2)) + 1)] if m else [w]
    return out


def golden_runs():
    """{(args...): name} of tests/scenarios.txt: the whole runs the scenarios ctest runs (twice,
    against their golden outputs), with the repository's paths as the pages write them."""
    runs = {}
    with open(os.path.join(ROOT, "tests", "scenarios.txt"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#") and "|" in line:
                name, args = (part.strip() for part in line.split("|", 1))
                words = args.replace("${ROOT}/", "").replace("${DATA}", "data").split()
                runs[tuple(words if words[0] == "compare" else ["run", *words])] = name
    return runs


GOLDEN = golden_runs()


def without_out(argv):
    """argv without its --out/-o/--output FILE."""
    dropped = {i + d for i, a in enumerate(argv) if a in ("--out", "-o", "--output") for d in (0, 1)}
    return tuple(a for i, a in enumerate(argv) if i not in dropped)


def registered_tests():
    names = set()
    for path in [os.path.join(ROOT, "CMakeLists.txt")] + glob.glob(os.path.join(ROOT, "cmake", "*.cmake")):
        with open(path, encoding="utf-8") as f:
            names.update(re.findall(r"add_test\(NAME (\w+)", f.read()))
    return names


class Page:
    """One page's commands: where their outputs went, the servers and schedulers of a block."""

    def __init__(self, kubesim, tmp, peers_work):
        self.kubesim, self.tmp, self.peers_work = kubesim, tmp, peers_work
        self.paths = {}  # a path the page names -> its folder under tmp
        self.servers = []  # (Popen, out folder, where)
        self.schedulers = []  # (Popen, kubeconfig, where)

    def place(self, path):
        if path not in self.paths:
            self.paths[path] = os.path.join(self.tmp, f"out-{len(self.paths)}")
        return self.paths[path]

    def mapped(self, word):
        """A word naming a path the page wrote (or a file under it): the same under tmp."""
        for path in sorted(self.paths, key=len, reverse=True):
            if word == path or word.startswith(path.rstrip("/") + "/"):
                return self.paths[path] + word[len(path):]
        return word

    def adapt(self, argv):
        """kubesim's arguments with the outputs redirected (see the module's comment)."""
        out, explicit, i = [], None, 0
        sub = argv[:2] if argv[:2] == ["sweep", "merge"] else argv[:1]
        while i < len(argv):
            a = argv[i]
            if a in ("--out", "-o", "--output") and i + 1 < len(argv):
                explicit = argv[i + 1]
                i += 2
                continue
            if a in ("--port", "--kubeconfig") and argv[0] == "serve":
                i += 2
                continue
            if a == "--report" and i + 1 < len(argv):
                out += [a, self.place(argv[i + 1])]
                i += 2
                continue
            out.append(self.mapped(a))
            i += 1
        if sub == ["sweep", "merge"] or argv[0] in ("man", "completion", "version"):
            return out + (["--out", self.place(explicit)] if explicit else [])
        if explicit is None:
            given = [argv[argv.index(o) + 1] for o in INPUTS if o in argv[:-1]]
            if argv[0] == "sweep" and len(argv) > 1:
                given = [argv[1]]  # the plan
            explicit = f"results/{argv[0]}" + (f"/{os.path.splitext(os.path.basename(given[0]))[0]}" if given else "")
        out += ["--out", self.place(explicit)]
        if argv[0] == "serve":
            out += ["--port", "0"]
        return out + (["--quiet"] if argv[0] not in ("calibrate", "convert") else [])

    def run_kubesim(self, argv, where):
        adapted = self.adapt(argv)
        if argv[0] == "serve":
            out = adapted[adapted.index("--out") + 1]
            proc = subprocess.Popen([self.kubesim, *adapted], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            kubeconfig = os.path.join(out, "kubesim.kubeconfig")
            deadline = time.monotonic() + 30
            while not os.path.exists(kubeconfig) and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            self.servers.append((proc, out, where))
            return None if os.path.exists(kubeconfig) else f"no kubeconfig within 30 s (exit {proc.poll()})"
        live = "--kubeconfig" in argv  # calibrate from a served cluster: it may still be filling
        return self.run([self.kubesim, *adapted], live)

    def run(self, cmd, live):
        deadline = time.monotonic() + (CLIENT_RETRY_S if live else 0)
        while True:
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
            if r.returncode == 0:
                return None
            if time.monotonic() >= deadline:
                return f"exit {r.returncode}: {(r.stderr or r.stdout).strip()[:300]}"
            time.sleep(0.5)

    def run_kubectl(self, words):
        if not shutil.which(words[0]):
            print(f"SKIP {' '.join(words)}: {words[0]} is not installed")
            return None
        return self.run([self.mapped(w) for w in words], live=True)

    def start_kube_scheduler(self, words, where):
        binary = real_kube_scheduler(ROOT, "-", self.peers_work, "the real kube-scheduler of " + where)
        if binary is None:
            return None
        args = [self.mapped(w) for w in words[1:]]
        kubeconfig = args[args.index("--kubeconfig") + 1]
        log = open(os.path.join(self.tmp, f"kube-scheduler-{len(self.schedulers)}.log"), "w")
        proc = subprocess.Popen([binary, *args], stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self.schedulers.append((proc, kubeconfig, where))
        return None

    def end_block(self):
        """Checks the block's background commands, then stops them; returns their errors."""
        errors = []
        for proc, kubeconfig, where in self.schedulers:
            bound = wait_for_binding(kubeconfig, 30)
            if not bound:
                errors.append(f"{where}: the real kube-scheduler bound no pod within 30 s (exit {proc.poll()})")
            else:
                print(f"[ok] {where}: the real kube-scheduler bound {bound}")
        for proc, out, where in self.servers:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
            try:
                _, err = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
            if proc.returncode != 0 or not os.path.exists(os.path.join(out, "jobs.csv")):
                errors.append(f"{where}: serve ended with exit {proc.returncode}, jobs.csv "
                              f"{'written' if os.path.exists(os.path.join(out, 'jobs.csv')) else 'missing'}: "
                              f"{err.strip()[-300:]}")
        for proc, _, _ in self.schedulers:
            stop(proc)
        self.servers, self.schedulers = [], []
        return errors


def wait_for_binding(kubeconfig, seconds):
    """The name of a pod with a node, read from the served API, within `seconds`; else None."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(kubeconfig) as f:
                server = re.search(r"server: (\S+)", f.read()).group(1)
            token = re.search(r"token: (\S+)", open(kubeconfig).read())
            request = urllib.request.Request(server + "/api/v1/pods", headers=(
                {"Authorization": "Bearer " + token.group(1)} if token else {}))
            with urllib.request.urlopen(request, timeout=5) as r:
                for pod in json.load(r).get("items", []):
                    if pod.get("spec", {}).get("nodeName"):
                        return pod["metadata"]["name"]
        except (OSError, ValueError, AttributeError):
            pass
        time.sleep(0.5)
    return None


def one_command(page, words, command, tests, ci_runs_tests, where):
    """The error of one command, or None when it ran (or its test is registered)."""
    if words[0] in ("kubesim", "build/kubesim") and command not in COVERED and command not in BY_HAND:
        golden = GOLDEN.get(without_out(words[1:]))
        if golden:  # the scenarios ctest runs exactly this (twice, against its golden outputs)
            page.place(dict(zip(words, words[1:])).get("--out", ""))
            print(f"covered {where}: the scenarios ctest runs it (golden {golden})")
            return None
        return page.run_kubesim(words[1:], where)
    if words[0] == "kubectl":
        return page.run_kubectl(words)
    if words[0] == "build/peers/kube-scheduler":
        return page.start_kube_scheduler(words, where)
    if command == "scripts/test.sh":
        return None if ci_runs_tests else ".ci/run does not exec scripts/test.sh"
    if command in COVERED:
        return None if COVERED[command] in tests else f"ctest {COVERED[command]} is not registered"
    if command in BY_HAND:
        print(f"SKIP {where}: run by hand ({BY_HAND[command]})")
        return None
    return "run by no test (run it in tests/docs/readme_commands_test.py or add it to COVERED)"


def broken_links(path):
    """The README's relative links (and images) whose file does not exist."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        file = target.split("#", 1)[0]
        if file and "://" not in target and not os.path.exists(os.path.join(ROOT, os.path.dirname(path), file)):
            bad.append(f"{path}: links to {target}, which does not exist")
    return bad


def main():
    kubesim = os.path.abspath(sys.argv[1])
    tests = registered_tests()
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci_runs_tests = re.search(r"^exec scripts/test\.sh", f.read(), re.M) is not None
    peers_work = os.path.join(os.path.dirname(kubesim), "peers")  # where ctest real_kube_scheduler unpacks
    passed, failures = 0, []
    with tempfile.TemporaryDirectory(prefix="kubesim-readme-") as tmp:
        for page_path in PAGES:
            page = Page(kubesim, os.path.join(tmp, page_path.replace("/", "_")), peers_work)
            os.makedirs(page.tmp)
            block = None
            for b, n, command in commands(page_path) + [(None, 0, "")]:
                if b != block:
                    failures += [f"{page_path}: {e}" for e in page.end_block()]
                    block = b
                if not command:
                    continue
                where = f"{page_path}:{n}"
                t0 = time.monotonic()
                words = expand_braces(shlex.split(command.rstrip("&").strip()))
                error = one_command(page, words, command, tests, ci_runs_tests, where)
                print(f"[{error or 'ok'}] {where}: {command} ({time.monotonic() - t0:.1f} s)")
                if error:
                    failures.append(f"{where}: {command}: {error}")
                else:
                    passed += 1
    links = broken_links("README.md")
    return summary("readme_commands", passed + (not links), failures + links)


if __name__ == "__main__":
    sys.exit(main())
