# LeftoverConfig.cmake - run `leftover` from a CMake project (issue 4).
#
# Installed as a package (find_package(Leftover)) or included straight from
# a source checkout (include(path/to/leftover/cmake/LeftoverConfig.cmake)).
# It provides:
#
#   leftover_add_audit(<name> [ALL] [BUILD_DIR <dir>] [CLEAN]
#                      [FAIL_ON broken|stale|never] [ARGS <leftover options>...])
#
# which adds a custom target <name> and a ctest test <name> registered as the
# FIXTURES_SETUP fixture <name>: give your tests
#   set_tests_properties(mytest PROPERTIES FIXTURES_REQUIRED <name>)
# and plain `ctest` (or `ctest -R mytest`) runs the audit first. With CLEAN
# the audit is `leftover clean` (stale artifacts go to the quarantine, undone
# by `leftover restore <dir>`); without it, a dry run that changes nothing.
# FAIL_ON says what left in the tree fails the audit: broken (a file that
# would not load), stale (that, or a stale file) or never; by default the
# rules' [fail] on decides (stale unless a rule file says otherwise).
# BUILD_DIR defaults to the top of the build tree. ARGS go to leftover as
# they are (--broken, --python, --rules, ...).
#
# With ALL the target is part of the default build and comes after every
# other target of the project, so `cmake --build` ends with the audit: at
# the end of the top directory's configure step (a deferred call, CMake
# 3.19), the target is made to depend on every target of every directory,
# however late it was added, except those left out of `all` (EXCLUDE_FROM_ALL)
# and other audits. The build's audit is quiet when there is nothing to say
# and lists each file it moves; it fails the build only as FAIL_ON says
# (never without FAIL_ON; the ctest test keeps the rules' default).
#
# The program is LEFTOVER_EXECUTABLE: set it to choose; else the `leftover`
# target when this is leftover's own build, else the program installed next
# to this package, else `leftover` on PATH.

cmake_minimum_required(VERSION 3.18)

if(NOT LEFTOVER_EXECUTABLE AND NOT TARGET leftover)
  # an installed package: <prefix>/share/cmake/Leftover/ -> <prefix>/bin
  get_filename_component(_leftover_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
  find_program(LEFTOVER_EXECUTABLE leftover HINTS "${_leftover_prefix}/bin"
               DOC "the leftover program run by leftover_add_audit()")
  unset(_leftover_prefix)
endif()

function(leftover_add_audit name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "ALL;CLEAN" "BUILD_DIR;FAIL_ON" "ARGS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "leftover_add_audit(${name}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_BUILD_DIR)
    set(arg_BUILD_DIR "${CMAKE_BINARY_DIR}")
  endif()
  if(DEFINED arg_FAIL_ON AND NOT arg_FAIL_ON MATCHES "^(broken|stale|never)$")
    message(FATAL_ERROR "leftover_add_audit(${name}): FAIL_ON must be broken, stale or never, "
                        "not '${arg_FAIL_ON}'")
  endif()
  if(LEFTOVER_EXECUTABLE)
    set(exe "${LEFTOVER_EXECUTABLE}")
  elseif(TARGET leftover)
    set(exe "$<TARGET_FILE:leftover>")
  else()
    message(FATAL_ERROR "leftover_add_audit(${name}): the leftover program was not found; "
                        "set LEFTOVER_EXECUTABLE")
  endif()
  # --wait: a target and its test may run at once (ctest -j, a second shell)
  set(cmd "${exe}" clean --wait ${arg_ARGS})
  if(DEFINED arg_FAIL_ON)
    list(APPEND cmd --fail-on ${arg_FAIL_ON})
  endif()
  if(NOT arg_CLEAN)
    list(APPEND cmd --dry-run)
  endif()
  list(APPEND cmd "${arg_BUILD_DIR}")
  if(arg_ALL)
    if(CMAKE_VERSION VERSION_LESS 3.19)
      message(FATAL_ERROR "leftover_add_audit(${name} ALL) needs CMake 3.19 (cmake_language(DEFER))")
    endif()
    # quiet unless something moved or is left; fails the build only by FAIL_ON
    set(build_cmd "${exe}" clean --wait --quiet --verbose ${arg_ARGS})
    if(DEFINED arg_FAIL_ON)
      list(APPEND build_cmd --fail-on ${arg_FAIL_ON})
    else()
      list(APPEND build_cmd --fail-on never)
    endif()
    if(NOT arg_CLEAN)
      list(APPEND build_cmd --dry-run)
    endif()
    list(APPEND build_cmd "${arg_BUILD_DIR}")
    # the comment is the build tool's one line for the step (Ninja would
    # show the whole command line instead); leftover itself says nothing
    # unless it moved or left something
    add_custom_target(${name} ALL COMMAND ${build_cmd} VERBATIM USES_TERMINAL
                      COMMENT "${name}: checking for stale files")
    set_property(TARGET ${name} PROPERTY LEFTOVER_AUDIT ON)
    # EVAL CODE: the deferred call gets the name as it is now
    cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL _leftover_audit_after_all [[${name}]] [[${CMAKE_SOURCE_DIR}]])")
  else()
    add_custom_target(${name} COMMAND ${cmd} VERBATIM USES_TERMINAL
                      COMMENT "leftover: auditing ${arg_BUILD_DIR}")
    set_property(TARGET ${name} PROPERTY LEFTOVER_AUDIT ON)
  endif()
  add_test(NAME ${name} COMMAND ${cmd})
  set_tests_properties(${name} PROPERTIES FIXTURES_SETUP ${name} LABELS leftover)
endfunction()

# The end of the configure step: make audit <name> depend on every target
# of directory <dir> and below that `all` builds.
function(_leftover_audit_after_all name dir)
  get_property(excluded DIRECTORY "${dir}" PROPERTY EXCLUDE_FROM_ALL)
  if(excluded AND NOT dir STREQUAL CMAKE_SOURCE_DIR)
    return()
  endif()
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    # (not "off" as a name: if() reads OFF as the constant)
    get_target_property(type ${t} TYPE)
    get_target_property(is_audit ${t} LEFTOVER_AUDIT)
    get_target_property(not_in_all ${t} EXCLUDE_FROM_ALL)
    if(NOT type STREQUAL "INTERFACE_LIBRARY" AND NOT is_audit AND NOT not_in_all)
      add_dependencies(${name} ${t})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _leftover_audit_after_all(${name} "${sub}")
  endforeach()
endfunction()
