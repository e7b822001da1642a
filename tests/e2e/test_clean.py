"""leftover clean and restore on real build trees (issue 4).

The two-branch fixture: after `clean --broken` the package imports; after
`restore` the module is back byte-identical (SHA-256, mode, mtime) and the
import fails again. Then the safety rules, each on a tree with a real
broken shared object (it needs a symbol no library provides): symlinks
that lead out of the root, a directory swapped for a symlink by a second
process between the scan and the moves, a second clean while the lock is
held. Whatever lies outside the root is fingerprinted before and after.
"""
import fcntl
import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import time
from pathlib import Path

import lotest

BROKEN_C = "extern int no_library_has_this(void);\nint f(void) { return no_library_has_this(); }\n"
OK_C = "int g(void) { return 1; }\n"


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def identity(path):
    """What restore must bring back: bytes, mode, mtime (ns)."""
    st = os.lstat(path)
    return (sha256(path), st.st_mode, st.st_mtime_ns)


def fingerprint(top):
    """Every name, type, mode, size, mtime, link text and digest under top."""
    out = []
    for dirpath, dirs, files in os.walk(top, followlinks=False):
        for name in sorted(dirs + files):
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            link = os.readlink(p) if os.path.islink(p) else ""
            digest = sha256(p) if os.path.isfile(p) and not os.path.islink(p) else ""
            out.append((os.path.relpath(p, top), st.st_mode, st.st_size, st.st_mtime_ns, link, digest))
    st = os.lstat(top)
    return sorted(out) + [(".", st.st_mode, st.st_mtime_ns)]


def broken_tree(d):
    """A build dir with one .so that would not load and one that would."""
    build = d / "build"
    lotest.cc(build / "lib" / "libbroken.so", BROKEN_C)
    lotest.cc(build / "lib" / "libok.so", OK_C)
    for p in (build / "lib").glob("*.c"):
        p.unlink()
    return build


# ---- the two-branch fixture ----------------------------------------------------

PKG = "python_packages/mlir/_mlir_libs"


def import_package(build):
    return lotest.run([lotest.PYTHON, "-c", "import mlir._mlir_libs as m; print(m.registered_passes)"],
                      env={"PYTHONPATH": str(build / "python_packages")}, check=False)


def test_twobranch_clean_then_restore():
    d = lotest.workdir("clean-twobranch")
    src, build = d / "src", d / "build"
    lotest.run(["sh", lotest.FIXTURES / "twobranch" / "make-repo.sh", src])
    lotest.cmake_build(src, build)
    lotest.git(src, "checkout", "-q", "branch-b")
    lotest.cmake_build(src, build)
    soabi = lotest.run([lotest.PYTHON, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"]).stdout.strip()
    stale = build / PKG / ("_mlirRegisterEverything" + soabi)
    before = identity(stale)
    assert import_package(build).returncode != 0

    # broken until the build system is consulted, stale after: either way it goes
    r = lotest.leftover("clean", "--broken", build)
    assert r.returncode == 0, r
    assert "moved 1 file" in r.stdout and "undo with: leftover restore" in r.stdout, r.stdout
    assert not stale.exists()
    # branch-b has no registration module: the package imports and registers none
    p = import_package(build)
    assert p.returncode == 0 and p.stdout.strip() == "0", (p.stdout, p.stderr)
    assert lotest.scan(build).rc == 0

    r = lotest.leftover("restore", build)
    assert r.returncode == 0, r
    assert identity(stale) == before
    p = import_package(build)
    assert p.returncode != 0 and "mlirRegisterAllPasses" in p.stderr, p.stderr
    assert lotest.leftover("restore", "--list", build).stdout == ""


# ---- basic contract ----------------------------------------------------------

def test_dry_run_changes_nothing_and_broken_needs_flag():
    d = lotest.workdir("clean-dry")
    build = broken_tree(d)
    fp = fingerprint(d)
    r = lotest.leftover("clean", "--dry-run", "--broken", build)
    assert r.returncode == 1, r  # the broken file is still there
    assert "would move lib/libbroken.so" in r.stdout, r.stdout
    assert fingerprint(d) == fp
    r = lotest.leftover("clean", "--dry-run", "--broken", "--format", "json", build)
    doc = json.loads(r.stdout)
    assert doc["dry_run"] is True and doc["stamp"] is None, doc
    assert [(a["path"], a["verdict"], a["status"]) for a in doc["actions"]] == \
        [("lib/libbroken.so", "broken", "planned")], doc
    assert doc["summary"]["done"] == 0 and doc["actions"][0]["size"] > 0, doc
    assert fingerprint(d) == fp
    # without --broken nothing that is still built is touched, and it says so
    r = lotest.leftover("clean", build)
    assert r.returncode == 1, r
    assert "1 broken file left in place" in r.stdout, r.stdout
    assert (build / "lib" / "libbroken.so").exists()
    r = lotest.leftover("clean", "--broken", "--fail-on", "never", "--delete", build)
    assert r.returncode == 0, r
    assert not (build / "lib" / "libbroken.so").exists()
    assert (build / "lib" / "libok.so").exists()
    assert lotest.leftover("restore", build).returncode == 2  # nothing to restore after --delete


def test_usage_errors():
    r = lotest.leftover("clean")
    assert r.returncode == 2 and "usage" in r.stderr, r
    r = lotest.leftover("clean", "--fail-on", "sometimes", "x")
    assert r.returncode == 2 and "--fail-on" in r.stderr, r
    r = lotest.leftover("restore", lotest.workdir("clean-usage"))
    assert r.returncode == 2 and "nothing to restore" in r.stderr, r
    assert lotest.leftover("clean", "--help").returncode == 0
    assert lotest.leftover("restore", "--help").returncode == 0


# ---- rule actions ----------------------------------------------------------------

RULES = """[rule "vendored"]
	match = keep/**
	action = keep
[rule "scratch"]
	match = del/**
	action = delete
[rule "plugins"]
	match = q/**
	on = broken
	action = quarantine
"""


def test_rule_actions_keep_delete_quarantine():
    d = lotest.workdir("clean-rules")
    build = d / "build"
    for sub in ("keep", "del", "q", "plain"):
        lotest.cc(build / sub / ("lib%s.so" % sub), BROKEN_C)
        for c in (build / sub).glob("*.c"):
            c.unlink()
    # the build tree's own rule layer, beside the quarantine (.leftover.d)
    (build / ".leftover").mkdir()
    (build / ".leftover" / "rules").write_text(RULES)
    r = lotest.leftover("clean", "--verbose", "--junit", d / "j.xml", build)
    assert r.returncode == 1, r  # plain/ is broken, no rule, no --broken: still there
    assert (build / "keep" / "libkeep.so").exists() and (build / "plain" / "libplain.so").exists()
    assert not (build / "del").exists() and not (build / "q").exists()
    assert "kept keep/libkeep.so: a rule says keep" in r.stdout, r.stdout
    assert "deleted 1 file" in r.stdout and "moved 1 file" in r.stdout, r.stdout
    junit = (d / "j.xml").read_text()
    assert 'tests="4" failures="1"' in junit, junit
    (manifest,) = build.glob(".leftover.d/quarantine/*/manifest.json")
    assert [e["path"] for e in json.loads(manifest.read_text())["files"]] == ["q/libq.so"]
    assert (build / ".leftover" / "rules").read_text() == RULES
    # with plain/ gone too the kept file is no finding: exit 0
    r = lotest.leftover("clean", "--broken", build)
    assert r.returncode == 0, r
    assert (build / "keep" / "libkeep.so").exists()
    assert lotest.leftover("restore", build).returncode == 0
    assert lotest.leftover("restore", build).returncode == 0
    assert (build / "q" / "libq.so").exists() and (build / "plain" / "libplain.so").exists()
    assert not (build / "del").exists()


# ---- symlink escapes -----------------------------------------------------------

def test_symlinks_out_of_the_root():
    d = lotest.workdir("clean-symlinks")
    build = broken_tree(d)
    outside = d / "outside"
    lotest.cc(outside / "sub" / "libvictim.so", BROKEN_C)
    lotest.cc(outside / "libtarget.so", BROKEN_C)
    (build / "through").symlink_to(outside / "sub")          # a symlinked directory
    (build / "lib" / "libescape.so").symlink_to(outside / "libtarget.so")  # a link to outside
    fp = fingerprint(outside)
    r = lotest.leftover("clean", "--broken", build)
    assert fingerprint(outside) == fp
    assert not os.path.lexists(build / "lib" / "libbroken.so")
    # the link itself is the finding (reported by its link, target outside):
    # it moved as a link, its target stayed, and restore brings the link back
    assert r.returncode == 0, r
    assert not os.path.lexists(build / "lib" / "libescape.so")
    q = lotest.leftover("restore", build)
    assert q.returncode == 0, q
    assert os.readlink(build / "lib" / "libescape.so") == str(outside / "libtarget.so")
    assert (build / "through").is_symlink()
    assert fingerprint(outside) == fp


def test_directory_swapped_for_symlink_by_second_process():
    d = lotest.workdir("clean-swap")
    build = broken_tree(d)
    outside = d / "outside"
    lotest.cc(outside / "lib" / "libbroken.so", BROKEN_C)  # a look-alike of build/lib
    lotest.cc(outside / "lib" / "libok.so", OK_C)
    fp = fingerprint(outside)
    pause = d / "pause"
    p = subprocess.Popen([lotest.LEFTOVER, "clean", "--broken", str(build)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, LEFTOVER_TEST_CLEAN_PAUSE=str(pause)))
    deadline = time.time() + 60
    while not pause.exists():
        assert p.poll() is None and time.time() < deadline, p.communicate()
        time.sleep(0.01)
    # scanned and planned; now the directory becomes a symlink out of the root
    os.rename(build / "lib", d / "lib.orig")
    (build / "lib").symlink_to(outside / "lib")
    pause.unlink()
    out, err = p.communicate(timeout=60)
    assert p.returncode == 1, (out, err)
    assert "became a symlink" in err, err
    assert fingerprint(outside) == fp
    assert (d / "lib.orig" / "libbroken.so").exists()


# ---- Ctrl-C ------------------------------------------------------------------------

def test_sigint_stops_between_files_and_says_how_to_undo():
    d = lotest.workdir("clean-sigint")
    build = d / "build"
    proto = lotest.cc(d / "proto" / "libproto.so", BROKEN_C).read_bytes()
    for i in range(200):
        (build / "m").mkdir(parents=True, exist_ok=True)
        (build / "m" / ("lib%03d.so" % i)).write_bytes(proto + b"%d" % i)
    p = subprocess.Popen([lotest.LEFTOVER, "clean", "--broken", str(build)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, LEFTOVER_TEST_CLEAN_DELAY_MS="5"))
    deadline = time.time() + 60
    while not list(build.glob(".leftover.d/quarantine/*/m/*.so")):
        assert p.poll() is None and time.time() < deadline, p.communicate()
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 1, (out, err)
    left = len(list((build / "m").glob("*.so")))
    assert 0 < left < 200, left
    # one file, or 199, when the signal comes right after the first move (seen under ASan)
    assert "interrupted: %d file%s left in place" % (left, "" if left == 1 else "s") in out, out
    assert "undo with: leftover restore" in out, out
    r = lotest.leftover("restore", build)
    moved = 200 - left
    assert r.returncode == 0 and "restored %d file%s from" % (moved, "" if moved == 1 else "s") \
        in r.stdout, r
    assert len(list((build / "m").glob("*.so"))) == 200


# ---- a full disk ------------------------------------------------------------------

def test_manifest_that_cannot_be_written_moves_nothing():
    d = lotest.workdir("clean-full")
    build = broken_tree(d)
    fp = fingerprint(build)

    def small_files():
        # writes past 300 bytes fail (EFBIG) as on a full disk, without a signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (300, 300))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    p = subprocess.run([lotest.LEFTOVER, "clean", "--broken", str(build)], capture_output=True,
                       text=True, preexec_fn=small_files)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "manifest.json" in p.stderr, p.stderr
    assert (build / "lib" / "libbroken.so").exists()
    # the half-made set was taken away again
    assert not list((build / ".leftover.d" / "quarantine").iterdir())
    shutil.rmtree(build / ".leftover.d")
    # (the root's own mtime, last in the list, changed with .leftover.d)
    assert fingerprint(build)[:-1] == fp[:-1]


# ---- the lock ------------------------------------------------------------------

def test_second_clean_fails_or_waits_on_the_lock():
    d = lotest.workdir("clean-lock")
    build = broken_tree(d)
    (build / ".leftover.d").mkdir()
    with open(build / ".leftover.d" / "lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write("%d\n" % os.getpid())
        held.flush()
        r = lotest.leftover("clean", "--broken", build)
        assert r.returncode == 2, r
        assert "another leftover clean" in r.stderr and str(os.getpid()) in r.stderr, r.stderr
        assert (build / "lib" / "libbroken.so").exists()
        waiter = subprocess.Popen([lotest.LEFTOVER, "clean", "--wait", "--broken", str(build)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        assert waiter.poll() is None, waiter.communicate()
        assert (build / "lib" / "libbroken.so").exists()
    out, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 0, (out, err)
    assert not (build / "lib" / "libbroken.so").exists()


def test_second_clean_waiting_scans_what_the_first_left():
    """Two `clean --wait` at once (leftover_add_audit's target and test, ctest -j):
    the second waits before its scan, finds nothing left, exit 0. It used to
    scan first, then plan files the first had moved: 'could not be cleaned', exit 1."""
    d = lotest.workdir("clean-two-at-once")
    build = d / "build"
    proto = lotest.cc(d / "proto" / "libproto.so", BROKEN_C).read_bytes()
    (build / "m").mkdir(parents=True)
    for i in range(4):
        (build / "m" / ("lib%d.so" % i)).write_bytes(proto + b"%d" % i)
    lotest.cc(build / "m" / "libok.so", OK_C)
    (build / "m" / "libok_so.c").unlink()
    want = {p.name: sha256(p) for p in (build / "m").iterdir()}
    first = subprocess.Popen([lotest.LEFTOVER, "clean", "--broken", str(build)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, LEFTOVER_TEST_CLEAN_DELAY_MS="300"))
    deadline = time.time() + 60
    while not list(build.glob(".leftover.d/quarantine/*/manifest.json")):  # it holds the lock
        assert first.poll() is None and time.time() < deadline, first.communicate()
        time.sleep(0.01)
    second = subprocess.Popen([lotest.LEFTOVER, "clean", "--wait", "--broken", str(build)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_blocked_on_lock(second)
    out1, err1 = first.communicate(timeout=60)
    out2, err2 = second.communicate(timeout=60)
    assert first.returncode == 0 and "moved 4 files" in out1, (out1, err1)
    assert second.returncode == 0 and out2 == "nothing to clean\n" and err2 == "", (out2, err2)
    (s,) = build.glob(".leftover.d/quarantine/*")
    assert sorted(e["path"] for e in json.loads((s / "manifest.json").read_text())["files"]) == \
        ["m/lib%d.so" % i for i in range(4)]
    assert lotest.leftover("restore", build).returncode == 0
    assert {p.name: sha256(p) for p in (build / "m").iterdir()} == want


def wait_blocked_on_lock(p):
    """Until p waits for a file lock: /proc/locks lists it as a blocked request ("->")."""
    deadline = time.time() + 120
    while not any(l.split()[1:2] == ["->"] and l.split()[5:6] == [str(p.pid)]
                  for l in Path("/proc/locks").read_text().splitlines()):
        assert p.poll() is None and time.time() < deadline, p.communicate()
        time.sleep(0.01)


def test_ctrl_c_gives_up_waiting_for_the_lock():
    """Ctrl-C while `--wait` waits: the run ends at once, saying so, exit 2.
    (It was retried as any EINTR: the wait went on until the lock came free.)"""
    d = lotest.workdir("clean-lock-sigint")
    build = broken_tree(d)
    r = lotest.leftover("clean", "--broken", build)
    assert r.returncode == 0, r
    (copy,) = build.glob(".leftover.d/quarantine/*/lib/libbroken.so")
    lotest.cc(build / "lib" / "libbroken.so", BROKEN_C)  # built again
    (build / "lib" / "libbroken_so.c").unlink()
    fp = fingerprint(build)
    with open(build / ".leftover.d" / "lock", "r+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        for cmd in (["clean", "--wait", "--broken"], ["restore", "--wait"]):
            p = subprocess.Popen([lotest.LEFTOVER] + cmd + [str(build)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            wait_blocked_on_lock(p)
            p.send_signal(signal.SIGINT)
            try:
                out, err = p.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                raise AssertionError("%s went on waiting after Ctrl-C: %r" % (cmd[0], p.communicate()))
            assert p.returncode == 2, (cmd, out, err)
            assert "interrupted while waiting" in err and str(build) in err, (cmd, err)
    assert fingerprint(build) == fp
    assert copy.exists()


if __name__ == "__main__":
    lotest.main(globals())
