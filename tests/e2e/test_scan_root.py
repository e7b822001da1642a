"""A verdict never depends on where the scan starts (issue 43, point 8).

Rule path patterns ([candidates], [host] match, [rule] match) are matched
against a file's path in its build tree, or its absolute path where it is in
none: a scan of any directory between the file and its tree's top (or /usr,
for a system library) says the same of the file, with the same reasons.

Two cases that differed: Debian's Lua C modules (`lua/5.1/cjson.so` was
judged from lua5.4 when the scan started at `.../lua`, its `**/lua/5.1/**`
host rule missed), and the MLIR rules of a real two-branch CMake build (the
sentence of the `_mlir_libs/` rule, and `_site_initialize_*.py` as a
candidate, disappeared when the scan started at `_mlir_libs/`).
"""
import os
from pathlib import Path

import lotest
from test_twobranch import PKG, STALE, make_repo

ENV = {"XDG_CONFIG_HOME": str(lotest.WORK / "no-user-rules")}
LUA = Path("/usr/lib/x86_64-linux-gnu/lua")
REASON = "_mlir_libs/__init__.py imports _mlirRegisterEverything whenever the file exists"


def ancestors(path, top):
    """The directories from path's own up to top, both included."""
    d = Path(path).parent
    out = [d]
    while d != Path(top):
        d = d.parent
        out.append(d)
    return out


def judged(r, path):
    """What scan r says of the file at absolute `path`, with every path in
    it absolute, so that scans from different roots compare. A link whose
    target the scan reached too is reported once, as the target."""
    root = r.doc["root"]
    real = os.path.realpath(path)
    by_path = {os.path.join(root, f["path"]): f for f in r.doc["files"]}
    f = by_path.get(str(path)) or by_path.get(real)
    assert f, "%s not reported by the scan of %s" % (path, root)
    f = dict(f)
    del f["path"]
    f.pop("target", None)
    f["reasons"] = [dict(x, object=os.path.join(root, x["object"]))
                    if x.get("object") else x for x in f["reasons"]]
    return f


def assert_same_from_every_ancestor(paths, top):
    """Scan every directory from the deepest file's up to top; each file is
    judged the same by every scan that holds it. The scans, by root."""
    roots = {d for p in paths for d in ancestors(p, top)}
    scans = {d: lotest.scan(d, env=ENV) for d in sorted(roots, key=lambda d: -len(d.parts))}
    for d, r in scans.items():
        assert r.rc in (0, 1), (d, r)
    for p in paths:
        seen = {d: judged(scans[d], p) for d in ancestors(p, top)}
        first = seen[Path(top)]
        for d, f in seen.items():
            assert f == first, "%s from %s:\n%s\nfrom %s:\n%s" % (p, d, f, top, first)
    return scans


def test_system_lua_modules():
    lotest.need("lua5.1", "lua5.1")
    lotest.need("lua5.4", "lua5.4")
    lotest.need(str(LUA / "5.1" / "cjson.so"), "lua-cjson")
    paths = [LUA / "5.1" / "cjson.so", LUA / "5.4" / "cjson.so"]
    scans = assert_same_from_every_ancestor(paths, "/usr")
    # and what every scan says is what lua5.1 itself does with it
    f = judged(scans[Path("/usr")], paths[0])
    assert f["host_rule"] == "lua5.1" and f["verdict"] == "ok", f
    assert f["host"] in (None, "/usr/bin/lua5.1"), f
    p = lotest.run(["lua5.1", "-e", "package.cpath='%s/5.1/?.so'; require 'cjson'" % LUA],
                   check=False)
    assert p.returncode == 0, p
    assert judged(scans[LUA], paths[1])["host_rule"] == "lua5.4"


def test_mlir_build_tree():
    src, build = make_repo("scan-root-mlir")
    for branch in ("branch-a", "branch-b"):
        lotest.git(src, "checkout", "-q", branch)
        lotest.cmake_build(src, build)
    libs = build / PKG
    # an initializer no build made: a candidate by mlir.rules, judged nowhere
    (libs / "_site_initialize_7.py").write_text("def register_dialects(registry): pass\n")
    paths = [build / STALE, libs / "libMLIRCAPI.so", libs / "_site_initialize_7.py"]
    scans = assert_same_from_every_ancestor(paths, build)
    for r in scans.values():
        stale = judged(r, paths[0])
        assert stale["verdict"] == "stale", stale
        assert [x["detail"][:len(REASON)] for x in stale["reasons"] if x["kind"] == "rule"] \
            == [REASON], stale
    lotest.assert_stale_not_rebuilt(scans[build], build, ["cmake", "--build", build])


if __name__ == "__main__":
    lotest.main(globals())
