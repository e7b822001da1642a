"""The pytest plugin (python/pytest_leftover.py), as installed by `cmake --install`.

A project whose tests import the two-branch package from a build dir that
was built on branch-a and rebuilt on branch-b: the stale module makes each
test module that imports the package fail with an ImportError. leftover is
installed into a prefix, and only that prefix's site-packages is on
PYTHONPATH (the project's pytest.ini puts the build's python_packages on
sys.path, as projects do): Debian's pytest loads the plugin by its pytest11
entry point. With `--leftover build` (or the ini key) the session stops
before collection with one failure naming the module, and no test runs;
with --leftover-clean the module is quarantined and the tests pass. The
same with pytest-xdist, where the audit runs once, in the controller.
"""
import os
import subprocess

import lotest
from test_clean_cmake import leftover_build_dir
from test_twobranch import STALE, make_repo

MODULE = STALE.rsplit("/", 1)[1]

TEST_MODULE = """import mlir._mlir_libs as m

def test_{n}():
    assert m.registered_passes == 0
"""
# a test that imports nothing of the build: it runs unless the session stops first
PLAIN = """import pathlib

def test_plain():
    pathlib.Path({marker!r}).write_text("ran")
"""


def ensure_pytest():
    """Debian's pytest and pytest-xdist for the interpreter the fixture builds for."""
    if subprocess.run([lotest.PYTHON, "-c", "import pytest, xdist"], capture_output=True).returncode:
        lotest.run(["apt-get", "-o", "DPkg::Lock::Timeout=900", "install", "-y",
                    "python3-pytest", "python3-pytest-xdist"], timeout=1200)


STATE = {}


def project():
    """(dir, build, site-packages of the prefix) once for the module."""
    if not STATE:
        ensure_pytest()
        src, build = make_repo("pytest-plugin")
        lotest.cmake_build(src, build)
        lotest.git(src, "checkout", "-q", "branch-b")
        lotest.cmake_build(src, build)
        d = src.parent
        prefix = d / "prefix"
        lotest.run([lotest.CMAKE, "--install", leftover_build_dir(), "--prefix", prefix])
        site = prefix / "lib" / "python3" / "dist-packages"
        tests = d / "tests"
        tests.mkdir()
        for n in range(3):
            (tests / ("test_m%d.py" % n)).write_text(TEST_MODULE.format(n=n))
        (tests / "test_plain.py").write_text(PLAIN.format(marker=str(d / "plain-ran")))
        (d / "pytest.ini").write_text("[pytest]\npythonpath = build/python_packages\n")
        STATE.update(dir=d, build=build, site=site)
    assert (STATE["build"] / STALE).exists() or lotest.leftover("restore", STATE["build"]).returncode == 0
    assert (STATE["build"] / STALE).exists()
    marker = STATE["dir"] / "plain-ran"
    if marker.exists():
        marker.unlink()
    return STATE["dir"], STATE["build"], STATE["site"]


def pytest(d, site, *args):
    return lotest.run([lotest.PYTHON, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=d,
                      env={"PYTHONPATH": str(site)}, check=False)


def test_the_plugin_is_found_by_its_entry_point():
    d, build, site = project()
    p = lotest.run([lotest.PYTHON, "-c", "import importlib.metadata as m; "
                    "print([e.value for e in m.entry_points(group='pytest11')])"],
                   env={"PYTHONPATH": str(site)})
    assert "pytest_leftover" in p.stdout, p.stdout
    r = pytest(d, site, "--co", "-q", "tests/test_plain.py")
    assert r.returncode == 0, r.stdout + r.stderr
    h = pytest(d, site, "tests/test_plain.py")
    assert "plugins: leftover-" in h.stdout, h.stdout


def cascade(*xdist):
    d, build, site = project()
    p = pytest(d, site, "-p", "no:leftover", *xdist)
    out = p.stdout + p.stderr
    assert p.returncode != 0
    assert out.count("undefined symbol: mlirRegisterAllPasses") >= 3, out
    assert "3 errors" in out, out


def stops_before_collection(*xdist):
    d, build, site = project()
    log = d / "leftover-calls"
    if log.exists():
        log.unlink()
    # the installed program, through a wrapper that counts its runs
    wrapper = d / "leftover-counting"
    wrapper.write_text("#!/bin/sh\necho \"$1\" >> %s\nexec %s \"$@\"\n"
                       % (log, site.parents[2] / "bin" / "leftover"))
    os.chmod(wrapper, 0o755)
    p = pytest(d, site, "--leftover", "build", "--leftover-program", wrapper, *xdist)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "leftover found in build what the tests would fail to import:" in out, out
    assert MODULE in out and "undefined symbol mlirRegisterAllPasses" in out, out
    assert "ImportError" not in out and "collected" not in out and "passed" not in out, out
    assert not (d / "plain-ran").exists(), "a test ran"
    assert log.read_text().split() == ["scan"], log.read_text()
    # without the wrapper: the program installed beside the plugin
    q = pytest(d, site, "--leftover", "build", *xdist)
    assert q.returncode == 1 and MODULE in q.stdout, q.stdout + q.stderr


def cleans_first(*xdist):
    d, build, site = project()
    p = pytest(d, site, "--leftover", "build", "--leftover-clean", *xdist)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert "leftover: moved 1 stale file of build" in out and MODULE in out, out
    assert "4 passed" in out, out
    assert not (build / STALE).exists()


def test_without_the_plugin_the_importerror_cascade():
    cascade()


def test_with_leftover_one_failure_before_any_test():
    stops_before_collection()


def test_with_leftover_clean_the_tests_pass():
    cleans_first()


def test_xdist_cascade():
    cascade("-n", "2")


def test_xdist_stops_once_in_the_controller():
    stops_before_collection("-n", "2")


def test_xdist_cleans_first():
    cleans_first("-n", "2")


def test_ini_key_several_dirs():
    d, build, site = project()
    other = d / "other-build"
    other.mkdir(exist_ok=True)
    (d / "pytest.ini").write_text("[pytest]\npythonpath = build/python_packages\n"
                                  "leftover =\n    other-build\n    build\n")
    try:
        p = pytest(d, site)
        assert p.returncode == 1 and MODULE in p.stdout, p.stdout + p.stderr
        p = pytest(d, site, "--leftover-clean")
        assert p.returncode == 0 and "4 passed" in p.stdout, p.stdout + p.stderr
    finally:
        (d / "pytest.ini").write_text("[pytest]\npythonpath = build/python_packages\n")


def test_an_interpreter_planted_in_the_cache_is_not_run():
    """The audit runs by itself, before the tests: a tree whose
    CMakeCache.txt names a script of its own (issue 51) does not get it run,
    and the stale module is still found."""
    d, build, site = project()
    canary = d / "CANARY"
    evil = build / "evil-python3"
    evil.write_text('#!/bin/sh\ntouch "%s"\nexec "%s" "$@"\n' % (canary, lotest.PYTHON))
    evil.chmod(0o755)
    cache = build / "CMakeCache.txt"
    kept, st = cache.read_text(), cache.stat()
    cache.write_text("".join(
        "Python3_EXECUTABLE:FILEPATH=%s\n" % evil if line.startswith("Python3_EXECUTABLE:")
        else line for line in kept.splitlines(True)))
    # with the time it had: a cache newer than the build withholds staleness
    os.utime(cache, ns=(st.st_atime_ns, st.st_mtime_ns))
    try:
        p = pytest(d, site, "--leftover", "build")
        assert not canary.exists(), p.stdout + p.stderr
        assert p.returncode == 1 and MODULE in p.stdout, p.stdout + p.stderr
    finally:
        cache.write_text(kept)
        evil.unlink()


if __name__ == "__main__":
    lotest.main(globals())
