# LeftoverConfig.cmake - run `leftover` from a CMake project (issue 4).
#
# Installed as a package (find_package(Leftover)) or included straight from
# a source checkout (include(path/to/leftover/cmake/LeftoverConfig.cmake)).
# It provides:
#
#   leftover_add_audit(<name> [BUILD_DIR <dir>] [CLEAN]
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
  cmake_parse_arguments(PARSE_ARGV 1 arg "CLEAN" "BUILD_DIR;FAIL_ON" "ARGS")
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
  add_custom_target(${name} COMMAND ${cmd} VERBATIM USES_TERMINAL
                    COMMENT "leftover: auditing ${arg_BUILD_DIR}")
  add_test(NAME ${name} COMMAND ${cmd})
  set_tests_properties(${name} PROPERTIES FIXTURES_SETUP ${name} LABELS leftover)
endfunction()
