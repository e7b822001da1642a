"""leftover in CMake and the install (issue 4).

The two-branch fixture wired with leftover_add_audit(... CLEAN), the module
included from the source checkout: after the branch switch, plain `ctest`
in the build dir runs the audit first (a FIXTURES_SETUP test), which moves
the stale module away, and the Python import test then passes. Without
CLEAN the audit is a dry run that fails, and ctest does not run the tests
that require it. `cmake --install` lays out the binary, the man page, the
rules, the CMake package and the completion; a project finds it with
find_package(Leftover); `cpack -G DEB` makes a package holding the same.
"""
import gzip
import os
import re
import shutil
from pathlib import Path

import lotest

WRAPPER = """cmake_minimum_required(VERSION 3.18)
project(wrapped LANGUAGES C)
enable_testing()
add_subdirectory({src} fixture)
include({source_dir}/cmake/LeftoverConfig.cmake)
# The module is 'stale' where the build system is consulted, 'broken' where it
# cannot be: FAIL_ON stale fails on either, --broken acts on either.
leftover_add_audit(audit-stale {clean} FAIL_ON stale ARGS --broken)
add_test(NAME import-package COMMAND {python} -c "import mlir._mlir_libs")
set_tests_properties(import-package PROPERTIES FIXTURES_REQUIRED audit-stale
  ENVIRONMENT PYTHONPATH=${{CMAKE_BINARY_DIR}}/python_packages)
"""


def wrapped_twobranch(name, clean):
    d = lotest.workdir(name)
    src, wrap, build = d / "src", d / "wrap", d / "build"
    lotest.run(["sh", lotest.FIXTURES / "twobranch" / "make-repo.sh", src])
    wrap.mkdir()
    (wrap / "CMakeLists.txt").write_text(WRAPPER.format(
        src=src, source_dir=lotest.SOURCE_DIR, python=lotest.PYTHON,
        clean="CLEAN" if clean else ""))
    defs = {"LEFTOVER_EXECUTABLE": lotest.LEFTOVER}
    lotest.cmake_build(wrap, build, defines=defs)
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(wrap, build, defines=defs)
    soabi = lotest.run([lotest.PYTHON, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"]).stdout.strip()
    stale = build / "python_packages/mlir/_mlir_libs" / ("_mlirRegisterEverything" + soabi)
    assert stale.exists()
    return build, stale


def ctest(build, *args):
    return lotest.run(["ctest", "--output-on-failure", *args], cwd=build, check=False)


def test_plain_ctest_runs_the_audit_first():
    build, stale = wrapped_twobranch("cmake-audit-clean", clean=True)
    r = ctest(build)
    assert r.returncode == 0, r.stdout + r.stderr
    order = re.findall(r"Test +#\d+: (\S+) ", r.stdout)
    assert order == ["audit-stale", "import-package"], r.stdout
    assert not stale.exists()
    # undo, and the custom target does the same job
    assert lotest.leftover("restore", build).returncode == 0
    assert stale.exists()
    lotest.run([lotest.CMAKE, "--build", build, "--target", "audit-stale"])
    assert not stale.exists()
    # asking for one test still runs its fixture first
    assert lotest.leftover("restore", build).returncode == 0
    r = ctest(build, "-R", "import-package")
    assert r.returncode == 0 and "audit-stale" in r.stdout, r.stdout

    # a CMakeCache.txt naming a script of the tree's own (issue 51): the audit
    # runs by itself, and must not run it; the stale module still goes
    assert lotest.leftover("restore", build).returncode == 0
    canary = build.parent / "CANARY"
    evil = build / "evil-python3"
    evil.write_text('#!/bin/sh\ntouch "%s"\nexec "%s" "$@"\n' % (canary, lotest.PYTHON))
    evil.chmod(0o755)
    cache = build / "CMakeCache.txt"
    kept, st = cache.read_text(), cache.stat()
    cache.write_text(re.sub(r"(?m)^Python3_EXECUTABLE:(\w+)=.*$",
                            lambda m: "Python3_EXECUTABLE:%s=%s" % (m.group(1), evil), kept))
    # with the time it had: a cache newer than the build withholds staleness
    os.utime(cache, ns=(st.st_atime_ns, st.st_mtime_ns))
    try:
        r = ctest(build, "-R", "audit-stale")
        assert not canary.exists(), r.stdout
        # the live module, whose host is not run, is unjudged: that fails the
        # audit, saying why, until the user vouches for the tree
        assert r.returncode != 0 and not stale.exists(), r.stdout
        assert "is not run" in r.stdout and "--trust-tree" in r.stdout, r.stdout
    finally:
        cache.write_text(kept)


def test_audit_without_clean_fails_and_blocks_the_tests():
    build, stale = wrapped_twobranch("cmake-audit-dry", clean=False)
    r = ctest(build)
    assert r.returncode != 0, r.stdout
    assert re.search(r"audit-stale \.+\*+Failed", r.stdout), r.stdout
    assert re.search(r"import-package \.+\*+Not Run|Failed test dependencies", r.stdout), r.stdout
    assert stale.exists()


def leftover_build_dir():
    """The build dir of the leftover under test: LEFTOVER is BUILD/auditor/leftover."""
    b = Path(lotest.LEFTOVER).resolve().parents[1]
    assert (b / "CMakeCache.txt").exists(), b
    return b


def test_install_find_package_and_deb():
    d = lotest.workdir("cmake-install")
    prefix = d / "prefix"
    lotest.run([lotest.CMAKE, "--install", leftover_build_dir(), "--prefix", prefix])
    for rel in ("bin/leftover", "share/man/man1/leftover.1.gz", "share/leftover/rules/default.rules",
                "share/cmake/Leftover/LeftoverConfig.cmake",
                "share/cmake/Leftover/LeftoverConfigVersion.cmake",
                "share/bash-completion/completions/leftover",
                "lib/python3/dist-packages/pytest_leftover.py",
                "lib/python3/dist-packages/pytest_leftover-0.1.0.dist-info/entry_points.txt"):
        assert (prefix / rel).exists(), rel
    page = prefix / "share/man/man1/leftover.1.gz"  # compressed, as Debian wants it
    text = gzip.decompress(page.read_bytes()).decode()
    assert text.startswith(".\\\" leftover(1)") and ".TH LEFTOVER 1" in text
    if shutil.which("man"):  # man-db is not among ci/install-deps
        man = lotest.run(["man", "-l", "-P", "cat", page], env={"MANWIDTH": "80"})
        assert "leftover restore" in man.stdout and "EXIT STATUS" in man.stdout, man.stdout
        assert "warning" not in man.stderr, man.stderr
    # the completion loads and completes subcommands and clean's formats
    comp = lotest.run(["bash", "-c",
                       "_init_completion() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]};"
                       " words=(\"${COMP_WORDS[@]}\"); cword=$COMP_CWORD; }; _filedir() { :; };"
                       " . \"$1\"; COMP_WORDS=(leftover cl); COMP_CWORD=1; _leftover; echo ${COMPREPLY[@]};"
                       " COMP_WORDS=(leftover clean --format ''); COMP_CWORD=3; _leftover; echo ${COMPREPLY[@]}",
                       "x", prefix / "share/bash-completion/completions/leftover"])
    assert comp.stdout.splitlines() == ["clean", "text json junit sarif"], comp.stdout

    # a project using the installed package: the audit fails on a broken library
    proj, build = d / "proj", d / "proj-build"
    proj.mkdir()
    (proj / "broken.c").write_text("extern int no_library_has_this(void);\nint f(void) { return no_library_has_this(); }\n")
    (proj / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(user LANGUAGES C)\nenable_testing()\n"
        "find_package(Leftover 0.1 REQUIRED)\nmessage(STATUS \"leftover: ${LEFTOVER_EXECUTABLE}\")\n"
        "add_library(broken SHARED broken.c)\nleftover_add_audit(audit CLEAN FAIL_ON never)\n")
    r = lotest.run([lotest.CMAKE, "-S", proj, "-B", build, "-G", "Ninja", "-DCMAKE_PREFIX_PATH=" + str(prefix)])
    assert "leftover: %s/bin/leftover" % prefix in r.stdout, r.stdout
    lotest.run([lotest.CMAKE, "--build", build])
    r = ctest(build)
    assert r.returncode == 0, r.stdout  # FAIL_ON never; the broken library is still built
    assert (build / "libbroken.so").exists()

    # the .deb, made by one command, without touching the build dir
    out = d / "deb"
    lotest.run(["cpack", "-G", "DEB", "--config", leftover_build_dir() / "CPackConfig.cmake", "-B", out])
    debs = list(out.glob("leftover_*.deb"))
    assert len(debs) == 1, list(out.iterdir())
    listing = lotest.run(["dpkg-deb", "-c", debs[0]]).stdout
    for rel in ("bin/leftover", "man1/leftover.1", "cmake/Leftover/LeftoverConfig.cmake",
                "completions/leftover", "leftover/rules/default.rules",
                "python3/dist-packages/pytest_leftover.py", "dist-info/entry_points.txt"):
        assert rel in listing, (rel, listing)
    info = lotest.run(["dpkg-deb", "-f", debs[0], "Depends"]).stdout
    # ELF is read by leftover's own reader: libelf is no dependency
    assert "libgit2" in info and "libelf" not in info, info


if __name__ == "__main__":
    lotest.main(globals())
