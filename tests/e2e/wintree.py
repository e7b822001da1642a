"""wintree: the Windows trees and the Wine prefix of the tests that judge PE modules.

test_windows.py holds leftover's verdicts against Windows' loader under
Wine, test_windows_exe.py runs leftover.exe itself under Wine: both build
the same MinGW-w64 trees and run Wine the same way.

  PREFIX, PYDIR, TAG, CC64                the build's Wine prefix; python.exe's dir
  wine() -> str                           Wine's 64-bit loader
  wine_env() -> dict                      headless, quiet, in PREFIX
  keep_server(seconds)                    PREFIX made, its server up between Wine runs
  winpath(path) -> str                    the path as Wine's Z: drive names it
  mingw(cc, out, source, *flags)          a DLL from C source text
  setup_python()                          python.exe (the load probe) + python311.dll
  seed_repo(src)                          the two-branch CMake project (git): `main`
                                          builds three modules on capi.dll, `new`
                                          drops two of capi.dll's exports and the
                                          modules that import them
  configure_build(src, build)             CMake + Ninja with the MinGW toolchain
"""
import os
import shutil
import subprocess
from pathlib import Path

import lotest

CC64 = "x86_64-w64-mingw32-gcc"
TAG = ".cp311-win_amd64.pyd"
PYDIR = lotest.WORK / "windows" / "python"   # python.exe (the probe) and its python311.dll
# the build's one prefix (tests/CMakeLists.txt), made by the first test that runs Wine
PREFIX = Path(os.environ.get("LEFTOVER_WINEPREFIX", lotest.WORK / "windows" / "wineprefix"))


def wine():
    for w in ("wine64", "/usr/lib/wine/wine64", "wine"):
        if shutil.which(w) or os.path.exists(w):
            return w
    return lotest.need("wine", "wine")


def wine_env():
    """No display, no debug channels, no Mono or Gecko installer."""
    return {"WINEPREFIX": str(PREFIX), "WINEDEBUG": "-all", "DISPLAY": "",
            "WINEDLLOVERRIDES": "mscoree,mshtml="}


def keep_server(seconds=10):
    """PREFIX made, its wineserver and Wine's own services (winedevice,
    wineboot...) up, outliving each Wine process by `seconds`. Started by a
    run whose output is captured, they would inherit its pipes: the run
    would end only when they exit (the server 3 s after its last client),
    and the next would start them cold again, about 5 s a run instead of 0.1.
    A server already up (maybe with another run's pipes) is waited out
    first: `seconds` is what the next file that does this waits at most."""
    server = shutil.which("wineserver") or lotest.need("wineserver", "wine")
    quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                 stderr=subprocess.DEVNULL, env=dict(os.environ, **wine_env()), timeout=300)
    if subprocess.run([server, "-p%d" % seconds], **quiet).returncode:
        subprocess.run([server, "-w"], **quiet)
        subprocess.run([server, "-p%d" % seconds], **quiet)
    subprocess.run([wine(), "cmd", "/c", "exit"], **quiet)


def winpath(path):
    """Wine's Z: drive is the root of this machine's file system."""
    return "Z:" + str(path).replace("/", "\\")


def mingw(cc, out, source, *flags, cwd=None):
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.parent / (out.name.replace(".", "_") + ".c")
    src.write_text(source)
    lotest.run([cc, "-shared", "-O1", "-o", out, src] + list(flags), cwd=cwd or out.parent)
    return out


def setup_python():
    """python.exe (the probe) beside a fake python311.dll, once per file."""
    probe = lotest.SOURCE_DIR / "tests/e2e/probe/winload_probe.c"
    exe = PYDIR / "python.exe"
    if exe.exists() and exe.stat().st_mtime >= probe.stat().st_mtime:
        return
    lotest.need(CC64, "mingw-w64")
    PYDIR.mkdir(parents=True, exist_ok=True)
    lotest.run([CC64, "-O1", "-o", exe, probe, "-lpsapi"])
    mingw(CC64, PYDIR / "python311.dll",
          "__declspec(dllexport) void *PyModule_Create2(void *d, int v) { return d; }\n",
          "-Wl,--out-implib," + str(PYDIR / "libpython311.a"))


CAPI_C = """
__declspec(dllexport) int mlirRegisterEverything(void) { return 1; }
int mlir_old(void) { return 2; }
int mlir_by_ordinal(void) { return 3; }
"""
MODULE_C = """
__declspec(dllimport) int %s(void);
__declspec(dllimport) void *PyModule_Create2(void *d, int v);
__declspec(dllexport) void *PyInit_%s(void) { return PyModule_Create2(0, %s()); }
"""
CMAKE = """
cmake_minimum_required(VERSION 3.20)
project(seed C)
add_library(capi SHARED capi.c capi.def)
set_target_properties(capi PROPERTIES PREFIX "")
foreach(m IN ITEMS ${MODULES})
  add_library(${m} MODULE ${m}.c)
  set_target_properties(${m} PROPERTIES PREFIX "" SUFFIX ".cp311-win_amd64.pyd")
  target_link_libraries(${m} PRIVATE capi ${PYLIB})
endforeach()
"""
TOOLCHAIN = """
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
"""


def write_branch(src, old):
    (src / "capi.c").write_text(CAPI_C)
    defs = "  mlirRegisterEverything\n"
    if old:
        defs += "  mlirOld = mlir_old\n  mlirOrd = mlir_by_ordinal @5 NONAME\n"
    (src / "capi.def").write_text("LIBRARY capi.dll\nEXPORTS\n" + defs)
    mods = {"_mlir": "mlirRegisterEverything"}
    if old:
        mods.update({"_mlirRegisterEverything": "mlirOld", "_ordmod": "mlirOrd"})
    for m, fn in mods.items():
        (src / (m + ".c")).write_text(MODULE_C % (fn, m, fn))
    for m in ("_mlirRegisterEverything", "_ordmod"):
        if not old and (src / (m + ".c")).exists():
            (src / (m + ".c")).unlink()
    (src / "CMakeLists.txt").write_text(CMAKE.replace("${MODULES}", " ".join(sorted(mods))))


def seed_repo(src):
    """src/: a git repository, `main` checked out, `new` one commit on."""
    src.mkdir(parents=True)
    (src / "toolchain.cmake").write_text(TOOLCHAIN)
    lotest.git(src, "init", "-q")
    write_branch(src, old=True)
    lotest.git(src, "add", "-A")
    lotest.git(src, "commit", "-qm", "old")
    lotest.git(src, "checkout", "-qb", "new")
    write_branch(src, old=False)
    lotest.git(src, "add", "-A")
    lotest.git(src, "commit", "-qm", "new: capi drops mlirOld and ordinal 5")
    lotest.git(src, "checkout", "-q", "main")


def configure_build(src, build):
    lotest.run([lotest.CMAKE, "-S", src, "-B", build, "-G", "Ninja",
                "-DCMAKE_TOOLCHAIN_FILE=" + str(src / "toolchain.cmake"),
                "-DPYLIB=" + str(PYDIR / "libpython311.a")])
    lotest.run([lotest.CMAKE, "--build", build, "-j2"])
