"""The build backend of `pip install .` (pyproject.toml): setuptools' own when the `wheel`
package is importable (a venv with --system-site-packages sees Debian's python3-wheel);
otherwise, as in a plain venv, which has setuptools but not wheel and cannot fetch it
offline, it builds with setup.py (`build`: the package and the CMake-built module) and writes
the wheel itself (PEP 427: the files, and a .dist-info with METADATA, WHEEL and RECORD)."""
import base64
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

from setuptools import build_meta as _setuptools

NAME, VERSION = "kubesim", "0.1.0"
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _has_wheel():
    try:
        import wheel  # noqa: F401
        return True
    except ImportError:
        return False


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_sdist(sdist_directory, config_settings=None):
    return _setuptools.build_sdist(sdist_directory, config_settings)


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def _metadata():
    """METADATA of the package as setuptools derives it from pyproject.toml (requires-python,
    dependencies, extras), from `setup.py egg_info`, which needs neither `wheel` nor a build."""
    with tempfile.TemporaryDirectory() as base:
        subprocess.check_call([sys.executable, "setup.py", "-q", "egg_info", "--egg-base", base], cwd=ROOT)
        info = os.path.join(base, NAME + ".egg-info")
        with open(os.path.join(info, "PKG-INFO"), "rb") as f:
            metadata = f.read()
        # setuptools 66 (Debian 12) lists the requirements in requires.txt only: "[extra]" sections.
        extra, requires = None, []
        if os.path.exists(os.path.join(info, "requires.txt")):
            for line in open(os.path.join(info, "requires.txt")).read().splitlines():
                if line.startswith("["):
                    extra = line.strip("[]")
                elif line.strip():
                    requires.append("Requires-Dist: " + line.strip() + ("; extra == \"%s\"" % extra if extra else ""))
        head, sep, body = metadata.partition(b"\n\n")
        if requires and b"Requires-Dist:" not in head:
            head += ("\n" + "\n".join(requires)).encode()
        return head + sep + body


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """PEP 517's optional hook: without it pip builds the whole wheel (the CMake build) only to
    read the metadata."""
    if _has_wheel():
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)
    info = "%s-%s.dist-info" % (NAME, VERSION)
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "wb") as f:
        f.write(_metadata())
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    if _has_wheel():
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    tag = "cp%d%d" % sys.version_info[:2]
    platform = "linux_" + os.uname().machine
    with tempfile.TemporaryDirectory() as lib:
        subprocess.check_call([sys.executable, "setup.py", "-q", "build", "--build-lib", lib], cwd=ROOT)
        name = "%s-%s-%s-%s-%s.whl" % (NAME, VERSION, tag, tag, platform)
        info = "%s-%s.dist-info" % (NAME, VERSION)
        files = {}
        for folder, _, names in os.walk(lib):
            for n in sorted(names):
                full = os.path.join(folder, n)
                with open(full, "rb") as f:
                    files[os.path.relpath(full, lib)] = f.read()
        files[info + "/METADATA"] = _metadata()
        files[info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: kubesim_backend\nRoot-Is-Purelib: false\n"
                                  "Tag: %s-%s-%s\n" % (tag, tag, platform)).encode()
        record = [_record_line(p, d) for p, d in sorted(files.items())] + [info + "/RECORD,,"]
        files[info + "/RECORD"] = ("\n".join(record) + "\n").encode()
        with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
            for path, data in sorted(files.items()):
                z.writestr(path, data)
    return name
