"""Faults during the run (issue 7, item 4): nothing is lost, everything is said.

The real `leftover` binary runs with tests/faults/inject.c preloaded, which
plays the other process (or the flaky file system) at a chosen call: a file
removed, replaced or truncated between the walk and the read, or after it
is mapped; a directory that turns unreadable during the walk or fails part
way through its listing; EINTR from open, read, readdir, fsync, write and
rename. Each test first asserts that its fault fired, then what a user sees:
the file or directory named in a finding or a message, the exit status
(0 clean, 1 findings or a file left, 2 the run could not be done), and no
bytes lost. The full-disk manifest and the held lock are in test_clean.py.
"""
import hashlib
import json
import os
import shutil
from pathlib import Path

import lotest

INJECT = os.environ.get("LEFTOVER_FAULTS_LIB", "")
BROKEN_C = "extern int no_library_has_this(void);\nint f(void) { return no_library_has_this(); }\n"
OK_C = "int g(void) { return 1; }\n"


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class Faults:
    """The environment that makes the tool meet `rules` (see inject.c), and what fired."""

    def __init__(self, d, *rules):
        assert INJECT and os.path.exists(INJECT), "LEFTOVER_FAULTS_LIB=%r: build leftover_faults" % INJECT
        self.log = Path(d) / "faults.log"
        self.log.write_text("")
        os.chmod(self.log, 0o666)  # also for a run as nobody
        asan = os.environ.get("ASAN_OPTIONS")
        self.env = {"LD_PRELOAD": INJECT, "LEFTOVER_FAULTS": "; ".join(rules),
                    "LEFTOVER_FAULTS_LOG": str(self.log),
                    # the injector is preloaded ahead of an ASan runtime on purpose
                    "ASAN_OPTIONS": (asan + ":" if asan else "") + "verify_asan_link_order=0"}

    def fired(self):
        return self.log.read_text().splitlines()


def objects(d):
    """One broken and one good shared object under d/objs, compiled once per test."""
    objs = d / "objs"
    broken = lotest.cc(objs / "libbroken.so", BROKEN_C)
    ok = lotest.cc(objs / "libok.so", OK_C)
    return broken, ok


def tree(d, *subdirs):
    """d/build with lib/libbroken.so, lib/libok.so and, per subdir, three good objects."""
    broken, ok = objects(d)
    build = d / "build"
    (build / "lib").mkdir(parents=True)
    shutil.copy2(broken, build / "lib" / "libbroken.so")
    shutil.copy2(ok, build / "lib" / "libok.so")
    for sub in subdirs:
        (build / sub).mkdir(parents=True)
        for i in range(3):
            shutil.copy2(ok, build / sub / ("libdeep%d.so" % i))
    return build


def spare(d, src, name):
    """A copy of src next to the tree, for a fault to rename over a file."""
    p = d / name
    shutil.copy2(src, p)
    return p


def assert_no_crash(r):
    assert r.doc is not None and r.rc in (0, 1), r
    assert "Sanitizer" not in r.stderr, r.stderr


def scan_broken_unreadable(d, build, call, action):
    """Scan with one fault on lib/libbroken.so's `call`; it must fire once,
    leave that file unreadable and lib/libok.so judged as usual. Returns the
    reason's detail."""
    broken = build / "lib" / "libbroken.so"
    f = Faults(d, "on=%s path=*/build/lib/libbroken.so do=%s" % (call, action))
    r = lotest.scan(build, env=f.env)
    assert f.fired() == ["%s %s %s" % (call, broken, action.split(":")[0])], f.fired()
    assert_no_crash(r)
    assert r.rc == 1, r
    assert r.file("lib/libbroken.so")["verdict"] == "unreadable", r.file("lib/libbroken.so")
    (why,) = r.reasons("lib/libbroken.so", "unreadable")
    assert "libbroken.so" in why["detail"], why
    assert r.file("lib/libok.so")["verdict"] == "ok"
    return why["detail"]


# ---- between the walk and the read ----------------------------------------

def test_file_removed_between_walk_and_read():
    d = lotest.workdir("faults-removed")
    build = tree(d)
    # the resolver's first look at the file by name, its open, comes after the walk listed it
    why = scan_broken_unreadable(d, build, "open", "unlink")
    assert "No such file" in why, why
    # judged, not kept from the first scan's cache (nothing libok.so's verdict read changed)
    t = lotest.leftover("scan", "--no-cache", build,
                        env=Faults(d, "on=open path=*/lib/libok.so do=unlink").env)
    assert t.returncode == 1 and "lib/libok.so" in t.stdout and "No such file" in t.stdout, t


def test_file_replaced_between_walk_and_read_is_judged_as_read():
    d = lotest.workdir("faults-replaced")
    build = tree(d)
    _, ok = objects(d)
    # before the first look, its open; after it, the descriptor reads the file it opened
    good = spare(d, ok, "replacement.so")
    f = Faults(d, "on=open path=*/build/lib/libbroken.so do=replace:%s" % good)
    r = lotest.scan(build, env=f.env)
    assert len(f.fired()) == 1, f.fired()
    assert_no_crash(r)
    # the verdict is about the bytes that were read, whole: the good replacement
    assert r.rc == 0, r
    assert r.file("lib/libbroken.so")["verdict"] == "ok", r.file("lib/libbroken.so")
    assert sha256(build / "lib" / "libbroken.so") == sha256(ok)


def test_file_truncated_between_walk_and_read():
    d = lotest.workdir("faults-truncated")
    build = tree(d)
    size = (build / "lib" / "libbroken.so").stat().st_size
    # empty, inside the ELF header, and after the headers with the section table
    # gone; the loader refuses each ("file too short", "not an ELF file" does not apply)
    says = {0: "file too short", 2: "file too short", 16: "", 4096: "past the end of the file"}
    for cut in (0, 2, 16, 4096):
        assert cut < size
        f = Faults(d, "on=open path=*/build/lib/libbroken.so do=truncate:%d" % cut)
        r = lotest.scan(build, env=f.env)
        assert len(f.fired()) == 1, f.fired()
        assert_no_crash(r)
        assert (build / "lib" / "libbroken.so").stat().st_size == cut
        assert r.rc == 1, (cut, r)
        cutf = r.file("lib/libbroken.so")
        assert cutf["verdict"] == "unreadable", (cut, cutf)
        (why,) = r.reasons("lib/libbroken.so", "unreadable")
        assert "libbroken.so" in why["detail"], why
        assert says[cut] in why["detail"], (cut, why)
        assert r.file("lib/libok.so")["verdict"] == "ok"
        shutil.copy2(d / "objs" / "libbroken.so", build / "lib" / "libbroken.so")


def test_file_cut_between_its_stat_and_its_read():
    """A small candidate is read whole, with one pread after its fstat
    (elf.h, lo_elf_open_private), into a buffer that still holds the file
    read before it. Cut before that read, it is reported as unreadable,
    never judged from what the buffer holds: the short read says so, and
    so does the fstat after the read."""
    d = lotest.workdir("faults-cut-read")
    scan_broken_unreadable(d, tree(d), "pread", "truncate:4096")


def test_file_truncated_after_it_is_mapped():
    """The tables of the file are mapped; the file shrinks under the mapping.

    Reading a page past the new end raises SIGBUS: the scan must not die of
    it but report the file. A candidate with small tables is read into its
    judge's buffer instead (resolve.h, lo_resolver_read_own): this one's
    12,000 symbols make tables over the 256 KiB that takes, so it is mapped.
    """
    d = lotest.workdir("faults-truncated-mapped")
    build = tree(d)
    many = "".join("int f%05d(void) { return %d; }\n" % (i, i) for i in range(12000))
    lotest.cc(build / "lib" / "libbroken.so", BROKEN_C + many)
    f = Faults(d, "on=mmap path=*/build/lib/libbroken.so do=truncate:64")
    r = lotest.scan(build, env=f.env)
    assert f.fired() == ["mmap %s truncate" % (build / "lib" / "libbroken.so")], f.fired()
    assert r.rc in (0, 1) and r.doc is not None, "the scan died (SIGBUS is -7/135): %r" % r
    assert "Sanitizer" not in r.stderr, r.stderr
    assert r.rc == 1, r
    cutf = r.file("lib/libbroken.so")
    assert cutf["verdict"] == "unreadable", cutf
    assert "libbroken.so" in r.reasons("lib/libbroken.so", "unreadable")[0]["detail"], cutf
    assert r.file("lib/libok.so")["verdict"] == "ok"


# ---- directories ------------------------------------------------------------

def test_directory_turns_unreadable_during_the_walk():
    """A real EACCES: as nobody, the directory loses its mode after its parent listed it."""
    d = lotest.workdir("faults-dir-eacces")
    build = tree(d, "sub")
    lotest.run(["chown", "-R", "nobody:nogroup", build])
    reach = lotest.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                        "test", "-r", build / "sub" / "libdeep0.so"], check=False)
    assert reach.returncode == 0, "user nobody cannot reach %s: put LEFTOVER_WORK elsewhere" % build
    f = Faults(d, "on=open path=*/build/sub do=chmod:0")
    r = lotest.scan(build, user="nobody", env=f.env)
    assert f.fired() == ["open %s chmod" % (build / "sub")], f.fired()
    assert_no_crash(r)
    assert r.rc == 1, r
    sub = r.file("sub")
    assert sub["verdict"] == "unreadable", sub
    assert "Permission denied" in r.reasons("sub", "unreadable")[0]["detail"], sub
    assert not [p for p in r.files if p.startswith("sub/")], r.files
    assert r.file("lib/libok.so")["verdict"] == "ok" and r.file("lib/libbroken.so")["verdict"] == "broken"
    t = lotest.leftover("scan", build, user="nobody", env=f.env)
    assert t.returncode == 1 and "sub: unreadable" in t.stdout, t


def test_directory_listing_fails_part_way():
    d = lotest.workdir("faults-dir-eio")
    build = tree(d, "sub")
    # one entry comes back, then the listing fails (as getdents does on a bad disk)
    f = Faults(d, "on=readdir path=*/build/sub skip=1 do=fail:EIO")
    r = lotest.scan(build, env=f.env)
    assert f.fired() == ["readdir %s fail" % (build / "sub")], f.fired()
    assert_no_crash(r)
    assert r.rc == 1, r
    assert "Input/output error" in r.reasons("sub", "unreadable")[0]["detail"], r.file("sub")
    listed = [p for p in r.files if p.startswith("sub/")]
    assert len(listed) < 3 and all((build / p).exists() for p in listed), listed
    assert r.file("lib/libok.so")["verdict"] == "ok"


# ---- EINTR in the scan ---------------------------------------------------------

def assert_retried_or_reported(base, r, where):
    """r is the fault-free `base` (the call was retried), or `where` is reported
    unreadable, interrupted, with everything outside it as in `base`."""
    assert_no_crash(r)
    if r.files == base.files:
        assert r.rc == base.rc, r
        return
    f = r.file(where)
    assert f["verdict"] == "unreadable", f
    assert "Interrupted system call" in r.reasons(where, "unreadable")[0]["detail"], f
    assert r.rc == 1, r
    for p, want in base.files.items():
        if p != where and not p.startswith(where + "/"):
            assert r.files.get(p) == want, (p, r.files.get(p), want)


def test_eintr_in_the_scan_is_retried_or_reported():
    d = lotest.workdir("faults-eintr-scan")
    build = tree(d)
    base = lotest.scan(build)
    assert base.rc == 1 and len(base.files) == 2, base
    for rule, where in (("on=readdir path=*/build/lib", "lib"),
                        ("on=open path=*/build/lib/libok.so", "lib/libok.so"),
                        ("on=pread path=*/build/lib/libok.so", "lib/libok.so")):
        f = Faults(d, rule + " do=fail:EINTR")
        # judged afresh: a scan answered from the verdict cache reads nothing
        r = lotest.scan(build, args=["--no-cache"], env=f.env)
        assert len(f.fired()) == 1, (rule, f.fired())
        assert_retried_or_reported(base, r, where)


# ---- between the scan and the move ------------------------------------------------

def test_clean_leaves_alone_a_file_changed_after_the_scan():
    """The verdict is about the bytes the scan read. A file replaced or
    rewritten after that, before the clean plans, after it plans, or in the
    instant between the last check and the rename, is left in place as it
    now is, said so, exit 1; before, the first case went into the
    quarantine under the old file's verdict and reasons, exit 0."""
    # the file is stat'ed by name: by the scan (1: a load that failed
    # checks its files did not change under it; the read itself opens the
    # file and looks at the descriptor; 2: its host, which no one named, is
    # looked for among the libraries beside it, itself listed), the plan
    # (3), the move
    cases = [
        ("replaced before the plan", "on=stat path={file} skip=2 do=replace:{new}"),
        ("rewritten before the plan", "on=stat path={file} skip=2 do=truncate:4096"),
        ("replaced after the plan", "on=stat path={file} skip=3 do=replace:{new}"),
        ("replaced at the move", "on=rename path={file} do=replace:{new}"),
    ]
    for i, (when, rule) in enumerate(cases):
        d = lotest.workdir("faults-changed-%d" % i)
        build = tree(d)
        file = build / "lib" / "libbroken.so"
        new = spare(d, d / "objs" / "libok.so", "new.so")
        expect = sha256(new) if "replaced" in when else \
            hashlib.sha256(file.read_bytes()[:4096]).hexdigest()
        f = Faults(d, rule.format(new=new, file=file))
        r = lotest.leftover("clean", "--broken", build, env=f.env)
        assert len(f.fired()) == 1, (when, f.fired())
        assert r.returncode == 1, (when, r)
        assert "left 'lib/libbroken.so' alone" in r.stderr, (when, r)
        assert "could not be cleaned" in r.stdout and "moved" not in r.stdout, (when, r)
        assert sha256(file) == expect, when
        assert not list(build.glob(".leftover.d/quarantine/*/lib/*")), when
        # a later restore leaves the file as it is
        lotest.leftover("restore", build)
        assert sha256(file) == expect, when
        assert sha256(build / "lib" / "libok.so") == sha256(d / "objs" / "libok.so")

    # removed by someone else in between: said, nothing to lose
    d = lotest.workdir("faults-changed-removed")
    build = tree(d)
    f = Faults(d, "on=stat path=%s skip=1 do=unlink" % (build / "lib" / "libbroken.so"))
    r = lotest.leftover("clean", "--broken", build, env=f.env)
    assert len(f.fired()) == 1, f.fired()
    assert r.returncode == 1 and "'lib/libbroken.so'" in r.stderr and "No such file" in r.stderr, r


# ---- a full disk --------------------------------------------------------------

def identities(build):
    return {p.relative_to(build).as_posix(): (sha256(p), p.stat().st_mode, p.stat().st_mtime_ns)
            for p in build.rglob("*.so") if ".leftover.d" not in p.parts}


def test_disk_full_at_every_step_of_a_clean():
    """A tmpfs the test mounts, with 0, 1, 2, ... inodes left when the clean
    starts: it runs out making .leftover.d, the lock, the quarantine, the set,
    the manifest, then the directories of the moved files. (test_clean.py
    fails the manifest write with RLIMIT_FSIZE; here the disk is full.)
    Before the manifest is down: exit 2, nothing moved; during the moves:
    exit 1, the file that could not go named, and restore, on the same full
    disk, puts back every byte."""
    d = lotest.workdir("faults-full")
    broken, ok = objects(d)
    mnt = d / "mnt"
    mnt.mkdir()
    m = lotest.run(["mount", "-t", "tmpfs", "-o", "size=2m,nr_inodes=200", "leftover-test", mnt],
                   check=False)
    assert m.returncode == 0, "cannot mount a tmpfs (the suite runs as root): %s" % m.stderr
    try:
        build = mnt / "build"
        for sub in ("a", "b"):
            (build / sub).mkdir(parents=True)
            shutil.copy2(broken, build / sub / "libbroken.so")
        shutil.copy2(ok, build / "a" / "libok.so")  # a/ is not emptied by the move
        want = identities(build)
        fill = mnt / "fill"
        fill.mkdir()
        filler = []

        def leave_free(k):
            while os.statvfs(mnt).f_ffree > k:
                filler.append(fill / str(len(filler)))
                filler[-1].touch()
            while os.statvfs(mnt).f_ffree < k:
                filler.pop().unlink()

        seen = []  # (free inodes, exit status, files moved)
        for k in range(20):
            leave_free(k)
            r = lotest.leftover("clean", "--broken", build)
            if r.returncode == 0:  # room enough at last
                seen.append((k, 0, 2))
                assert lotest.leftover("restore", build).returncode == 0
                assert identities(build) == want, k
                break
            assert r.returncode in (1, 2), (k, r)
            assert "No space left on device" in r.stderr, (k, r)
            moved = sorted(p.relative_to(p.parents[1]).as_posix()  # STAMP/a/x.so -> a/x.so
                           for p in build.glob(".leftover.d/quarantine/*/*/*.so"))
            if r.returncode == 2:
                assert not moved and identities(build) == want, (k, r)
            else:
                left = [p for p in ("a/libbroken.so", "b/libbroken.so") if p not in moved]
                assert left, (k, r)
                for p in left:
                    assert "cannot make room for '%s' in the quarantine" % p in r.stderr, (k, r)
                q = lotest.leftover("restore", build)
                assert q.returncode == 0, (k, q)
            seen.append((k, r.returncode, len(moved)))
            assert identities(build) == want, k
            shutil.rmtree(build / ".leftover.d", ignore_errors=True)
        # out of room before the manifest, before any move, after one, then enough
        steps = [(rc, n) for _, rc, n in seen]
        assert steps[-1] == (0, 2) and (2, 0) in steps and (1, 0) in steps and (1, 1) in steps, seen

        # and out of space, not inodes: the manifest cannot be written (the
        # directory and its .gitignore, written by the last clean, stay)
        shutil.rmtree(build / ".leftover.d" / "quarantine")
        leave_free(50)
        with open(fill / "data", "wb") as big:
            try:
                while True:
                    big.write(b"\0" * 65536)
                    big.flush()
            except OSError:
                pass
        r = lotest.leftover("clean", "--broken", build)
        assert r.returncode == 2 and "manifest.json" in r.stderr, r
        assert "No space left on device" in r.stderr, r
        assert identities(build) == want
        assert not list(build.glob(".leftover.d/quarantine/*"))
    finally:
        lotest.run(["umount", "-l", mnt], check=False)


# ---- EINTR in clean and restore -------------------------------------------------

def manifest_of(build):
    (m,) = build.glob(".leftover.d/quarantine/*/manifest.json")
    return json.loads(m.read_text())


def test_eintr_in_clean_and_restore_is_retried():
    """Each call of clean and restore that can meet EINTR (NFS, FUSE, a
    signal while it blocks), interrupted once: the run ends as without it."""
    cases = [
        # clean: the scan looks at the file first (stat, then open), the clean's plan after
        ("clean", "on=stat path=*/build/lib/libbroken.so skip=1"),
        ("clean", "on=open path=*/build/lib/libbroken.so skip=1"),
        ("clean", "on=read path=*/build/lib/libbroken.so"),
        ("clean", "on=open path=*/build/.leftover.d/quarantine"),
        ("clean", "on=fsync path=*/build/.leftover.d/quarantine"),
        ("clean", "on=open path=*/build/.leftover.d/quarantine/*/manifest.json.tmp"),
        ("clean", "on=write path=*/build/.leftover.d/quarantine/*/manifest.json.tmp"),
        ("clean", "on=fsync path=*/build/.leftover.d/quarantine/*/manifest.json.tmp"),
        ("clean", "on=rename path=*/build/.leftover.d/quarantine/*/manifest.json.tmp"),
        ("clean", "on=rename path=*/build/lib/libbroken.so"),
        ("delete", "on=unlink path=*/build/lib/libbroken.so"),
        ("restore", "on=readdir path=*/build/.leftover.d/quarantine"),
        ("restore", "on=open path=*/build/.leftover.d/quarantine/*/manifest.json"),
        ("restore", "on=read path=*/build/.leftover.d/quarantine/*/manifest.json"),
        ("restore", "on=stat path=*/build/.leftover.d/quarantine/*/lib/libbroken.so"),
        ("restore", "on=rename path=*/build/.leftover.d/quarantine/*/lib/libbroken.so"),
    ]
    for i, (what, rule) in enumerate(cases):
        d = lotest.workdir("faults-eintr-clean-%02d" % i)
        build = tree(d)
        want = sha256(build / "lib" / "libbroken.so")
        f = Faults(d, rule + " do=fail:EINTR")
        faulty = f.env if what != "restore" else None
        args = ["--delete"] if what == "delete" else []
        r = lotest.leftover("clean", "--broken", *args, build, env=faulty)
        assert r.returncode == 0, (rule, r)
        assert not (build / "lib" / "libbroken.so").exists(), rule
        if what == "delete":
            assert "deleted 1 file" in r.stdout and f.fired(), (rule, r, f.fired())
            continue
        assert "moved 1 file" in r.stdout, (rule, r)
        assert [e["sha256"] for e in manifest_of(build)["files"]] == [want], rule
        r = lotest.leftover("restore", build, env=f.env if what == "restore" else None)
        assert len(f.fired()) == 1, (rule, f.fired())
        assert r.returncode == 0 and "restored 1 file" in r.stdout, (rule, r)
        assert sha256(build / "lib" / "libbroken.so") == want, rule


# ---- restore --------------------------------------------------------------------

def quarantined(d):
    """tree(d) after `clean --broken`: (build, the copy of lib/libbroken.so in its set)."""
    build = tree(d)
    r = lotest.leftover("clean", "--broken", build)
    assert r.returncode == 0, r
    (copy,) = build.glob(".leftover.d/quarantine/*/lib/libbroken.so")
    return build, copy


def test_restore_keeps_a_copy_it_cannot_look_at():
    """A file rebuilt since the clean, and a look into the set that fails.

    Only "no such file" means the copy is not in the set; taking EIO or
    EINTR for it counted the rebuilt file as "already in place" and removed
    the set with the copy in it.
    """
    for err in ("EIO", "EINTR"):
        d = lotest.workdir("faults-restore-" + err)
        build, copy = quarantined(d)
        want = sha256(copy)
        shutil.copy2(d / "objs" / "libok.so", build / "lib" / "libbroken.so")  # rebuilt
        f = Faults(d, "on=stat path=*/.leftover.d/quarantine/*/lib/libbroken.so do=fail:" + err)
        r = lotest.leftover("restore", build, env=f.env)
        assert f.fired() == ["stat %s fail" % copy], f.fired()
        assert r.returncode == 1, (err, r)
        assert "lib/libbroken.so" in r.stderr and "left in" in r.stdout, (err, r)
        assert copy.exists() and sha256(copy) == want, err
        assert sha256(build / "lib" / "libbroken.so") == sha256(d / "objs" / "libok.so")
        r = lotest.leftover("restore", build)
        assert r.returncode == 1 and "has reappeared" in r.stderr, (err, r)
        assert sha256(copy) == want


if __name__ == "__main__":
    lotest.main(globals())
