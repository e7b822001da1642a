"""The verdict cache (docs/performance.md, "Warm scans"): a warm scan says
byte for byte what a cold one (--no-cache) says, on the two-branch CMake +
Ninja project of fixtures/twobranch/, and after each change that could make
a kept verdict wrong the next scan judges afresh (its answer changes where
the change should change it), the one after uses the cache again.

Whether a scan used the cache is what `--verbose` says on stderr ("verdict
cache used" / "verdict cache not used (why)"), so a cache never used, or
always used, fails here.
"""
import os
import re
import shutil
import time

import lotest

PKG = "python_packages/mlir/_mlir_libs"
SOABI = lotest.run([lotest.PYTHON, "-c",
                    "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"]).stdout.strip()
MODULE = PKG + "/_mlirRegisterEverything" + SOABI
LIB = PKG + "/libMLIRCAPI.so"
SYMBOL = b"mlirRegisterAllPasses"

_tree = {}


def tree():
    """The fixture built on branch-a once for the file: (src, build)."""
    if not _tree:
        d = lotest.workdir("cache")
        lotest.run(["sh", lotest.FIXTURES / "twobranch" / "make-repo.sh", d / "src"])
        lotest.cmake_build(d / "src", d / "build", "Ninja")
        _tree["src"], _tree["build"] = d / "src", d / "build"
    return _tree["src"], _tree["build"]


def settle():
    """Past the racy window of what was just written (two ticks, cache_check.c)."""
    time.sleep(0.05)


def scan(build, *args):
    p = lotest.leftover("scan", "--format", "json", "--verbose", *args, build)
    assert p.returncode in (0, 1), p
    return p


def same_as_cold(build, used, *args, why=None):
    """A scan, with the cache, equal to one without; did it use the cache? Its parsed result.
    A cache spoilt by the machine itself (a test beside this one installing a
    package into /usr/bin) is kept again, up to twice: only this test's own
    changes are its subject."""
    for _ in range(3):
        settle()
        warm_ = scan(build, *args)
        cold = scan(build, "--no-cache", *args)
        assert warm_.stdout == cold.stdout, (warm_.stderr, cold.stderr)
        m = re.search(r"verdict cache not used \('([^']*)' changed\)", warm_.stderr)
        if not (used and m and not m.group(1).startswith(str(lotest.WORK))):
            break
        warm(build, *args)
    assert ("verdict cache used:" in warm_.stderr) == used, warm_.stderr
    if why:
        assert why in warm_.stderr, warm_.stderr
    return lotest.Scan(warm_)


def warm(build, *args):
    """The cache kept for these options: a CMake tree's first scan writes its
    File API query into it, so the scan after that may judge afresh too."""
    for _ in range(3):
        settle()
        if "verdict cache used:" in scan(build, *args).stderr:
            break
    same_as_cold(build, True, *args)


def changed_then_warm(build, *args, why="changed"):
    """After a change: judged afresh (equal to cold), then the cache again."""
    r = same_as_cold(build, False, *args, why=why)
    same_as_cold(build, True, *args)
    return r


def verdict(r, path):
    return r.file(path)["verdict"]


def replace_keeping_stat(path, data):
    """Another file of the same size and mtime put in path's place: a new inode."""
    st = os.stat(path)
    assert len(data) == st.st_size
    tmp = path.with_name(path.name + ".new")
    tmp.write_bytes(data)
    os.chmod(tmp, st.st_mode)
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.rename(tmp, path)
    new = os.stat(path)
    assert (new.st_size, new.st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert new.st_ino != st.st_ino


def test_unchanged_tree_is_warm_and_kept_outside_it():
    src, build = tree()
    r = same_as_cold(build, False, why="none kept yet")
    assert verdict(r, MODULE) == "ok"
    warm(build)
    kept = list((lotest.CACHE / "leftover" / "state").glob("*.cache"))
    assert len(kept) == 1, kept
    assert not [p for p in build.rglob("*.cache")], "a cache written into the tree"
    # --no-cache alone neither reads nor writes it
    before = kept[0].stat().st_mtime_ns
    scan(build, "--no-cache")
    assert kept[0].stat().st_mtime_ns == before


def test_file_touched():
    src, build = tree()
    warm(build)
    os.utime(build / MODULE)
    changed_then_warm(build)


def test_library_replaced_same_size_and_mtime():
    src, build = tree()
    lib = build / LIB
    good = lib.read_bytes()
    warm(build)
    # the symbol renamed in its string table: same size, the module's import fails
    replace_keeping_stat(lib, good.replace(SYMBOL, SYMBOL[:-1] + b"z"))
    r = changed_then_warm(build)
    assert verdict(r, MODULE) == "broken", r.file(MODULE)
    assert any(x["symbol"] == "mlirRegisterAllPasses"
               for x in r.reasons(MODULE, "undefined-symbol")), r.file(MODULE)
    replace_keeping_stat(lib, good)
    assert verdict(changed_then_warm(build), MODULE) == "ok"


def test_symbol_dropped_in_place():
    src, build = tree()
    lib = build / LIB
    good = lib.read_bytes()
    st = os.stat(lib)
    warm(build)
    # rewritten in place, its mtime put back: only its ctime tells
    with open(lib, "r+b") as f:
        f.write(good.replace(SYMBOL, SYMBOL[:-1] + b"z"))
    os.utime(lib, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(lib).st_ino == st.st_ino
    assert verdict(changed_then_warm(build), MODULE) == "broken"
    with open(lib, "r+b") as f:
        f.write(good)
    assert verdict(changed_then_warm(build), MODULE) == "ok"


def test_rule_file_edited():
    src, build = tree()
    lib = build / LIB
    good = lib.read_bytes()
    replace_keeping_stat(lib, good.replace(SYMBOL, SYMBOL[:-1] + b"z"))
    assert verdict(changed_then_warm(build), MODULE) == "broken"
    rules = build / ".leftover" / "rules"
    rules.parent.mkdir(exist_ok=True)
    rules.write_text("[symbols]\n\tignore = mlirRegisterAllPasses\n")
    r = changed_then_warm(build, why="other options, rules or environment")
    assert verdict(r, MODULE) == "ok", r.file(MODULE)
    rules.write_text("[symbols]\n\tignore = mlirSomethingElse\n")
    assert verdict(changed_then_warm(build, why="other options"), MODULE) == "broken"
    shutil.rmtree(rules.parent)
    replace_keeping_stat(lib, good)
    assert verdict(changed_then_warm(build, why=""), MODULE) == "ok"


def test_host_interpreter_replaced():
    src, build = tree()
    py = build.parent / "py" / "python3"
    py.parent.mkdir(exist_ok=True)
    shutil.copy2(os.path.realpath(lotest.PYTHON), py)
    r = changed_then_warm(build, "--python", py, why="other options")
    assert verdict(r, MODULE) == "ok"
    # another program in its place: the modules cannot be judged by it
    tmp = py.with_name("new")
    shutil.copy2("/bin/true", tmp)
    os.rename(tmp, py)
    r = changed_then_warm(build, "--python", py)
    assert verdict(r, MODULE) == "broken", r.file(MODULE)
    assert r.reasons(MODULE, "undefined-symbol"), r.file(MODULE)
    shutil.copy2(os.path.realpath(lotest.PYTHON), tmp)
    os.rename(tmp, py)
    assert verdict(changed_then_warm(build, "--python", py), MODULE) == "ok"


def test_branch_switched_then_rebuilt():
    src, build = tree()
    warm(build)
    lotest.git(src, "checkout", "-q", "branch-b")
    r = changed_then_warm(build)
    # the origin is made again by every scan: the switch is noted, cache or not
    assert r.doc["trees"][0]["branch"] == "branch-b", r.doc["trees"]
    assert any("now on branch branch-b" in n for n in r.doc["notes"]), r.doc["notes"]
    assert verdict(r, MODULE) == "ok"
    # the rebuild rewrites the library without the symbol and the records without the module
    lotest.cmake_build(src, build, "Ninja")
    r = changed_then_warm(build)
    # stale where the records already tell (test_twobranch.py), broken at least
    assert verdict(r, MODULE) in ("broken", "stale"), r.file(MODULE)
    assert any(x["symbol"] == "mlirRegisterAllPasses"
               for x in r.reasons(MODULE, "undefined-symbol")), r.file(MODULE)
    lotest.assert_stale_not_rebuilt(r, build, [lotest.CMAKE, "--build", build])
    lotest.git(src, "checkout", "-q", "branch-a")
    lotest.cmake_build(src, build, "Ninja")
    assert verdict(changed_then_warm(build), MODULE) == "ok"


def test_written_in_the_caches_tick_is_never_trusted():
    src, build = tree()
    warm(build)
    # a file stamped at or after the start of the scan that keeps the cache
    # (written in its tick, or by a clock ahead): that cache is never used
    future = time.time_ns() + 3600 * 10**9
    os.utime(build / MODULE, ns=(future, future))
    same_as_cold(build, False, why="changed")
    same_as_cold(build, False, why="racy")
    same_as_cold(build, False, why="racy")
    now = time.time_ns() - 10**9
    os.utime(build / MODULE, ns=(now, now))
    changed_then_warm(build)


def test_damaged_cache_is_ignored_with_a_note():
    src, build = tree()
    warm(build)
    kept = next((lotest.CACHE / "leftover" / "state").glob("*.cache"))
    data = kept.read_bytes()
    for bad in (data[:len(data) // 2], data[:16] + b"\x63" + data[17:],
                data[:-20] + bytes(20), b""):
        kept.write_bytes(bad)
        p = scan(build)
        assert "verdict cache ignored" in p.stderr, p.stderr
        assert p.stdout == scan(build, "--no-cache").stdout
        warm(build)
        data = kept.read_bytes()


def checksum(data):
    """cache.h's lo_cache_checksum: FNV-1a over 64-bit words, then bytes."""
    h, n = 0xcbf29ce484222325, len(data) - len(data) % 8
    for i in range(0, n, 8):
        h = ((h ^ int.from_bytes(data[i:i + 8], "little")) * 0x100000001b3) & 0xffffffffffffffff
    for b in data[n:]:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def forge_verdict(kept, path, verdict, loads=None):
    """The kept verdicts of `path` (the result's and its item's) made
    `verdict` (verdict.h's order), and its load `loads` when given (0 no,
    1 yes), the checksum mended: a cache that lies, well-formed (docs:
    cache.c)."""
    data = bytearray(kept.read_bytes())
    name = path.encode()
    key = len(name).to_bytes(4, "little") + name + b"\0\xff\xff\xff\xff"
    at = data.find(key)
    assert at > 0, "the file is not in the cache"
    while at > 0:
        # after the path and the NULL target: kind, loads + 1, orphan + 1, suspected,
        # tracked + 1, stage, verdict
        fields = at + len(key)
        if loads is not None:
            data[fields + 4:fields + 8] = (loads + 1).to_bytes(4, "little")
        data[fields + 6 * 4:fields + 7 * 4] = verdict.to_bytes(4, "little")
        at = data.find(key, at + 1)
    data[-8:] = checksum(bytes(data[:-8])).to_bytes(8, "little")
    kept.write_bytes(bytes(data))


def test_clean_never_acts_on_a_kept_verdict():
    src, build = tree()
    # the first clean makes build/.leftover.d (its lock): the tree changes once
    assert lotest.leftover("clean", build).returncode == 0
    warm(build)
    kept = next((lotest.CACHE / "leftover" / "state").glob("*.cache"))
    settle()
    # an unchanged tree with nothing to clean: the kept result is the whole
    # audit, and the cache stays good for the next scan
    c = lotest.leftover("clean", "--format", "json", build)
    assert c.returncode == 0 and '"actions": []' in c.stdout, c
    same_as_cold(build, True)
    # a cache that calls the module stale: scan believes it (it is well-formed
    # and nothing it depends on changed), clean judges afresh and moves nothing
    forge_verdict(kept, MODULE, 2)
    p = scan(build)
    assert "verdict cache used:" in p.stderr and verdict(lotest.Scan(p), MODULE) == "stale", p
    c = lotest.leftover("clean", "--format", "json", build)
    assert c.returncode == 0 and '"actions": []' in c.stdout, c
    assert (build / MODULE).exists()
    # scan again without the lie
    scan(build, "--clear-cache")


def test_clear_cache():
    src, build = tree()
    warm(build)
    p = scan(build, "--clear-cache")
    assert "verdict cache used" not in p.stderr, p.stderr
    assert not list((lotest.CACHE / "leftover" / "state").glob("*.cache"))
    same_as_cold(build, False, why="none kept yet")
    warm(build)


MANY = 12
_many = {}


def many():
    """A CMake + Ninja tree of MANY libraries in lib/, and lib/libuser.so
    bound to lib/libl0.so, built once for the file: the build dir."""
    if not _many:
        d = lotest.workdir("cache-many")
        src = d / "src"
        src.mkdir()
        cm = ["cmake_minimum_required(VERSION 3.16)", "project(many C)",
              "set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)"]
        for i in range(MANY):
            (src / ("l%d.c" % i)).write_text("int many_%d(void) { return %d; }\n" % (i, i))
            cm.append("add_library(l%d SHARED l%d.c)" % (i, i))
        (src / "user.c").write_text("int many_0(void);\nint user(void) { return many_0(); }\n")
        cm += ["add_library(user SHARED user.c)", "target_link_libraries(user l0)"]
        (src / "CMakeLists.txt").write_text("\n".join(cm) + "\n")
        lotest.cmake_build(src, d / "build", "Ninja")
        _many["build"] = d / "build"
    return _many["build"]


def in_part(build, judged, kept):
    """A scan that took `kept` verdicts from the cache and judged `judged`
    afresh, as --verbose says, equal to a cold one; its parsed result."""
    settle()
    w = scan(build)
    cold = scan(build, "--no-cache")
    assert w.stdout == cold.stdout, (w.stderr, cold.stderr)
    m = re.search(r"verdict cache used in part \(.*\): judged (\d+), kept (\d+);", w.stderr)
    assert m and (int(m.group(1)), int(m.group(2))) == (judged, kept), w.stderr
    return lotest.Scan(w)


def test_one_file_of_many_judged_again():
    build = many()
    lib = build / "lib"
    warm(build)
    # a library touched: it alone is judged again, the others' verdicts kept
    os.utime(lib / "libl5.so")
    assert verdict(in_part(build, 1, MANY), "lib/libl5.so") == "ok"
    same_as_cold(build, True)
    # the library another binds, replaced (a new inode in lib/): both judged again
    l0 = lib / "libl0.so"
    good = l0.read_bytes()
    replace_keeping_stat(l0, good.replace(b"many_0", b"many_z"))
    r = in_part(build, 2, MANY - 1)
    assert verdict(r, "lib/libuser.so") == "broken", r.file("lib/libuser.so")
    assert any(x["symbol"] == "many_0" for x in r.reasons("lib/libuser.so", "undefined-symbol"))
    assert verdict(r, "lib/libl5.so") == "ok"
    warm(build)
    # another touched: the broken one is judged again too, for the note
    # its search for a host makes (a note arises from the verdict judged)
    os.utime(lib / "libl7.so")
    assert verdict(in_part(build, 2, MANY - 1), "lib/libuser.so") == "broken"
    warm(build)
    # mended, by a new inode in lib/: the search for libuser.so's host
    # listed lib/, which every verdict's search may list: all judged afresh
    replace_keeping_stat(l0, good)
    assert verdict(same_as_cold(build, False, why="lib' changed"), "lib/libuser.so") == "ok"
    warm(build)
    # a library added where the walk goes: judged, the rest kept
    shutil.copy2(lib / "libl5.so", lib / "libnew.so")
    assert verdict(in_part(build, 1, MANY + 1), "lib/libnew.so") == "ok"
    (lib / "libnew.so").unlink()
    in_part(build, 0, MANY + 1)
    same_as_cold(build, True)


def test_clean_never_acts_on_a_verdict_kept_in_part():
    build = many()
    warm(build)
    kept = lotest.CACHE / "leftover" / "state"
    kept = [p for p in kept.glob("*.cache") if str(build).encode() in p.read_bytes()]
    assert len(kept) == 1, kept

    def libl3_when_kept_in_part(verdict_code, loads):
        """libl3.so's kept verdict forged, another library touched: the
        scan in part keeps libl3.so's; its verdict there."""
        forge_verdict(kept[0], "lib/libl3.so", verdict_code, loads=loads)
        os.utime(build / "lib" / "libl5.so")
        settle()
        p = scan(build)
        assert "judged 1, kept %d;" % MANY in p.stderr, p.stderr
        return verdict(lotest.Scan(p), "lib/libl3.so")

    # a kept load that lies (broken) is kept; clean --broken judges afresh
    # and moves nothing
    assert libl3_when_kept_in_part(1, 0) == "broken"
    os.utime(build / "lib" / "libl5.so")
    settle()
    c = lotest.leftover("clean", "--broken", "--format", "json", build)
    assert c.returncode == 0 and '"actions": []' in c.stdout, c
    assert (build / "lib" / "libl3.so").exists()
    # what the build's records say is never kept: a forged stale verdict of a
    # library the build still makes is drawn again as ok, even in part
    scan(build)
    assert libl3_when_kept_in_part(2, 1) == "ok"
    scan(build, "--clear-cache")

if __name__ == "__main__":
    lotest.main(globals())
