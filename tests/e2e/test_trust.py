"""A scanned tree cannot make leftover run anything (issue 51).

Build trees are not always the user's own: a CI cache restored from a
fork, an artifact of another job, a tree unpacked from a bug report. Each
program a tree names here (the CMakeCache.txt's Python3_EXECUTABLE in the
tree or in its source tree, a [host] program of the source tree's rules, a
pyenv-shim-looking script) creates a canary file when it runs. scan,
explain, clean and restore must leave no canary, still give verdicts
(from the files, or `unjudged` with the reason), and with --trust-tree
(or the user's own `[trust] tree`) behave as before. The user's own word
(--python, their rules, python3 on PATH) is run as before. A pyenv shim on
PATH is followed through pyenv's files, to the program running it would
give, without running it.
"""
import grp
import json
import os
import pwd
import re
import shutil
import stat
import tempfile
from pathlib import Path

import lotest

PKG = "python_packages/mlir/_mlir_libs"
SUFFIX = lotest.run([lotest.PYTHON, "-c",
                     "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"]).stdout.strip()
STALE = PKG + "/_mlirRegisterEverything" + SUFFIX
LIVE = PKG + "/_mlir" + SUFFIX
CAPI = PKG + "/libMLIRCAPI.so"
REAL = lotest.run([lotest.PYTHON, "-c", "import sys; print(sys.executable)"]).stdout.strip()
TRUST = ("--trust-tree",)


def script(path, body):
    """An executable sh script at path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def canary_python(path, canary):
    """A script that leaves `canary` and then is the real interpreter."""
    return script(path, 'touch "%s"\nexec "%s" "$@"\n' % (canary, REAL))


def pyenv_shim(path, root, canary):
    """A file as pyenv writes its shims (`pyenv rehash`), for `root`, that
    also leaves `canary` when it runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('#!/usr/bin/env bash\nset -e\n[ -n "$PYENV_DEBUG" ] && set -x\n\n'
                    'touch "%s"\nprogram="${0##*/}"\n\nexport PYENV_ROOT="%s"\n'
                    'exec "%s/libexec/pyenv" exec "$program" "$@"\n' % (canary, root, root))
    path.chmod(0o755)
    return path


def set_cache(build, var, value):
    """Rewrite one CMakeCache.txt entry, as a planted cache would have it
    (with the time it had: a cache newer than the build withholds staleness)."""
    cache = build / "CMakeCache.txt"
    st = cache.stat()
    text = re.sub(r"(?m)^%s:(\w+)=.*$" % var, lambda m: "%s:%s=%s" % (var, m.group(1), value),
                  cache.read_text())
    assert ("%s:" % var) in text
    cache.write_text(text)
    os.utime(cache, ns=(st.st_atime_ns, st.st_mtime_ns))


def verdicts(r):
    return {p: f["verdict"] for p, f in r.files.items()}


def fixture(name):
    """The two-branch fixture built with REAL, and a canary path."""
    d = lotest.workdir(name)
    src, build = d / "src", d / "build"
    lotest.run(["sh", lotest.FIXTURES / "twobranch" / "make-repo.sh", src])
    lotest.cmake_build(src, build)
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(src, build)
    return d, src, build, d / "CANARY"


def test_a_recorded_interpreter_in_the_tree_is_not_run():
    d, src, build, canary = fixture("trust-records")
    told = lotest.scan(build, args=("--python", REAL))
    assert told.rc == 1 and told.file(STALE)["verdict"] == "stale", told
    expected = verdicts(told)

    for planted in (canary_python(src / "tools" / "python3", canary),
                    canary_python(build / "evil.sh", canary)):
        set_cache(build, "Python3_EXECUTABLE", planted)
        r = lotest.scan(build)
        assert not canary.exists(), (planted, r)
        # the stale module is still stale (the records say so); the live one,
        # whose load needs the interpreter, is unjudged with the reason
        assert r.rc == 1 and r.file(STALE)["verdict"] == "stale", r
        assert r.file(CAPI)["verdict"] == expected[CAPI], r
        f = r.file(LIVE)
        assert f["verdict"] == "unjudged", f
        why = [x["detail"] for x in r.reasons(LIVE, "no-host")]
        assert len(why) == 1 and str(planted) in why[0] and "is not run" in why[0] and \
            "inside the scanned tree or source tree" in why[0] and "--trust-tree" in why[0], why
        assert [n for n in r.doc["notes"] if "is not run" in n and str(planted) in n], r.doc

        p = lotest.leftover("explain", build / LIVE)
        assert not canary.exists(), p
        assert p.returncode == 2 and "is not run" in p.stderr and str(planted) in p.stderr, p

        # the user vouches: the program is asked, as before
        r = lotest.scan(build, args=TRUST)
        assert canary.exists(), r
        canary.unlink()
        assert r.rc == 1 and verdicts(r) == expected, (verdicts(r), expected)
        p = lotest.leftover("explain", "--trust-tree", build / LIVE)
        assert canary.exists() and p.returncode in (0, 1), p
        canary.unlink()

    # clean and restore: the stale module moves and comes back, nothing runs
    p = lotest.leftover("clean", build)
    assert not canary.exists(), p
    assert p.returncode == 1 and not (build / STALE).exists() and (build / LIVE).exists(), p
    p = lotest.leftover("restore", build)
    assert not canary.exists(), p
    assert p.returncode == 0 and (build / STALE).exists(), p
    p = lotest.leftover("clean", "--trust-tree", build)
    assert canary.exists() and not (build / STALE).exists(), p
    canary.unlink()
    lotest.leftover("restore", build)

    # a shim-looking script in the tree is read, never run: with or without
    # --trust-tree, its pyenv root (the tree's) leads to a program in the tree,
    # which is read as the interpreter it is without being asked anything:
    # its suffixes come from its _sysconfigdata file, and the verdicts are the same
    root = build / "pyenv"
    (root / "versions" / "9.9" / "bin").mkdir(parents=True)
    os.symlink(REAL, root / "versions" / "9.9" / "bin" / "python3")
    (root / "version").write_text("9.9\n")
    shim = pyenv_shim(root / "shims" / "python3", root, canary)
    set_cache(build, "Python3_EXECUTABLE", shim)
    r = lotest.scan(build)
    assert not canary.exists(), r
    assert r.file(LIVE)["host"] == str(root / "versions" / "9.9" / "bin" / "python3"), r.file(LIVE)
    assert r.rc == 1 and verdicts(r) == expected, (verdicts(r), expected)
    assert [n for n in r.doc["notes"] if "pyenv shim" in n], r.doc["notes"]
    assert [n for n in r.doc["notes"] if "is not run" in n and
            "extension suffixes are read from '" in n and "_sysconfigdata_" in n], r.doc["notes"]
    r = lotest.scan(build, args=TRUST)
    assert not canary.exists(), r
    assert r.rc == 1 and verdicts(r) == expected, (verdicts(r), expected)
    assert not [n for n in r.doc["notes"] if "is not run" in n], r.doc["notes"]


def test_an_interpreter_in_mesons_records_is_not_run():
    # meson's log names the Python it configured (test_meson.py); planted
    # there, a script of the source tree is read as the tree's interpreter,
    # and like CMakeCache's it is not run
    import test_meson
    src, build = test_meson.configured_on_b("trust-meson")
    canary = src.parent / "canary"
    planted = canary_python(src / "tools" / "python3", canary)
    log = build / "meson-logs" / "meson-log.txt"
    text = log.read_text()
    found = "Program python3 found: YES (%s)" % test_meson.PYTHON
    assert found in text, text[-2000:]
    log.write_text(text.replace(found, "Program python3 found: YES (%s)" % planted))
    keep = "keep" + test_meson.SUFFIX

    r = lotest.scan(build)
    assert not canary.exists(), r
    f = r.file(keep)
    assert f["verdict"] == "unjudged", f
    why = [x["detail"] for x in r.reasons(keep, "no-host")]
    assert len(why) == 1 and str(planted) in why[0] and "is not run" in why[0], why
    p = lotest.leftover("explain", build / keep)
    assert not canary.exists() and p.returncode == 2 and "is not run" in p.stderr, p

    r = lotest.scan(build, args=TRUST)
    assert canary.exists() and r.file(keep)["verdict"] == "ok", r


def test_a_host_program_of_the_trees_rules_is_not_run():
    d, src, build, canary = fixture("trust-rules")
    # perl is asked which program it is (print $^X); this one leaves a canary first
    perl = script(src / "tools" / "perl", 'touch "%s"\nexec /usr/bin/perl "$@"\n' % canary)
    rule = '[host "evil"]\n\tmatch = **/libMLIRCAPI.so\n\tprogram = %s\n' % perl
    (src / ".leftover").write_text(rule)
    r = lotest.scan(build)
    assert not canary.exists(), r
    f = r.file(CAPI)
    assert f["verdict"] == "unjudged", f
    why = [x["detail"] for x in r.reasons(CAPI, "no-host")]
    assert len(why) == 1 and "is not run" in why[0] and str(perl) in why[0] and \
        '[host "evil"]' in why[0], why
    assert r.file(STALE)["verdict"] == "stale", r

    r = lotest.scan(build, args=TRUST)
    assert canary.exists(), r
    canary.unlink()
    assert r.file(CAPI)["verdict"] != "unjudged", r.file(CAPI)

    # the user's own rules: theirs to name, and theirs to vouch for trees with
    (src / ".leftover").unlink()
    config = d / "config"
    (config / "leftover").mkdir(parents=True)
    (config / "leftover" / "rules").write_text(rule)
    env = {"XDG_CONFIG_HOME": str(config)}
    r = lotest.scan(build, env=env)
    assert canary.exists(), r
    canary.unlink()
    (config / "leftover" / "rules").write_text("[trust]\n\ttree = %s\n" % build)
    (src / ".leftover").write_text(rule)
    r = lotest.scan(build, env=env)
    assert canary.exists() and r.file(CAPI)["verdict"] != "unjudged", r
    canary.unlink()
    # ... which a tree's own rules cannot do
    (config / "leftover" / "rules").unlink()
    (src / ".leftover").write_text(rule + "[trust]\n\ttree = *\n")
    r = lotest.scan(build, env=env)
    assert r.rc == 2 and "only the user's own rule files may vouch" in r.stderr, r
    assert not canary.exists(), r


def test_a_program_outside_the_tree_is_run_only_when_no_one_else_can_change_it():
    """Outside the tree, a program is the tree's to choose, not to change:
    it is run when it and every directory above it belong to root or the
    user and no one else may write them. The directory here lies beside
    /var/cache (root's, as are / and /var), not under /tmp, which everyone
    may write, nor beside the build, which may be anywhere (a clone in /tmp)."""
    d, src, build, canary = fixture("trust-owner")
    told = lotest.scan(build, args=("--python", REAL))
    safe = Path(tempfile.mkdtemp(prefix="leftover-trust-e2e-", dir="/var/cache"))
    try:
        prog = canary_python(safe / "bin" / "python3", canary)
        os.chmod(safe, 0o755)
        set_cache(build, "Python3_EXECUTABLE", prog)
        r = lotest.scan(build)
        assert canary.exists() and verdicts(r) == verdicts(told), r
        canary.unlink()

        unsafe = {
            "belongs to another user": lambda: os.chown(prog, pwd.getpwnam("nobody").pw_uid, -1),
            "may be written by every user": lambda: os.chmod(safe / "bin", 0o777),
            "may be written by a group of other users":
                lambda: (os.chown(safe / "bin", -1, grp.getgrnam("nogroup").gr_gid),
                         os.chmod(safe / "bin", 0o775)),
        }
        for why, make in unsafe.items():
            make()
            r = lotest.scan(build)
            assert not canary.exists(), (why, r)
            said = [x["detail"] for x in r.reasons(LIVE, "no-host")]
            assert len(said) == 1 and why in said[0], (why, said)
            os.chown(prog, 0, 0)
            os.chown(safe / "bin", 0, 0)
            os.chmod(safe / "bin", 0o755)

        # a link in a safe place to a program under /tmp: where it leads counts too
        link = safe / "bin" / "python3-link"
        os.symlink(canary_python(d / "tmp-python3", canary), link)
        set_cache(build, "Python3_EXECUTABLE", link)
        r = lotest.scan(build)
        assert not canary.exists(), r
        said = [x["detail"] for x in r.reasons(LIVE, "no-host")]
        assert len(said) == 1 and "may be written by every user" in said[0], said
    finally:
        shutil.rmtree(safe, ignore_errors=True)


def test_a_pyenv_shim_on_path_is_read_not_run():
    """pyenv's shim on PATH gives the program running it would give, read
    from pyenv's files: no shell starts (strace), and the answer is the one
    `python3 -c 'import sys; print(sys.executable)'` prints, for the global
    version, PYENV_VERSION and a .python-version."""
    work = lotest.workdir("trust-pyenv")
    canary = work / "CANARY"
    root = work / "pyenv"
    for v in ("9.8", "9.9"):
        (root / "versions" / v / "bin").mkdir(parents=True)
        os.symlink(REAL, root / "versions" / v / "bin" / "python3")
    (root / "version").write_text("9.9\n")
    shim = pyenv_shim(root / "shims" / "python3", root, canary)
    tree = work / "tree"
    lotest.cc(tree / ("m" + SUFFIX), "int PyInit_m(void) { return 0; }\n")
    env = {"PATH": "%s:%s" % (shim.parent, os.environ["PATH"])}
    r = lotest.scan(tree, env=env)
    assert not canary.exists(), r
    assert r.file("m" + SUFFIX)["host"] == str(root / "versions" / "9.9" / "bin" / "python3"), r
    assert [n for n in r.doc["notes"] if "pyenv shim" in n and "/version)" in n], r.doc["notes"]
    r = lotest.scan(tree, env=dict(env, PYENV_VERSION="9.8"))
    assert r.file("m" + SUFFIX)["host"] == str(root / "versions" / "9.8" / "bin" / "python3"), r
    (work / "here").mkdir()
    (work / "here" / ".python-version").write_text("# a comment\n9.8\n")
    r = lotest.scan(tree, env=dict(env, PYENV_DIR=str(work / "here")))
    assert r.file("m" + SUFFIX)["host"] == str(root / "versions" / "9.8" / "bin" / "python3"), r
    # "system": the next python3 on PATH after the shims
    (work / "system").mkdir()
    os.symlink(REAL, work / "system" / "python3")
    r = lotest.scan(tree, env=dict(env, PYENV_VERSION="system",
                                   PATH="%s:%s" % (shim.parent, work / "system")))
    assert r.file("m" + SUFFIX)["host"] == str(work / "system" / "python3"), r
    # an empty .python-version selects nothing: "system" too, not the global version
    (work / "here" / ".python-version").write_text("")
    r = lotest.scan(tree, env=dict(env, PYENV_DIR=str(work / "here"),
                                   PATH="%s:%s" % (shim.parent, work / "system")))
    assert r.file("m" + SUFFIX)["host"] == str(work / "system" / "python3"), r
    # pyenv's "python-" prefix is dropped, as pyenv-version-name does
    r = lotest.scan(tree, env=dict(env, PYENV_VERSION="python-9.8"))
    assert r.file("m" + SUFFIX)["host"] == str(root / "versions" / "9.8" / "bin" / "python3"), r
    assert not canary.exists()
    # a version pyenv would widen as a prefix ("9" for the latest 9.x): its files do
    # not say, and the shim (the user's own, on PATH) is run, as before
    r = lotest.scan(tree, env=dict(env, PYENV_VERSION="9"))
    assert canary.exists(), r
    canary.unlink()

    # the machine's own pyenv, where there is one: the same answer as running it
    real_shim = shutil.which("python3")
    if not real_shim or "/shims/" not in real_shim:
        return
    strace = lotest.need("strace", "strace")
    # LeakSanitizer cannot work under ptrace (lotest.traced_scan)
    asan = (os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    for extra in ({}, {"PYENV_VERSION": "system"}):
        e = dict(extra)
        want = lotest.run(["python3", "-c", "import sys; print(sys.executable)"],
                          env=e).stdout.strip()
        trace = work / ("trace" + str(len(extra)))
        p = lotest.run([strace, "-f", "-qq", "-e", "trace=execve", "-o", trace, lotest.LEFTOVER,
                        "scan", "--format", "json", tree], env=dict(e, ASAN_OPTIONS=asan),
                       check=False)
        assert p.returncode in (0, 1), p
        hosts = {f["host"] for f in json.loads(p.stdout)["files"]}
        assert hosts == {want}, (hosts, want, extra)
        ran = [l for l in trace.read_text().splitlines() if "execve(" in l]
        assert not [l for l in ran if "bash" in l or "/shims/" in l or "libexec" in l], ran


# leftover's own directory in a tree, as the clean module's header names it
STATE_DIR = re.search(r'#define LO_CLEAN_DIR "([^"]+)"', "".join(
    h.read_text() for h in sorted((lotest.SOURCE_DIR / "auditor").glob("*/**/clean*.h")))).group(1)


def test_leftovers_own_directory_and_the_records_cannot_lead_out_of_the_tree():
    """The quarantine and state directory is created 0700 and refused when
    another user owns it or it is a link; restore follows no link planted in
    a quarantine set; records naming paths outside the tree (../, absolute,
    ../../etc/passwd) make nothing outside reported, moved or written."""
    d, src, build, canary = fixture("trust-state")
    state = build / STATE_DIR
    outside = d / "outside"
    outside.mkdir()

    shutil.rmtree(state, ignore_errors=True)
    state.mkdir()
    os.chown(state, pwd.getpwnam("nobody").pw_uid, -1)
    p = lotest.leftover("clean", build)
    assert p.returncode == 2 and "belongs to another user" in p.stderr, p
    assert (build / STALE).exists(), p
    shutil.rmtree(state)

    state.symlink_to(outside)
    p = lotest.leftover("clean", build)
    assert p.returncode == 2 and "is a link" in p.stderr, p
    r = lotest.scan(build)
    assert r.rc == 1, r
    assert (build / STALE).exists() and not list(outside.iterdir()), list(outside.iterdir())
    state.unlink()

    p = lotest.leftover("clean", build)
    assert p.returncode == 0 and not (build / STALE).exists(), p
    assert stat.S_IMODE(state.stat().st_mode) == 0o700, oct(state.stat().st_mode)
    # a link planted in the set, to a directory outside holding the same path
    sets = list((state / "quarantine").iterdir())
    assert len(sets) == 1, sets
    top = sets[0] / STALE.split("/")[0]
    shutil.move(top, outside / top.name)
    top.symlink_to(outside / top.name)
    p = lotest.leftover("restore", build)
    assert p.returncode == 1 and not (build / STALE).exists(), p
    assert (outside / STALE).exists(), p
    top.unlink()
    shutil.move(outside / top.name, top)
    p = lotest.leftover("restore", build)
    assert p.returncode == 0 and (build / STALE).exists(), p

    # records naming files outside the tree give no evidence about them
    lib = shutil.copy(build / CAPI, outside / "libgone.so")
    passwd = os.stat("/etc/passwd")
    with open(build / ".ninja_log", "a") as log:
        for path in ("../outside/libgone.so", str(outside / "libgone.so"),
                     "../../../../../../../../etc/passwd"):
            log.write("1\t2\t1700000000000000000\t%s\tdeadbeef\n" % path)
    r = lotest.scan(build, args=("--all",))
    assert not [f for f in r.files if f.startswith("/") or ".." in f.split("/")], r.files
    p = lotest.leftover("clean", build)
    assert os.path.exists(lib) and os.stat("/etc/passwd") == passwd, p
    assert not canary.exists()


if __name__ == "__main__":
    lotest.main(globals())
