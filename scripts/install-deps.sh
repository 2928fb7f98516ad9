#!/usr/bin/env bash
# Installs the Debian packages kubesim needs, if any is missing (needs root or sudo).
#   scripts/install-deps.sh              build + test packages (scripts/test.sh, CI)
#   scripts/install-deps.sh --build-only what building kubesim, kubesim-timeshim and the Python
#                                        module needs (scripts/build.sh --no-tests)
#   scripts/install-deps.sh --sanitizer  the build packages and clang (scripts/fuzz.sh)
set -euo pipefail
build=(g++ cmake ninja-build ccache pkg-config python3
       nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libpugixml-dev libcpp-httplib-dev libssl-dev libzmq3-dev
       pybind11-dev python3-pybind11 python3-dev)  # the kubesim Python package (python/), also embedded in kubesim
test=(libgtest-dev libgmock-dev     # the unit tests (kubesim_tests)
      libbenchmark-dev              # bench/
      python3-venv                  # pip install . into a virtual environment (tests/install/pip_venv_test.py)
      dpkg-dev                      # cpack's dpkg-shlibdeps: the .deb's Depends (tests/install/package_test.py)
      python3-zmq                   # the Batsim-protocol example's Python scheduler
      chromium                      # headless rendering test of the HTML report, the docs site's link check
      mkdocs mkdocs-material        # the documentation site (scripts/docs.sh, ctest docs_site)
      python3-kubernetes            # the API tests drive `kubesim serve` with the official Python client
      kubectl                       # ... and with kubectl
      python3-scipy python3-pandas  # the BSP performance model is checked against SciPy's RectBivariateSpline
      slurm-wlm munge)              # the sweep's Slurm test runs slurmctld, slurmd and munged on localhost
sanitizer=(clang-14 libclang-rt-14-dev)  # the sanitizer and fuzz builds (scripts/fuzz.sh, scripts/sanitize.sh)
case "${1:-}" in
  --build-only) packages=("${build[@]}") ;;
  --sanitizer) packages=("${build[@]}" "${sanitizer[@]}") ;;
  *) packages=("${build[@]}" "${test[@]}") ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing ${#missing[@]} Debian package(s): ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
