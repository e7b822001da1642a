"""A cargo workspace, built for real on two branches in one target dir (issue 43).

branch-a's workspace has two cdylib crates, alpha and beta; branch-b drops
beta from the members and deletes it. After `cargo build` on both (offline,
no crates.io), target/debug/libbeta.so and its hard link
target/debug/deps/libbeta.so stay behind. leftover reads the workspace's
Cargo.toml, each member's [lib] and the dep-info files, never running cargo:
libbeta.so is stale, reported once (one file, two links), alpha is live,
and the rebuild holds the verdict. clean moves, and clean --delete unlinks,
both names, and counts one file, its bytes once.
"""
import os

import lotest

MEMBER = """[package]
name = "{name}"
version = "0.1.0"
edition = "2021"

[lib]
crate-type = ["cdylib"]
"""

_tree = {}


def cargo(ws):
    env = {"CARGO_HOME": str(ws.parent / "cargo-home"), "CARGO_TERM_COLOR": "never"}
    lotest.run(["cargo", "build", "--offline", "-q"], cwd=ws, env=env)
    return ["cargo", "build", "--offline", "-q"], env


def tree():
    if _tree:
        return _tree["ws"], _tree["env"]
    lotest.need("cargo", "cargo")
    d = lotest.workdir("cargo")
    ws = d / "ws"
    ws.mkdir()
    lotest.git(ws, "init", "-q", "-b", "branch-a")
    (ws / ".gitignore").write_text("/target\n")
    (ws / "Cargo.toml").write_text('[workspace]\nmembers = ["alpha", "beta"]  # both\nresolver = "2"\n')
    for name in ("alpha", "beta"):
        (ws / name / "src").mkdir(parents=True)
        (ws / name / "Cargo.toml").write_text(MEMBER.format(name=name))
        (ws / name / "src" / "lib.rs").write_text(
            '#[no_mangle]\npub extern "C" fn %s_f() -> i32 { 1 }\n' % name)
    lotest.git(ws, "add", "-A")
    lotest.git(ws, "commit", "-q", "-m", "a")
    cargo(ws)
    r = lotest.scan(ws)
    assert r.rc == 0, r
    assert r.file("target/debug/libbeta.so")["orphan"] is False, r.file("target/debug/libbeta.so")

    lotest.git(ws, "checkout", "-q", "-b", "branch-b")
    (ws / "Cargo.toml").write_text('[workspace]\nmembers = [\n  "alpha",\n]\nresolver = "2"\n')
    lotest.git(ws, "rm", "-q", "-r", "beta")
    lotest.git(ws, "commit", "-q", "-a", "-m", "b: beta dropped")
    build, env = cargo(ws)
    assert (ws / "target/debug/libbeta.so").exists(), "cargo removed beta; nothing to test"
    _tree.update(ws=ws, env=env, build=build)
    return ws, env


def test_dropped_crate_stale_once():
    ws, _ = tree()
    a, b = ws / "target/debug/libbeta.so", ws / "target/debug/deps/libbeta.so"
    assert a.stat().st_ino == b.stat().st_ino, "cargo no longer hard-links deps/; the test needs a look"
    r = lotest.scan(ws)
    assert r.rc == 1, r
    assert lotest.stale_paths(r) == ["target/debug/libbeta.so"], r
    ev = r.reasons("target/debug/libbeta.so", "orphan")
    assert ev and ev[0]["evidence"] == "cargo-dep-info" and "beta" in ev[0]["detail"], ev
    assert "target/debug/deps/libbeta.so" not in r.files, r
    assert [n for n in r.doc["notes"] if "deps/libbeta.so is a hard link" in n], r.doc["notes"]
    for rel in ("target/debug/libalpha.so", "target/debug/deps/libalpha.so"):
        assert r.file(rel)["orphan"] is False and r.file(rel)["verdict"] == "ok", r.file(rel)
    trees = r.doc["build_trees"]
    assert [(t["dir"], t["system"]) for t in trees] == [(str(ws / "target"), "cargo")], trees
    assert trees[0]["records"], trees

    # scanned from inside the target dir, the same verdict
    inner = lotest.scan(ws / "target" / "debug")
    assert lotest.stale_paths(inner) == ["libbeta.so"], inner

    t = lotest.leftover("scan", ws)
    assert t.returncode == 1 and t.stdout.count("libbeta.so: stale") == 1, t.stdout
    assert "tree %s (cargo): staleness from" % (ws / "target") in t.stdout, t.stdout


def human(n):
    """A size as clean's summary writes it."""
    return "%.1f MiB" % (n / 1048576) if n >= 1048576 else \
        "%.1f KiB" % (n / 1024) if n >= 1024 else "%d bytes" % n


def test_clean_moves_both_links():
    """One clean moves the file by both its links, one file in the summary (its
    bytes once): the next scan finds nothing; restore puts both back, still one file."""
    ws, _ = tree()
    a, b = ws / "target/debug/libbeta.so", ws / "target/debug/deps/libbeta.so"
    size = a.stat().st_size
    c = lotest.leftover("clean", ws)
    assert c.returncode == 0, c
    assert not a.exists() and not b.exists(), c.stdout
    assert "moved 1 file (%s) to " % human(size) in c.stdout, c.stdout
    after = lotest.scan(ws)
    assert after.rc == 0 and not lotest.stale_paths(after), after
    assert lotest.leftover("restore", ws).returncode == 0
    assert a.stat().st_ino == b.stat().st_ino, "restore did not put both links back"


def test_delete_removes_both_names_once():
    """--delete unlinks both names of the stale file (the first unlink is no
    change to the second name's file) and counts one file, its bytes once.
    A third name outside the tree keeps the file, to put both back after."""
    ws, _ = tree()
    a, b = ws / "target/debug/libbeta.so", ws / "target/debug/deps/libbeta.so"
    keep = ws.parent / "libbeta.so.kept"
    keep.unlink(missing_ok=True)
    os.link(a, keep)
    size = a.stat().st_size
    c = lotest.leftover("clean", "--delete", ws)
    assert c.returncode == 0, c
    assert not a.exists() and not b.exists(), c
    assert "deleted 1 file (%s)\n" % human(size) in c.stdout, c.stdout
    assert (ws / "target/debug/libalpha.so").exists()
    after = lotest.scan(ws)
    assert after.rc == 0 and not lotest.stale_paths(after), after
    os.link(keep, a)
    os.link(keep, b)
    keep.unlink()


def test_stale_not_rebuilt():
    ws, env = tree()
    r = lotest.scan(ws)
    lotest.assert_stale_not_rebuilt(r, ws, _tree["build"], env=env)
    # the live crate is still there and still live after the rebuild
    again = lotest.scan(ws)
    assert again.file("target/debug/libalpha.so")["orphan"] is False, again


if __name__ == "__main__":
    lotest.main(globals())
