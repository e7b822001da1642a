# Toolchain file: leftover for arm64 with Debian's cross compiler
# (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross,
# libstdc++-12-dev-arm64-cross), against Debian's :arm64
# -dev packages unpacked under LEFTOVER_CROSS_ROOT, not installed (ci/cross-build
# makes the root and says why). The program finds its libraries there at run
# time through its RUNPATH; tests run under qemu-aarch64-static.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)

if(NOT LEFTOVER_CROSS_ROOT)
  message(FATAL_ERROR "LEFTOVER_CROSS_ROOT: the unpacked :arm64 packages (ci/cross-build aarch64)")
endif()
# try_compile projects get the root too
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES LEFTOVER_CROSS_ROOT)

set(CMAKE_FIND_ROOT_PATH ${LEFTOVER_CROSS_ROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads the root's .pc files and prefixes their paths with it;
# /usr/include is not a system directory of this compiler's, so keep its -I.
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${LEFTOVER_CROSS_ROOT})
set(ENV{PKG_CONFIG_LIBDIR}
    ${LEFTOVER_CROSS_ROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${LEFTOVER_CROSS_ROOT}/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_SYSTEM_INCLUDE_PATH} /nonexistent)
set(ENV{PKG_CONFIG_SYSTEM_LIBRARY_PATH} /nonexistent)

# The libraries' own needs are found in the root when linking; CMake gives
# the program a build RPATH to the root's libraries, which it runs with.
# DT_RPATH, not DT_RUNPATH: the loader searches a RUNPATH for the program's
# own needs only, and libgit2's libssh2, libkrb5... are not on this machine.
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-Wl,--disable-new-dtags -Wl,-rpath-link,${LEFTOVER_CROSS_ROOT}/usr/lib/aarch64-linux-gnu")
