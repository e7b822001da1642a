"""The seed scenario (fixtures/twobranch/) built for i386 and for aarch64.

The same two-branch tree as test_twobranch.py, built with real CMake for
another target: i386 with `gcc -m32`, aarch64 with Debian's cross
compiler through a CMake toolchain file. Its extension modules are hosted
by a CPython of that architecture: Debian's python3.11 of that
architecture (interpreter, standard library, headers) unpacked into a
directory of the test's own, never installed, since it does not co-install
with the machine's amd64 python3.11. CMake's FindPython runs that
interpreter (natively, or under qemu-user where this kernel cannot run it:
aarch64 always, i386 on a kernel without IA32 emulation; then through a
two-line wrapper, as a developer would), so the modules get that
architecture's suffix and the tree's CMakeCache.txt names it.

Build branch-a, check out branch-b, rebuild in the same dir: leftover,
running here on x86-64, must find the stale _mlirRegisterEverything module
(orphan, and needing mlirRegisterAllPasses) and nothing else, judged by the
loader of its own architecture from that interpreter. Truth is that
interpreter importing each module itself, in a child.
"""
import os

import lotest
import test_twobranch as twobranch

PKG = twobranch.PKG
# The interpreter (or its wrapper) the tree's CMakeCache.txt names lies under
# /tmp, which every user may write: run only for a tree the user vouches for
# (test_trust.py).
TRUST = ("--trust-tree",)
# Debian's CPython 3.11 of one architecture: the interpreter, its standard
# library (with the _sysconfigdata FindPython reads) and its headers (the
# architecture's pyconfig.h). The interpreter's own libraries (libc6,
# libexpat1, zlib1g) are multiarch and installed.
PY_DEBS = ["python3.11-minimal", "libpython3.11-minimal", "libpython3.11-stdlib",
           "libpython3.11-dev"]
# The real import of one module from its file, as CPython's import does it
# (dlopen, then PyInit_<name>), without the package's __init__.
IMPORT = ("import importlib.util as u, sys\n"
          "s = u.spec_from_file_location(sys.argv[1], sys.argv[2])\n"
          "s.loader.exec_module(u.module_from_spec(s))\n")


def python_root(arch):
    """python3.11 of `arch` unpacked under WORK (once), not installed."""
    deb = lotest.ARCHES[arch]["deb"]
    root = lotest.WORK / (".python3.11-" + deb)
    exe = root / "usr" / "bin" / "python3.11"
    if exe.exists():
        return exe
    debs = lotest.workdir(".debs-" + deb)
    cmd = ["apt-get", "-q", "-o", "APT::Sandbox::User=root", "download"] + \
        ["%s:%s" % (p, deb) for p in PY_DEBS]
    if lotest.run(cmd, cwd=debs, check=False).returncode:
        lotest._apt("update")  # an index older than the mirror's versions
        lotest.run(cmd, cwd=debs)
    tmp = lotest.workdir(root.name + ".tmp")
    for f in sorted(debs.iterdir()):
        lotest.run(["dpkg-deb", "-x", f, tmp])
    tmp.rename(root)
    return exe


def setup(arch, d):
    """Interpreter, what runs it, and a CMake toolchain file for `arch`."""
    cc = lotest.need_arch(arch, ["libexpat1", "zlib1g"])
    exe = python_root(arch)
    run = lotest.runner(arch)
    python = exe
    if run:
        # what FindPython and leftover are given: a wrapper, as on a developer's machine
        python = d / "bin" / "python3.11"
        python.parent.mkdir(parents=True)
        python.write_text('#!/bin/sh\nexec %s %s "$@"\n' % (" ".join(run), exe))
        python.chmod(0o755)
    # the architecture's pyconfig.h, which Python.h reaches as <TRIPLET/python3.11/pyconfig.h>
    flags = cc[1:] + ["-isystem", str(exe.parents[1] / "include")]
    toolchain = d / (arch + ".cmake")
    # Only the compiler: with CMAKE_SYSTEM_NAME set (CMAKE_CROSSCOMPILING),
    # CMake 3.25's FindPython never asks the interpreter for its SOABI and
    # asks the config tool too late, so the modules would be named `_mlir.so`.
    toolchain.write_text("set(CMAKE_C_COMPILER %s)\nset(CMAKE_C_FLAGS_INIT \"%s\")\n"
                         % (cc[0], " ".join(flags)))
    return python, run, toolchain


def runs_here(program):
    """Does this kernel start `program` itself (natively, or by a binfmt_misc handler)?"""
    try:
        return lotest.run([program, "-c", "pass"], check=False).returncode == 0
    except OSError:
        return False


def truth(arch, python, run, build, paths):
    """The real answer per path: an extension imported by the interpreter of
    `arch`, another object dlopen()ed by a plain C program of `arch`."""
    out = {}
    for p in paths:
        full = build / p
        if p.endswith(".cpython-311-%s.so" % arch):
            name = "mlir._mlir_libs." + os.path.basename(p).split(".")[0]
            r = lotest.run([python, "-c", IMPORT, name, full], check=False)
            out[p] = "ok" if r.returncode == 0 else \
                "error " + (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
        else:
            out[p] = lotest.dlopen([full], arch=arch, run=run)[0]
    return out


def check_scan(r, arch, stale, live):
    """Only the stale module is found, for both reasons, by the loader of `arch`."""
    assert r.rc == 1, r
    f = r.file(stale)
    assert (f["kind"], f["verdict"], f["loads"], f["orphan"], f["arch"]) == \
        ("python-extension", "stale", False, True, arch), f
    assert [x["symbol"] for x in r.reasons(stale, "undefined-symbol")] == \
        ["mlirRegisterAllPasses"], f
    assert [x["evidence"] for x in r.reasons(stale, "orphan")] == ["ninja-log"], f
    others = {p: (g["verdict"], g["arch"]) for p, g in r.files.items() if p != stale}
    assert others == {p: ("ok", arch) for p in live}, others


def seed_scenario(arch):
    d = lotest.workdir("seed-" + arch)
    python, run, toolchain = setup(arch, d)
    src, build = twobranch.make_repo("seed-" + arch + "/repo")
    soabi = ".cpython-311-%s.so" % arch
    stale = PKG + "/_mlirRegisterEverything" + soabi
    live = [PKG + "/_mlir" + soabi, PKG + "/libMLIRCAPI.so"]
    defines = {"CMAKE_TOOLCHAIN_FILE": toolchain, "Python3_EXECUTABLE": python}
    lotest.cmake_build(src, build, "Ninja", defines)
    assert lotest.scan(build, args=TRUST).rc == 0
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(src, build, "Ninja", defines)
    assert (build / stale).exists(), "the rebuild removed the old module; nothing to test"

    # The tree is what it claims: objects of that architecture, named by its interpreter.
    machine = {"i386-linux-gnu": "Intel 80386", "aarch64-linux-gnu": "AArch64"}[arch]
    for p in [stale] + live:
        assert machine in lotest.run(["readelf", "-h", build / p]).stdout, p
    # What the user sees: that interpreter's import of the package dies on the stale module.
    p = lotest.run([python, "-c", "import mlir._mlir_libs"], check=False,
                   env={"PYTHONPATH": str(build / "python_packages")})
    assert p.returncode != 0 and "ImportError" in p.stderr and \
        "undefined symbol: mlirRegisterAllPasses" in p.stderr, (p.stdout, p.stderr)

    real = truth(arch, python, run, build, [stale] + live)
    assert real[stale].startswith("error ") and "mlirRegisterAllPasses" in real[stale], real
    assert all(real[p] == "ok" for p in live), real

    # leftover from the tree's CMakeCache.txt (the wrapper asked, when there is one),
    # then from the interpreter's ELF program named with --python, which this
    # kernel may not run: the verdicts are the same.
    for args in (TRUST, ("--python", python_root(arch))):
        r = lotest.scan(build, args=args)
        check_scan(r, arch, stale, live)
        # an interpreter that cannot run here is read, not asked, and the report says so
        unasked = [n for n in r.doc["notes"] if "(EXTENSION_SUFFIXES) is not known" in n]
        if args != TRUST and not runs_here(args[1]):
            assert len(unasked) == 1 and str(args[1]) in unasked[0] and \
                "the %s program it is" % arch in unasked[0], r.doc["notes"]
        else:
            assert not unasked, r.doc["notes"]
        agree = sum((real[p] == "ok") == (f["loads"] is True) for p, f in r.files.items())
        print("%s%s: agreement %d/%d with the real import and dlopen of %s"
              % (arch, " --python" if args else "", agree, len(real), arch))
        assert agree == len(real)


def test_seed_scenario_i386():
    seed_scenario("i386-linux-gnu")


def test_seed_scenario_aarch64():
    seed_scenario("aarch64-linux-gnu")


if __name__ == "__main__":
    lotest.main(globals())
