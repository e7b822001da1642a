# LeftoverCPack.cmake - the Debian package: `cpack -G DEB` in a build dir
# (or `cmake --build BUILD --target package`) makes leftover_<ver>_<arch>.deb
# from the install rules; library dependencies are worked out by
# dpkg-shlibdeps from the binary, so they match the Debian release it was
# built on. The package installs under CMAKE_INSTALL_PREFIX, the prefix the
# binary was compiled to read its rules from: configure with
# -DCMAKE_INSTALL_PREFIX=/usr for a package in Debian's own layout.
set(CPACK_PACKAGE_NAME leftover)
set(CPACK_PACKAGE_VENDOR "leftover developers")
set(CPACK_PACKAGE_CONTACT "leftover developers <leftover@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PACKAGE_DESCRIPTION "leftover reads the shared objects and Python extension modules \
of a build tree and says, without loading them, which would not load and which the current \
build no longer produces; leftover clean quarantines them, leftover restore undoes it.")
include(CPack)
