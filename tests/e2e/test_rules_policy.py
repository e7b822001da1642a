"""What rules change in a scan's answer: ignored symbols, [fail] on, keep, bad rules.

A tree with one library that needs an instrumentation hook nobody provides
(as a coverage build leaves behind) and one that is fine. [symbols] ignore
makes the hook no finding; [fail] on and `action = keep` change the exit
status but never the verdicts in the report; a bad rule in any layer stops
the scan before it starts, naming the file, line and key.
"""
import lotest

ENV = {"XDG_CONFIG_HOME": str(lotest.WORK / "no-user-rules")}


def scan(*args):
    return lotest.Scan(lotest.run([lotest.LEFTOVER, "scan", "--format", "json"] + [str(a) for a in args],
                                  env=ENV, check=False))


def tree(name):
    d = lotest.workdir(name)
    t = d / "tree"
    lotest.cc(t / "lib" / "libcov.so", "extern void __gcov_dump(void);\nvoid f(void) { __gcov_dump(); }\n")
    lotest.cc(t / "lib" / "libfine.so", "int g(void) { return 1; }\n")
    return d, t


def write(path, text):
    path.write_text(text)
    return path


def test_ignored_symbols_are_no_finding():
    d, t = tree("rules-policy-ignore")
    r = scan(t)
    assert r.rc == 1, r
    assert [x["symbol"] for x in r.reasons("lib/libcov.so", "undefined-symbol")] == ["__gcov_dump"], r
    [answer] = lotest.dlopen([t / "lib" / "libcov.so"])
    assert "__gcov_dump" in answer, answer

    ignore = write(d / "ignore.rules", "[symbols]\n\tignore = __gcov_*\n")
    r = scan("--rules", ignore, t)
    assert r.rc == 0, r
    assert r.file("lib/libcov.so")["verdict"] == "ok" and r.reasons("lib/libcov.so") == [], r


def test_fail_on_and_keep_change_the_exit_status_only():
    d, t = tree("rules-policy-fail")
    never = write(d / "never.rules", "[fail]\n\ton = never\n")
    r = scan("--rules", never, t)
    assert r.rc == 0, r
    assert r.file("lib/libcov.so")["verdict"] == "broken", r

    keep = write(d / "keep.rules", "[rule \"coverage\"]\n\tmatch = lib/libcov.so\n\taction = keep\n"
                                   "\treason = coverage builds are cleaned by their own script\n")
    r = scan("--rules", keep, t)
    assert r.rc == 0, r
    f = r.file("lib/libcov.so")
    assert f["verdict"] == "broken", f
    assert [x["detail"] for x in r.reasons("lib/libcov.so", "rule")] == \
        ["coverage builds are cleaned by their own script"], f

    stale_only = write(d / "broken-ok.rules", "[rule \"coverage\"]\n\tmatch = lib/libcov.so\n"
                                              "\taction = keep\n\ton = stale\n")
    assert scan("--rules", stale_only, t).rc == 1


def test_bad_rules_stop_the_scan():
    d, t = tree("rules-policy-bad")
    (t / ".leftover").mkdir(exist_ok=True)
    bad = write(t / ".leftover" / "rules", "[candidates]\n\tinclude = *.so\n[rule \"x\"]\n\tmatch = lib[.so\n")
    p = lotest.run([lotest.LEFTOVER, "scan", t], env=ENV, check=False)
    assert p.returncode == 2 and p.stdout == "", p
    assert "%s:4: rule.x.match: bad pattern 'lib[.so'" % bad in p.stderr, p.stderr
    bad.unlink()
    p = lotest.run([lotest.LEFTOVER, "scan", "--rules", "no-such-pack", t], env=ENV, check=False)
    assert p.returncode == 2 and "'no-such-pack'" in p.stderr, p


if __name__ == "__main__":
    lotest.main(globals())
