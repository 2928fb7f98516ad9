#!/usr/bin/env bash
# Installs the Debian packages kubesim builds with, if any is missing (needs root or sudo).
set -euo pipefail
packages=(g++ cmake ninja-build ccache pkg-config nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libpugixml-dev
          libcpp-httplib-dev libssl-dev libzmq3-dev python3-zmq libgtest-dev libgmock-dev libbenchmark-dev python3
          chromium            # headless rendering test of the HTML report
          python3-kubernetes  # the API tests drive `kubesim serve` with the official Python client
          kubectl             # ... and with kubectl
          python3-scipy python3-pandas  # the BSP performance model is checked against SciPy's RectBivariateSpline
          pybind11-dev python3-pybind11 python3-dev  # the kubesim Python package (python/)
          slurm-wlm munge)    # the sweep's Slurm test runs slurmctld, slurmd and munged on localhost
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
