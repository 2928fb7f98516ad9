# `cmake --install` and the Debian package (`cpack -G DEB`, docs/getting-started.md, "Install"): the binaries,
# the Python package, man pages and bash completion generated from the CLI itself, and the
# shipped examples and data (so that a shipped example runs from any folder after install).
include(GNUInstallDirs)

# The generated reference: `kubesim man` and `kubesim completion bash` read the command tree,
# so the pages cannot drift from --help. Regenerated whenever kubesim is rebuilt.
set(KUBESIM_GENERATED_REFERENCE ${CMAKE_BINARY_DIR}/reference)
add_custom_command(
  OUTPUT ${KUBESIM_GENERATED_REFERENCE}/stamp
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${KUBESIM_GENERATED_REFERENCE}/man
  COMMAND $<TARGET_FILE:kubesim> man --out ${KUBESIM_GENERATED_REFERENCE}/man
  COMMAND $<TARGET_FILE:kubesim> completion bash > ${KUBESIM_GENERATED_REFERENCE}/kubesim.bash
  COMMAND ${CMAKE_COMMAND} -E touch ${KUBESIM_GENERATED_REFERENCE}/stamp
  DEPENDS kubesim
  COMMENT "Generating the man pages and bash completion from kubesim's command tree")
add_custom_target(kubesim_reference ALL DEPENDS ${KUBESIM_GENERATED_REFERENCE}/stamp)

install(TARGETS kubesim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET kubesim-timeshim)
  install(TARGETS kubesim-timeshim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})  # found beside kubesim
endif()
install(DIRECTORY ${KUBESIM_GENERATED_REFERENCE}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${KUBESIM_GENERATED_REFERENCE}/kubesim.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME kubesim)
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/examples ${CMAKE_CURRENT_SOURCE_DIR}/data
        DESTINATION ${CMAKE_INSTALL_DATADIR}/kubesim)
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/README.md ${CMAKE_CURRENT_SOURCE_DIR}/ARCHITECTURE.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The documentation as Markdown (the site's sources, pictures included) beside the README, so that
# the README's links (docs/...) resolve in /usr/share/doc/kubesim; the HTML site is built by
# scripts/docs.sh (mkdocs), which a package build does not need. commands.md is the site's
# copy of the man pages (generated, git-ignored): not shipped.
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR}
        PATTERN commands.md EXCLUDE)

# The Python package (python/kubesim and its native module) where the interpreter it was built
# for finds it: Debian's python3 reads /usr/lib/python3/dist-packages (the package's prefix)
# and /usr/local/lib/python3.X/dist-packages (cmake --install's default prefix). Chosen when
# installing, by the prefix of that moment (cpack installs into /usr); a non-empty
# KUBESIM_PYTHON_INSTALL_DIR (relative to the prefix) overrides it.
if(TARGET _kubesim)
  set(KUBESIM_PYTHON_INSTALL_DIR "" CACHE STRING "where cmake --install puts the Python package (relative to the prefix)")
  set(default_python_dir lib/python${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}/dist-packages)
  install(CODE "
    set(KUBESIM_PYTHON_DIR \"${KUBESIM_PYTHON_INSTALL_DIR}\")
    if(NOT KUBESIM_PYTHON_DIR AND CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(KUBESIM_PYTHON_DIR lib/python3/dist-packages)
    elseif(NOT KUBESIM_PYTHON_DIR)
      set(KUBESIM_PYTHON_DIR ${default_python_dir})
    endif()")
  install(TARGETS _kubesim LIBRARY DESTINATION \${KUBESIM_PYTHON_DIR}/kubesim)
  install(FILES ${kubesim_py_files} DESTINATION \${KUBESIM_PYTHON_DIR}/kubesim)
endif()

# The Debian package: `cpack -G DEB` in the build folder (tests/install/package_test.py checks
# it). Depends comes from the shared libraries the binaries actually link (dpkg-shlibdeps).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kubesim)
set(CPACK_PACKAGE_VENDOR "kubesim")
set(CPACK_PACKAGE_CONTACT "kubesim maintainers <kubesim@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "fast, deterministic simulator of Kubernetes clusters for scheduler studies")
set(CPACK_PACKAGE_DESCRIPTION
    "kubesim simulates a Kubernetes cluster (kube-scheduler, Kueue, YuniKorn, Fluxion, batch\n\
schedulers) running a workload, serves the Kubernetes API to real clients, and writes\n\
Batsim-compatible outputs and HTML reports. Includes the Python package (import kubesim).")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-numpy, python3-pandas")
if(TARGET _kubesim)
  # The native module is built for this interpreter's ABI (cpython-3.X).
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "python3 (>= ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}), python3 (<< ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}.99)")
endif()
set(CPACK_STRIP_FILES ON)
include(CPack)

if(KUBESIM_BUILD_TESTS)
  # The .deb on a clean root (dpkg-deb -x; a real dpkg -i where KUBESIM_TEST_DPKG_INSTALL=1, as
  # .ci/run sets on CI's throwaway machine). 77: not a Debian system. The dpkg lock is shared
  # with the oracle tests' apt-get.
  add_test(NAME package_deb COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/tests/install/package_test.py ${CMAKE_BINARY_DIR})
  set_tests_properties(package_deb PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 240 RESOURCE_LOCK batsim_peer)
  if(TARGET _kubesim)
    # `pip install .` into a fresh venv (offline; the module the build made, so seconds).
    add_test(NAME pip_venv COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/tests/install/pip_venv_test.py
             ${Python_EXECUTABLE} ${CMAKE_BINARY_DIR})
    set_tests_properties(pip_venv PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
  endif()
endif()
