"""pytest_leftover: audit the build tree before pytest collects anything.

A test suite that imports from a build tree reused across branches fails
with one ImportError per test module when a stale extension module is
left there, and nothing says why. With this plugin (loaded by its
``pytest11`` entry point once installed, no configuration needed):

    pytest --leftover build            # or, in pytest.ini:  leftover = build
    pytest --leftover build --leftover-clean

audits each build dir with the ``leftover`` program before collection. If
anything stale or broken is there (by leftover's exit status, that is the
rules' ``[fail] on``), the session stops at once with leftover's findings,
one failure instead of a cascade; with ``--leftover-clean`` the stale files
are moved to the quarantine first (``leftover restore DIR`` undoes it) and
the tests run. With pytest-xdist the audit runs once, in the controller,
before any worker starts.

This is a thin layer over ``leftover scan --format json`` and ``leftover
clean --format json``: every judgement is the program's, not this file's.
The program is ``--leftover-program`` when given, else the ``leftover``
installed in the same prefix as this file (``PREFIX/bin``: the virtual
environment the wheel was installed in, or the .deb's /usr), else the one
in the scripts directory of the environment pytest runs in, else
``leftover`` on PATH.
"""
import json
import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

# leftover's exit statuses
_CLEAN, _FINDINGS = 0, 1


def pytest_addoption(parser):
    group = parser.getgroup("leftover", "stale artifacts in build trees (leftover)")
    group.addoption("--leftover", action="append", default=[], metavar="BUILD_DIR",
                    help="audit BUILD_DIR with leftover before collection; stop if anything "
                         "stale or broken is there (repeatable)")
    group.addoption("--leftover-clean", action="store_true", default=False,
                    help="move what is stale to leftover's quarantine first, then audit")
    group.addoption("--leftover-program", metavar="PATH", default=None,
                    help="the leftover program (default: the one installed with this plugin, "
                         "else leftover on PATH)")
    parser.addini("leftover", "build dirs to audit with leftover before collection",
                  type="paths", default=[])


def _program(config):
    given = config.getoption("leftover_program")
    if given:
        return given
    # PREFIX/lib/python3/dist-packages/pytest_leftover.py -> PREFIX/bin/leftover,
    # whatever the depth LEFTOVER_PYTHON_DIR gave it (a wheel: the venv's
    # lib/pythonX.Y/site-packages -> its bin); then the scripts of the
    # environment pytest runs in, which a venv need not have put on PATH
    near = [p / "bin" for p in list(Path(__file__).resolve().parents)[1:6]]
    for bindir in near + [Path(sysconfig.get_path("scripts"))]:
        beside = bindir / "leftover"
        if os.access(beside, os.X_OK):
            return str(beside)
    return shutil.which("leftover") or "leftover"


def _build_dirs(config):
    dirs = [Path(d) for d in config.getoption("leftover")]
    if not dirs:
        dirs = [Path(d) for d in config.getini("leftover")]
    return dirs


def _run(program, *args):
    try:
        p = subprocess.run([program, *map(str, args)], capture_output=True, text=True,
                           errors="surrogateescape")
    except OSError as e:
        raise pytest.UsageError("leftover: cannot run %s: %s" % (program, e))
    if p.returncode not in (_CLEAN, _FINDINGS):
        raise pytest.UsageError("leftover %s failed (exit %d): %s"
                                % (args[0], p.returncode, p.stderr.strip() or p.stdout.strip()))
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        raise pytest.UsageError("leftover %s printed no JSON: %s" % (args[0], p.stdout[:200]))
    return p.returncode, doc


def _finding(f):
    """One line for a file: its path, verdict and what is wrong, as leftover says it."""
    why = []
    for r in f["reasons"]:
        if r["kind"] == "undefined-symbol" and r.get("symbol"):
            why.append("undefined symbol %s" % r["symbol"])
        elif r["kind"] == "orphan":
            why.append("no longer built (%s)" % r["detail"])
        elif r["kind"] != "rule":
            why.append(r.get("detail") or r["kind"])
    rule = [r["detail"] for r in f["reasons"] if r["kind"] == "rule"]
    line = "  %s: %s: %s" % (f["path"], f["verdict"], "; ".join(why) or "see leftover scan")
    return line + ("\n    why it matters: %s" % rule[0] if rule else "")


def _audit(config, program, build, clean):
    """Lines to report about `build`: what was moved, and the findings left, if any."""
    said = []
    if clean:
        _, doc = _run(program, "clean", "--wait", "--format", "json", build)
        moved = [a["path"] for a in doc["actions"] if a["status"] in ("moved", "removed")]
        if moved:
            said.append("leftover: moved %d stale file%s of %s to %s (undo: leftover restore %s %s)"
                        % (len(moved), "" if len(moved) == 1 else "s", build, doc["quarantine"],
                           build, doc["stamp"]))
            said += ["  " + m for m in moved]
    rc, doc = _run(program, "scan", "--format", "json", build)
    if rc == _CLEAN:
        return said, []
    bad = [f for f in doc["files"] if f["verdict"] in ("stale", "broken", "unreadable", "unjudged")]
    return said, [_finding(f) for f in bad] or ["  (see leftover scan %s)" % build]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    config = session.config
    # an xdist worker: the controller audited before starting it
    if hasattr(config, "workerinput"):
        return
    dirs = _build_dirs(config)
    if not dirs:
        return
    program = _program(config)
    clean = config.getoption("leftover_clean")
    tr = config.pluginmanager.get_plugin("terminalreporter")
    found = []
    for build in dirs:
        said, findings = _audit(config, program, build, clean)
        for line in said:
            if tr:
                tr.write_line(line)
        if findings:
            found.append("leftover found in %s what the tests would fail to import:" % build)
            found += findings
    if found:
        hint = ("run again with --leftover-clean to move the stale files aside, or see "
                "`leftover explain FILE`" if not clean else
                "these are still built but would not load: rebuild, or see `leftover explain FILE`")
        for line in found + ["stopped before collection: " + hint]:
            if tr:
                tr.write_line(line, red=True)
            else:
                print(line)
        n = sum(1 for line in found if line.startswith("  ") and not line.startswith("    "))
        pytest.exit("leftover: %d file%s to fix before the tests can import"
                    % (n, "" if n == 1 else "s"), returncode=1)
