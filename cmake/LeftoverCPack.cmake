# LeftoverCPack.cmake - the Debian package: `cpack -G DEB` in a build dir
# (or `cmake --build BUILD --target package`) makes leftover_<ver>_<arch>.deb
# from the install rules, in Debian's layout: everything under /usr (policy
# keeps packages out of /usr/local), stripped, with the copyright file and a
# compressed changelog and man page that lintian asks for; library
# dependencies are worked out by dpkg-shlibdeps from the binary, so they
# match the Debian release it was built on. The program finds its rules
# next to itself (bin/../share/leftover/rules), so the same build also
# works from `cmake --install` under another prefix.
set(LEFTOVER_DEB_MAINTAINER "leftover maintainers <maintainers@leftover.invalid>" CACHE STRING
    "the Maintainer field of the .deb (Name <address>)")

set(CPACK_PACKAGE_NAME leftover)
set(CPACK_PACKAGE_VENDOR "leftover developers")
set(CPACK_PACKAGE_CONTACT "${LEFTOVER_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${PROJECT_HOMEPAGE_URL}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# the pytest plugin is a Python module (python/); the libraries come from shlibdeps
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3:any")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_PACKAGE_DESCRIPTION "leftover reads the shared objects and Python extension modules
of a build tree and says, without loading them, which would not load and
which the current build no longer produces; leftover clean quarantines
them, leftover restore undoes it.")

# Debian's docs: copyright, and changelog and man page compressed with gzip -9n
set(_leftover_doc ${PROJECT_BINARY_DIR}/deb-doc)
file(MAKE_DIRECTORY ${_leftover_doc})
foreach(_f changelog leftover.1)
  execute_process(COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/docs/${_f}
                  OUTPUT_FILE ${_leftover_doc}/${_f}.gz COMMAND_ERROR_IS_FATAL ANY)
endforeach()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/docs/changelog ${PROJECT_SOURCE_DIR}/docs/leftover.1)
install(FILES ${PROJECT_SOURCE_DIR}/docs/copyright ${_leftover_doc}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${_leftover_doc}/leftover.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
unset(_leftover_doc)
include(CPack)
