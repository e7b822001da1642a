"""A clean killed with SIGKILL loses nothing (issue 4).

1,000 broken shared objects (each a few bytes different, so that a mix-up
would show), `leftover clean --broken` killed at 20 random points of its
run. After each kill every file is either in place, unchanged, or in a
quarantine set whose fsynced manifest lists it, unchanged; `leftover
restore` then puts every one back with the same bytes, mode and mtime.
Every other time the restore is SIGKILLed too, and a second restore
finishes the job.
Renaming 1,000 files takes a few milliseconds against a few hundred for
the scan, so the clean's test hook LEFTOVER_TEST_CLEAN_DELAY_MS=1 stretches
the moves to about a second; the kill points are uniform over the measured
length of such a clean, and most of them land among the moves. The seed is
printed so a failure can be replayed (LEFTOVER_KILL_SEED).
"""
import hashlib
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import lotest

N = 1000
KILLS = 20
BROKEN_C = "extern int no_library_has_this(void);\nint f(void) { return no_library_has_this(); }\n"


def identity(path):
    st = os.lstat(path)
    return (hashlib.sha256(Path(path).read_bytes()).hexdigest(), st.st_mode, st.st_mtime_ns)


def make_tree(d):
    build = d / "build"
    proto = lotest.cc(d / "proto" / "libproto.so", BROKEN_C)
    data = proto.read_bytes()
    want = {}
    for i in range(N):
        rel = "m%02d/lib%04d.so" % (i % 50, i)
        p = build / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        # trailing bytes after the ELF sections change nothing for the loader
        p.write_bytes(data + b"%d" % i)
        os.utime(p, ns=(1_600_000_000_000_000_000 + i, 1_600_000_000_000_000_000 + i * 1000))
        want[rel] = identity(p)
    return build, want


SLOW = {"LEFTOVER_TEST_CLEAN_DELAY_MS": "1"}


def where_is_everything(build, want):
    """Check the invariant; return how many files are in the quarantine."""
    quarantined = {}
    qdir = build / ".leftover.d" / "quarantine"
    for s in sorted(qdir.iterdir()) if qdir.exists() else []:
        m = s / "manifest.json"
        if not m.exists():
            # killed before the manifest was in place: nothing may have moved there
            moved = [p for p in s.rglob("*") if p.is_file() and not p.name.startswith("manifest.json")]
            assert not moved, "files in %s without a manifest: %s" % (s, moved[:3])
            continue
        listed = {e["path"] for e in json.loads(m.read_text())["files"]}
        for rel in listed:
            if os.path.lexists(s / rel):
                assert rel not in quarantined, rel
                assert identity(s / rel) == want[rel], "changed in the quarantine: " + rel
                quarantined[rel] = s
        strays = [str(p.relative_to(s)) for p in s.rglob("*.so") if str(p.relative_to(s)) not in listed]
        assert not strays, "quarantined without a manifest entry: %s" % strays[:3]
    for rel, ident in want.items():
        here = os.path.lexists(build / rel)
        if here and rel in quarantined and lotest.PORTABLE:
            # killed between the portable rename's link and its unlink: one
            # file under both names, which the next move of it finishes
            a, b = os.lstat(build / rel), os.lstat(quarantined[rel] / rel)
            assert (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino), rel
            del quarantined[rel]
        assert here != (rel in quarantined), "%s: in place %s, quarantined %s" % (rel, here, rel in quarantined)
        if here:
            assert identity(build / rel) == ident, "changed in place: " + rel
    return len(quarantined)


def test_sigkill_at_random_points():
    d = lotest.workdir("clean-kill")
    build, want = make_tree(d)
    seed = int(os.environ.get("LEFTOVER_KILL_SEED", time.time_ns() % 1_000_000))
    rng = random.Random(seed)
    print("seed", seed, flush=True)

    t0 = time.monotonic()
    r = lotest.run([lotest.LEFTOVER, "clean", "--broken", build], env=SLOW, check=False)
    span = time.monotonic() - t0
    assert r.returncode == 0, r
    assert where_is_everything(build, want) == N
    t0 = time.monotonic()
    assert lotest.run([lotest.LEFTOVER, "restore", build], env=SLOW).returncode == 0
    span_restore = time.monotonic() - t0
    assert where_is_everything(build, want) == 0

    partial = 0
    for k in range(KILLS):
        delay = rng.uniform(0, span)
        p = subprocess.Popen([lotest.LEFTOVER, "clean", "--broken", str(build)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=dict(os.environ, **SLOW))
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        moved = where_is_everything(build, want)
        partial += 0 < moved < N
        print("kill %2d at %.3f s of %.3f: %4d of %d quarantined" % (k, delay, span, moved, N), flush=True)
        if moved and k % 2:
            # and every other time the restore is killed too: it must be resumable
            delay = rng.uniform(0, span_restore)
            p = subprocess.Popen([lotest.LEFTOVER, "restore", str(build)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, env=dict(os.environ, **SLOW))
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            p.wait()
            moved = where_is_everything(build, want)
            print("         restore killed at %.3f s: %4d still quarantined" % (delay, moved), flush=True)
        r = lotest.leftover("restore", build)
        if moved:
            assert r.returncode == 0, r
        else:
            # nothing (left) in the quarantine: there may be no set to restore
            # (a clean killed before its manifest, a restore killed after its last file)
            assert r.returncode in (0, 2), r
        assert where_is_everything(build, want) == 0
        assert lotest.leftover("clean", "--purge-quarantine", build).returncode == 0
    print("%d of %d kills interrupted the moves half-way" % (partial, KILLS))
    # else the kills all fell before or after the moves and tested little
    assert partial >= KILLS // 4, partial


if __name__ == "__main__":
    lotest.main(globals())
