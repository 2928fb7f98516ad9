// The `_kubesim` extension module of the kubesim Python package (its contents: kubesim_module.cpp).
#include "bindings.hpp"

PYBIND11_MODULE(_kubesim, m) { kubesim::define_module(m); }
