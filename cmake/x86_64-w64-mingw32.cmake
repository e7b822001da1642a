# Toolchain file: 64-bit Windows with Debian's MinGW-w64 (gcc-mingw-w64-x86-64,
# win32 threads), against the static libraries ci/build-static-deps
# x86_64-w64-mingw32 builds into LEFTOVER_MINGW_DEPS and zlib from
# libz-mingw-w64-dev. Programs run under Wine.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_CROSSCOMPILING_EMULATOR wine)

if(NOT LEFTOVER_MINGW_DEPS)
  message(FATAL_ERROR "LEFTOVER_MINGW_DEPS: the prefix of ci/build-static-deps x86_64-w64-mingw32")
endif()
# try_compile projects get the prefix too
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES LEFTOVER_MINGW_DEPS)

set(CMAKE_FIND_ROOT_PATH ${LEFTOVER_MINGW_DEPS} /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads the prefix's .pc files (absolute paths) and zlib's, never
# this machine's.
set(ENV{PKG_CONFIG_LIBDIR}
    ${LEFTOVER_MINGW_DEPS}/lib/pkgconfig:/usr/x86_64-w64-mingw32/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# Every library static, the compiler's own too: a program is one .exe that
# needs only the DLLs Windows has.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
