"""`leftover cache info|clear [ROOT...]`: the verdict cache as a user sees it.

A real tree (a library and a module needing it, built with gcc, in a git
repository) is scanned; `cache info` names the file the scan kept, its
size as the filesystem has it and its bound, and says it is usable, which
the next scan confirms by using it (`--verbose`). A file touched: `info`
says the cache is usable in part and names it, and the next scan judges
that file again and keeps the other's verdict. A commit (git's records, a
dependency of the whole scan): not usable, and why. A damaged cache:
not usable, and why. `cache clear` removes the file and the next scan
finds none; `clear` and `info` of a root that is no directory exit 2
naming it, as the rest of the CLI.
"""
import os
import re
import time

import lotest


def tree():
    d = lotest.workdir("cache-cli")
    lotest.cc(d / "lib" / "libbase.so", "int base(void) { return 1; }\n")
    lotest.cc(d / "lib" / "libuser.so", "int base(void);\nint user(void) { return base(); }\n",
              "-L%s" % (d / "lib"), "-lbase", "-Wl,-rpath,$ORIGIN")
    lotest.git(d, "init", "-q")
    lotest.git(d, "add", "-A")
    lotest.git(d, "commit", "-qm", "two libraries")
    return d


def settle():
    """Past the racy window of what was just written (two ticks, cache_check.c)."""
    time.sleep(0.05)


def scan(d):
    settle()
    p = lotest.leftover("scan", "--verbose", d)
    assert p.returncode == 0, p
    return p.stderr


def info(*roots):
    p = lotest.leftover("cache", "info", *roots)
    assert p.returncode == 0 and not p.stderr, p
    fields = dict(re.findall(r"^(\w+): +(.*)$", p.stdout, re.M))
    assert set(fields) == {"file", "size", "bound", "usable"}, p.stdout
    return fields


def test_info_and_clear():
    d = tree()
    before = info(d)
    assert before["usable"] == "no: none kept yet" and before["size"] == "none kept", before
    scan(d)
    now = info(d)
    cache = now["file"]
    assert cache == before["file"] and cache.startswith(str(lotest.CACHE) + "/"), now
    assert now["size"] == "%d bytes" % os.path.getsize(cache), now
    assert now["bound"].startswith("%d bytes" % (64 << 20)), now
    assert now["usable"].startswith("yes"), now
    assert "verdict cache used:" in scan(d)

    settle()
    (d / "lib" / "libuser.so").touch()
    assert info(d)["usable"] == "in part: '%s' changed" % (d / "lib" / "libuser.so"), info(d)
    said = scan(d)
    assert "verdict cache used in part ('%s' changed): judged 1, kept 1;" % (
        d / "lib" / "libuser.so") in said, said
    assert info(d)["usable"].startswith("yes")

    # what the whole scan read: git's records of the tree
    lotest.git(d, "commit", "-q", "--allow-empty", "-m", "again")
    assert info(d)["usable"].startswith("no: '%s/.git/" % d), info(d)
    assert "verdict cache not used ('%s/.git/" % d in scan(d)
    assert info(d)["usable"].startswith("yes")

    # the current directory when no root is named
    p = lotest.run([lotest.LEFTOVER, "cache", "info"], cwd=d)
    assert "file:   %s\n" % cache in p.stdout, p.stdout

    # the set of roots names the cache: another set, another file
    other = lotest.workdir("cache-cli-other")
    assert info(d, other)["file"] != cache

    with open(cache, "r+b") as f:
        f.truncate(os.path.getsize(cache) // 2)
    # the reason, not the file's name said twice
    assert info(d)["usable"] == "no: '%s': its checksum does not match: truncated or damaged" % (
        cache), info(d)

    p = lotest.leftover("cache", "clear", d)
    assert p.returncode == 0 and not p.stdout and not p.stderr, p
    assert not os.path.exists(cache)
    assert info(d)["usable"] == "no: none kept yet"
    assert "verdict cache not used (none kept yet)" in scan(d)
    # clearing what is not there is no error
    assert lotest.leftover("cache", "clear", other).returncode == 0


AUDITED = """cmake_minimum_required(VERSION 3.19)
project(audited LANGUAGES C)
include({source_dir}/cmake/LeftoverConfig.cmake)
leftover_add_audit(audit ALL)
add_library(base SHARED base.c)
add_library(user SHARED user.c)
target_link_libraries(user base)
"""

# a command whose output is a real file, rewritten in place when run again
NOTED = AUDITED + """add_custom_command(OUTPUT notes.txt
                   COMMAND sh -c "cat '${{CMAKE_CURRENT_SOURCE_DIR}}/notes.in' > notes.txt"
                   DEPENDS notes.in VERBATIM)
add_custom_target(notes ALL DEPENDS notes.txt)
"""


def audited(name, cmakelists):
    """The project `cmakelists` (AUDITED or more) in workdir `name`, configured
    with Ninja and built: the workdir and the build directory."""
    d = lotest.workdir(name)
    src, build = d / "src", d / "build"
    src.mkdir()
    (src / "base.c").write_text("int base(void) { return 1; }\n")
    (src / "user.c").write_text("int base(void);\nint user(void) { return base(); }\n")
    (src / "notes.in").write_text("one\n")
    (src / "CMakeLists.txt").write_text(cmakelists.format(source_dir=lotest.SOURCE_DIR))
    lotest.run([lotest.CMAKE, "-S", src, "-B", build, "-G", "Ninja",
                "-DLEFTOVER_EXECUTABLE=" + str(lotest.LEFTOVER)])
    lotest.run([lotest.CMAKE, "--build", build])
    return d, build


def test_build_audit_and_scan_by_hand_share_the_cache():
    """The audit a build runs (leftover_add_audit ALL: its current directory
    the build's) and a scan by hand from another directory keep one cache:
    the audit after the scan by hand is warm, and the hand's warm report is
    the cold one. A directory where pyenv would find a version file of its
    own is another key, and so is another directory when a path was given
    relative to it."""
    d, build = audited("cache-cli-audit", AUDITED)
    elsewhere, pinned = d / "elsewhere", d / "pinned"
    for x in (elsewhere, pinned):
        x.mkdir()
    cache = info(build)["file"]
    settle()

    def by_hand(where, *args):
        # as a shell has it: PWD is where it runs
        return lotest.leftover("scan", "--format", "json", *args, build,
                               cwd=where, env={"PWD": str(where)})

    # the build went on in its directory after the audit ran: not used whole
    hand = by_hand(elsewhere, "--verbose")
    assert "('%s" % build in hand.stderr and "cache used:" not in hand.stderr, hand.stderr
    settle()
    hand = by_hand(elsewhere, "--verbose")
    assert "verdict cache used:" in hand.stderr, hand.stderr
    cold = by_hand(elsewhere, "--no-cache")
    assert hand.stdout == cold.stdout and hand.returncode == cold.returncode == 0, hand
    kept = os.stat(cache)
    lotest.run([lotest.CMAKE, "--build", build])
    # answered from the cache whole: not written again
    again = os.stat(cache)
    assert (again.st_ino, again.st_mtime_ns) == (kept.st_ino, kept.st_mtime_ns)

    other = "verdict cache not used (made with other options, rules or environment)"
    # where pyenv would find another version file, the result may differ: not used
    (pinned / ".python-version").write_text("system\n")
    p = by_hand(pinned, "--verbose")
    assert other in p.stderr, p.stderr
    # an interpreter named relative to the current directory is another one elsewhere
    by_hand(elsewhere, "--python", "bin/python3")
    settle()
    p = by_hand(d, "--verbose", "--python", "bin/python3")
    assert other in p.stderr, p.stderr


def test_bad_roots_and_words():
    d = lotest.workdir("cache-cli-bad")
    missing = d / "no-such-dir"
    for action in ("info", "clear"):
        p = lotest.leftover("cache", action, d, missing)
        assert p.returncode == 2 and str(missing) in p.stderr and not p.stdout, p
    (d / "file").write_text("")
    p = lotest.leftover("cache", "clear", d / "file")
    assert p.returncode == 2 and "'%s' is not a directory" % (d / "file") in p.stderr, p
    p = lotest.leftover("cache", "drop", d)
    assert p.returncode == 2 and "'drop' is neither info nor clear" in p.stderr, p
    p = lotest.leftover("cache")
    assert p.returncode == 2 and p.stderr.startswith("usage: leftover cache info"), p
    p = lotest.leftover("cache", "--help")
    assert p.returncode == 0 and "leftover cache clear [ROOT...]" in p.stdout, p


def test_audit_of_a_no_op_build_is_warm():
    """ninja logs the audit's own command after it ran: what that appends to
    .ninja_log (a line for an output that is no file) leaves the cache
    standing, so the audit of each no-op build after the first is warm and
    gives the cold report. A line for a real output appended (a command of
    the build run again), or a log rewritten in place, longer, are changes."""
    d, build = audited("cache-cli-ninjalog", NOTED)
    src = d / "src"
    cache = info(build)["file"]
    log = build / ".ninja_log"

    def noop_build():
        settle()
        kept = os.stat(cache)
        lotest.run([lotest.CMAKE, "--build", build])
        again = os.stat(cache)
        return (again.st_ino, again.st_mtime_ns) == (kept.st_ino, kept.st_mtime_ns)

    def warm_as_cold():
        settle()
        hand = lotest.leftover("scan", "--verbose", "--format", "json", build)
        cold = lotest.leftover("scan", "--no-cache", "--format", "json", build)
        assert hand.stdout == cold.stdout and hand.returncode == cold.returncode == 0, hand
        return hand.stderr

    noop_build()  # its audit reads the line the last build's audit left
    ino = os.stat(log).st_ino
    for _ in range(2):
        assert noop_build(), "the audit of a no-op build wrote the cache again"
    assert os.stat(log).st_ino == ino and "verdict cache used:" in warm_as_cold()

    # a command run again: its real output logged
    settle()
    (src / "notes.in").write_text("two\n")
    lotest.run([lotest.CMAKE, "--build", build, "--target", "notes"])
    assert "verdict cache not used ('%s' changed)" % log in warm_as_cold()

    # the last line read (that scan's: nothing appended since) rewritten in
    # place, as long (another command hash), the log longer by a harmless line
    settle()
    with open(log, "r+b") as f:
        text = f.read()
        f.seek(len(text) - 2)
        f.write(b"0" if text[-2:-1] != b"0" else b"1")
        f.seek(len(text))
        f.write(b"0\t1\t0\tno-such\t1\n")
    assert os.stat(log).st_ino == ino
    assert "verdict cache not used ('%s' changed)" % log in warm_as_cold()


if __name__ == "__main__":
    lotest.main(globals())
