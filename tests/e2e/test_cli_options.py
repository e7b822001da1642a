"""The options that say how files are judged, the same in scan, clean and explain.

--python, --host and --library-path (all three commands), --rules and
--jobs (scan and clean) are parsed in one place (auditor/cli/opts.c).
Each is checked here in every command that takes it, by what it changes on
a real tree: a library that finds its dependency only through
--library-path, a rule file that says no finding fails the run, a bad
--jobs that stops the command before it starts.
"""
import lotest

NEED_C = "extern int f(void);\nint n(void) { return f(); }\n"


def tree(name):
    """d/libneed.so needs d/lib/libf.so and has no RPATH to find it."""
    d = lotest.workdir(name)
    lotest.cc(d / "lib" / "libf.so", "int f(void) { return 1; }\n")
    lotest.cc(d / "libneed.so", NEED_C, "-L", d / "lib", "-lf")
    return d


def test_library_path_in_each_command():
    d = tree("cli-llp")
    llp = ("--library-path", "/nonexistent:%s" % (d / "lib"))

    assert lotest.scan(d).file("libneed.so")["verdict"] == "broken"
    r = lotest.scan(d, args=llp)
    assert r.rc == 0 and r.file("libneed.so")["verdict"] == "ok", r

    r = lotest.leftover("clean", "--broken", "--dry-run", d)
    assert r.returncode == 1 and "would move libneed.so" in r.stdout, r
    r = lotest.leftover("clean", "--broken", "--dry-run", *llp, d)
    assert r.returncode == 0 and "libneed.so" not in r.stdout, r

    r = lotest.leftover("explain", d / "libneed.so")
    assert r.returncode == 1 and "libf.so => not found" in r.stdout, r
    r = lotest.leftover("explain", "--verbose", *llp, d / "libneed.so")
    assert r.returncode == 0 and "libf.so => %s" % (d / "lib" / "libf.so") in r.stdout, r


def test_rules_and_jobs_in_scan_and_clean():
    d = tree("cli-rules-jobs")
    never = d / "never.rules"
    never.write_text("[fail]\n\ton = never\n")
    for cmd in ("scan", "clean"):
        assert lotest.leftover(cmd, d).returncode == 1
        r = lotest.leftover(cmd, "--rules", never, "-j", "2", d)
        assert r.returncode == 0, r
        r = lotest.leftover(cmd, "--rules", d / "missing.rules", d)
        assert r.returncode == 2 and "missing.rules" in r.stderr, r
        for bad in ("0", "1025", "two", ""):
            r = lotest.leftover(cmd, "--jobs", bad, d)
            assert r.returncode == 2, r
            assert "%s: --jobs takes a number from 1 to 1024, not '%s'" % (cmd, bad) in r.stderr, r
    # explain judges one file: no rules layers, no threads
    for opt in ("--rules", "--jobs"):
        r = lotest.leftover("explain", opt, "1", d / "libneed.so")
        assert r.returncode == 2 and "usage" in r.stderr, r


def test_help_describes_each_shared_option_alike():
    lines = {}
    for cmd, opts in (("scan", ("--python", "--host", "--library-path", "--rules", "--jobs")),
                      ("clean", ("--python", "--host", "--library-path", "--rules", "--jobs")),
                      ("explain", ("--python", "--host", "--library-path"))):
        r = lotest.leftover(cmd, "--help")
        assert r.returncode == 0, r
        for opt in opts:
            line = [l for l in r.stdout.splitlines() if l.lstrip().startswith(opt)
                    or l.lstrip().startswith("-j, " + opt)]
            assert len(line) == 1, (cmd, opt, r.stdout)
            lines.setdefault(opt, set()).add(line[0])
    for opt, seen in lines.items():
        assert len(seen) == 1, (opt, seen)


if __name__ == "__main__":
    lotest.main(globals())
