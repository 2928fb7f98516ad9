"""Builds the kubesim Python package's native module with the repository's CMake build
(pyproject.toml says how to install). The module is built for the interpreter running pip
(a virtual environment's included); the CMake build folder is build/python-package/ under the
repository, so a second install reuses it. KUBESIM_CMAKE_ARGS adds CMake arguments;
KUBESIM_BUILD_JOBS sets the parallel jobs (default 2); KUBESIM_PREBUILT_MODULE=PATH installs that
already built _kubesim module instead of building one (it must be for the same interpreter)."""
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target_dir = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        prebuilt = os.environ.get("KUBESIM_PREBUILT_MODULE")
        if prebuilt:  # the CMake build's own module for this interpreter (tests/install/pip_venv_test.py)
            os.makedirs(target_dir, exist_ok=True)
            shutil.copy2(prebuilt, os.path.join(target_dir, os.path.basename(self.get_ext_filename(ext.name))))
            return
        build = os.path.join(ROOT, "build", "python-package", "py%d%d" % sys.version_info[:2])
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
                               "-DKUBESIM_BUILD_TESTS=OFF", "-DKUBESIM_BUILD_BENCH=OFF",
                               "-DPython_EXECUTABLE=" + sys.executable,
                               *shlex.split(os.environ.get("KUBESIM_CMAKE_ARGS", ""))])
        subprocess.check_call(["cmake", "--build", build, "--target", "_kubesim", "-j",
                               os.environ.get("KUBESIM_BUILD_JOBS", "2")])
        built = os.path.join(build, "python", "kubesim", os.path.basename(self.get_ext_filename(ext.name)))
        if not os.path.exists(built):
            sys.exit("kubesim: CMake did not build %s (is pybind11-dev installed?)" % built)
        os.makedirs(target_dir, exist_ok=True)
        shutil.copy2(built, target_dir)


setup(
    packages=["kubesim"],
    package_dir={"kubesim": "python/kubesim"},
    ext_modules=[Extension("kubesim._kubesim", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
