#!/usr/bin/env python3
"""The documentation site builds and every page of it opens without a broken link or image:
  1. scripts/docs.sh writes the subcommand reference from the binary and runs
     `mkdocs build --strict` (any warning, e.g. a link to a missing page, fails) into a
     temporary folder;
  2. the built site is served on 127.0.0.1 and one headless Chromium opens every page of it
     (a checker page fetches each and parses it with the browser's DOMParser: no page scripts
     or layout, which kept the test at about 14 s on a loaded 2-core machine where iframes
     took 40 s): every image of a page must load in the browser (natural width > 0), every
     link to the site must answer 200, and every #anchor must name an element of its target
     page. Links to other sites are not followed (CI is offline).
Skipped (exit 77, one line) when mkdocs, the Material theme or Chromium is not installed.

Usage: site_test.py KUBESIM_BINARY"""
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from checks import summary  # noqa: E402  tests/checks.py

CHECKER = """<!doctype html><meta charset="utf-8"><title>site check</title><body><script>
const pages = %s;
const problems = [];
let links = 0, images = 0;
const docs = new Map();  // page URL without its #anchor -> its parsed Document, or null
function load(url) {
  if (!docs.has(url))
    docs.set(url, fetch(url).then(r => r.ok ? r.text().then(t => new DOMParser().parseFromString(t, "text/html")) : null)
                            .catch(() => null));
  return docs.get(url);
}
function image_loads(src) {
  return new Promise(done => { const img = new Image(); img.onload = () => done(img.naturalWidth > 0); img.onerror = () => done(false); img.src = src; });
}
async function check(page) {
  const doc = await load(page);
  if (!doc) { problems.push(page + ": does not open"); return; }
  const base = new URL(page, location.href);
  for (const img of doc.querySelectorAll("img[src]")) {
    images++;
    if (!(await image_loads(new URL(img.getAttribute("src"), base).href))) problems.push(page + ": broken image " + img.getAttribute("src"));
  }
  for (const a of doc.querySelectorAll("a[href]")) {
    const url = new URL(a.getAttribute("href"), base);
    if (url.origin !== location.origin) continue;
    links++;
    const target = await load(url.origin + url.pathname + url.search);
    if (!target) { problems.push(page + ": broken link " + a.getAttribute("href")); continue; }
    const id = decodeURIComponent(url.hash.slice(1));
    if (id && !target.getElementById(id)) problems.push(page + ": no anchor for " + a.getAttribute("href"));
  }
}
(async () => {
  for (const page of pages) await check(page);
  return {pages: pages.length, links, images, problems};
})().catch(e => ({error: String(e)}))
   .then(result => fetch("/__result", {method: "POST", body: JSON.stringify(result)}));
</script>"""


def find(names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def serve(site, results):
    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(204)
            self.end_headers()
            results.append(json.loads(body))
            done.set()

    done = threading.Event()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, done


def has_material():
    """mkdocs is installed and its interpreter (the script's #! line) has the Material theme."""
    mkdocs = shutil.which("mkdocs")
    if not mkdocs:
        return False
    with open(mkdocs, encoding="utf-8", errors="replace") as f:
        first = f.readline()
    interpreter = first[2:].split() if first.startswith("#!") else ["python3"]
    probe = "from mkdocs.utils import get_theme_names as t; assert 'material' in t()"
    return subprocess.run(interpreter + ["-c", probe], capture_output=True).returncode == 0


def pages_of(site):
    """Every built page as a URL path from the site's root (mkdocs.yml: use_directory_urls false)."""
    pages = []
    for folder, _, files in os.walk(site):
        for f in files:
            if f.endswith(".html") and f not in ("404.html", "__check__.html"):
                pages.append("/" + os.path.relpath(os.path.join(folder, f), site).replace(os.sep, "/"))
    return sorted(pages)


def main():
    kubesim = os.path.abspath(sys.argv[1])
    chromium = os.environ.get("KUBESIM_CHROMIUM") or find(["chromium", "chromium-browser", "google-chrome"])
    material = has_material()
    if not material or not chromium:
        print("docs_site: SKIPPED: needs mkdocs, mkdocs-material and chromium (scripts/install-deps.sh)")
        return 77
    with tempfile.TemporaryDirectory(prefix="kubesim-site-") as tmp:
        site = os.path.join(tmp, "site")
        r = subprocess.run(["scripts/docs.sh", site], cwd=ROOT, env=dict(os.environ, KUBESIM=kubesim),
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            return summary("docs_site", 0, [f"scripts/docs.sh (mkdocs build --strict) failed:\n{r.stdout}{r.stderr}"])
        pages = pages_of(site)
        with open(os.path.join(site, "__check__.html"), "w", encoding="utf-8") as f:
            f.write(CHECKER % json.dumps(pages))
        results = []
        server, done = serve(site, results)
        url = f"http://127.0.0.1:{server.server_address[1]}/__check__.html"
        browser = subprocess.Popen([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                    "--no-first-run", "--remote-debugging-port=0", f"--user-data-dir={tmp}/profile",
                                    "--window-size=1400,900", url],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            finished = done.wait(90)
        finally:
            browser.terminate()
            try:
                browser.wait(10)
            except subprocess.TimeoutExpired:
                browser.kill()
            server.shutdown()
        if not finished:
            return summary("docs_site", 0, ["Chromium did not finish checking the pages within 90 s"])
        result = results[0]
        if "error" in result:
            return summary("docs_site", 0, [f"the checker page failed: {result['error']}"])
        print(f"docs_site: mkdocs build --strict passed; {result['pages']} pages opened in Chromium, "
              f"{result['links']} links to the site and {result['images']} images checked")
        problems = result["problems"]
        return summary("docs_site", 2 if not problems else 1, problems[:50] + ([f"... {len(problems)} problems in all"] if len(problems) > 50 else []))


if __name__ == "__main__":
    sys.exit(main())
