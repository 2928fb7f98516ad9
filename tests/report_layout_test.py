#!/usr/bin/env python3
"""The reports as a person sees them: report.html (a Batsim-style run), compare.html,
sweep.html, calibrate's report and fidelity.html open in headless Chromium at 1400 px width, and
nothing in them is clipped: no chart title, legend entry, row label or axis text runs off its
SVG, no text is cut with an ellipsis, no heading, cell or headline overflows its box, no table
is wider than the page. Each page opens with its headline (the answering sentence) and a chart
within the first screen (1400 x 900).

Chromium is a test dependency (scripts/install-deps.sh); KUBESIM_CHROMIUM overrides its path.
With --screens DIR, the first screen (1400 x 900) of each report is saved there as PNG.

Usage: report_layout_test.py KUBESIM [--screens DIR]"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data", "batkube")

# Run in the page once it has laid out: every problem as a line of text, written into the DOM
# (read back with --dump-dom).
CHECK_JS = r"""
<script>
window.addEventListener('load', () => {
  const problems = [];
  const name = (e) => (e.textContent || '').trim().slice(0, 60);
  for (const svg of document.querySelectorAll('svg')) {
    const box = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        problems.push('svg#' + svg.id + ': text runs off the chart: "' + name(t) + '"');
      if ((t.textContent || '').includes('\u2026'))
        problems.push('svg#' + svg.id + ': text cut with an ellipsis: "' + name(t) + '"');
    }
  }
  for (const e of document.querySelectorAll('h1, h2, h3, th, td, figcaption, p.answer, li')) {
    if (e.scrollWidth > e.clientWidth + 1)
      problems.push(e.tagName.toLowerCase() + ' overflows its box: "' + name(e) + '"');
  }
  // A table wider than the page hides columns behind a scrollbar (or past the window).
  const page = document.body.getBoundingClientRect();
  for (const t of document.querySelectorAll('table')) {
    if (t.getBoundingClientRect().right > page.right + 1)
      problems.push('table wider than the page: "' + name(t.querySelector('tr') || t) + '"');
  }
  const answer = document.querySelector('p.answer');
  if (!answer) problems.push('no headline (p.answer)');
  else if (answer.getBoundingClientRect().bottom > 900) problems.push('the headline is below the first screen');
  const chart = document.querySelector('svg');
  if (!chart) problems.push('no chart (svg)');
  else if (chart.getBoundingClientRect().top + 0.5 * chart.getBoundingClientRect().height > 900)
    problems.push('no chart in the first screen (the first chart is mostly below it)');
  const out = document.createElement('pre');
  out.id = 'layout-problems';
  out.textContent = JSON.stringify(problems);
  document.body.appendChild(out);
});
</script>
"""


def chromium():
    path = os.environ.get("KUBESIM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        sys.exit("report_layout: headless Chromium is required (apt-get install chromium, or set KUBESIM_CHROMIUM)")
    return path


def browse(browser, profile, args, url):
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--hide-scrollbars", "--user-data-dir=" + profile, "--window-size=1400,900", *args, url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def kubesim(binary, args, quiet=True):
    r = subprocess.run([binary, *args, *(["--quiet"] if quiet else [])], capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        sys.exit(f"report_layout: kubesim {' '.join(args)} failed: {r.stderr.strip()[:500]}")


def main():
    binary = os.path.abspath(sys.argv[1])
    screens = sys.argv[sys.argv.index("--screens") + 1] if "--screens" in sys.argv else None
    browser = chromium()
    failures = []
    with tempfile.TemporaryDirectory(prefix="kubesim-layout-") as tmp:
        batsim = ["--platform", os.path.join(DATA, "platform_graphene_16nodes.xml"),
                  "--workload", os.path.join(DATA, "spaced_200_delay170.json")]
        kubesim(binary, ["run", *batsim, "--out", os.path.join(tmp, "run")])
        kubesim(binary, ["compare", *batsim, "--schedulers", "default-scheduler,fcfs,easy-backfill", "--seeds", "2",
                         "--out", os.path.join(tmp, "compare")])
        kubesim(binary, ["sweep", os.path.join(ROOT, "examples", "sweep", "e3-schedulers.yaml"),
                         "--out", os.path.join(tmp, "sweep")])
        measured = [os.path.join(DATA, "real-k3s", f"200_delay170_{i}_jobs.csv") for i in (1, 2)]
        kubesim(binary, ["calibrate", "--workload", os.path.join(DATA, "200_delay170.json"), "--measured", *measured,
                         "--out", os.path.join(tmp, "k3s.yaml"), "--report", os.path.join(tmp, "calibrate.html")], quiet=False)
        kubesim(binary, ["fidelity", "--platform", os.path.join(DATA, "platform_graphene_16nodes.xml"),
                         "--workload", os.path.join(DATA, "200_delay170.json"), "--measured", measured[0],
                         "--model", "k3s-batkube", "--seeds", "1", "--out", os.path.join(tmp, "fidelity")])
        pages = [("report", os.path.join(tmp, "run", "report.html")),
                 ("compare", os.path.join(tmp, "compare", "compare.html")),
                 ("sweep", os.path.join(tmp, "sweep", "sweep.html")),
                 ("calibrate", os.path.join(tmp, "calibrate.html")),
                 ("fidelity", os.path.join(tmp, "fidelity", "fidelity.html"))]
        for name, page in pages:
            with open(page, encoding="utf-8") as f:
                html = f.read()
            checked = page[:-5] + ".layout.html"
            with open(checked, "w", encoding="utf-8") as f:
                f.write(html.replace("</body>", CHECK_JS + "</body>"))
            r = browse(browser, os.path.join(tmp, "profile"), ["--dump-dom", "--virtual-time-budget=2000"],
                       "file://" + checked)
            m = re.search(r'<pre id="layout-problems">(.*?)</pre>', r.stdout, re.S)
            if not m:
                failures.append(f"{name}: Chromium did not run the layout check ({r.returncode}): {r.stderr[-300:]}")
                continue
            problems = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
                                  .replace("&gt;", ">"))
            failures += [f"{name}.html: {p}" for p in problems]
            if screens:
                os.makedirs(screens, exist_ok=True)
                browse(browser, os.path.join(tmp, "profile"), ["--screenshot=" + os.path.join(screens, name + ".png")],
                       "file://" + page)
    for f in failures:
        print("FAIL", f)
    print(f"report_layout: {len(pages)} pages checked at 1400 px, {len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
