"""The CI reports of clean, read by real consumers (issue 4).

SARIF: the log must pass `validate` of Microsoft's SARIF Multitool (npm
package @microsoft/sarif-multitool) without an error-level result. JUnit:
the file is parsed by junit2json (npm), and the testcase and failure counts
must be what the tree holds: one testcase per judged file, a broken one
failing while it is still in place and passing once clean moved it. The consumers are
installed with npm into the test's scratch directory; where that is not
possible the SARIF and JUnit checks are skipped with a message, never faked.
With GITHUB_ACTIONS=true the findings are also ::error annotations.
"""
import json
import os
import stat
import subprocess
from pathlib import Path

import lotest

BROKEN_C = "extern int no_library_has_this(void);\nint f(void) { return no_library_has_this(); }\n"
NAMES = ["lib/libbroken.so", "lib/we&ird <name> \"q\".so"]


def tree(d):
    build = d / "build"
    for n in NAMES:
        lotest.cc(build / n, BROKEN_C)
    lotest.cc(build / "lib" / "libok.so", "int g(void) { return 1; }\n")
    for p in (build / "lib").glob("*.c"):
        p.unlink()
    return build


_npm = None


def npm_tools():
    """node_modules/.bin of a scratch npm install, or None (with the reason printed)."""
    global _npm
    if _npm is not None:
        return _npm or None
    d = lotest.WORK / "npm"
    d.mkdir(parents=True, exist_ok=True)
    bin_ = d / "node_modules" / ".bin"
    if not (bin_ / "sarif-multitool").exists() or not (bin_ / "junit2json").exists():
        try:
            # short fetch timeouts: without a network, skip in a minute rather than ten
            p = lotest.run(["npm", "install", "--no-audit", "--no-fund", "--fetch-retries=1",
                            "--fetch-timeout=30000", "--prefix", d,
                            "@microsoft/sarif-multitool", "junit2json"], check=False, timeout=400)
        except (OSError, subprocess.TimeoutExpired) as e:  # no npm, or it hung
            print("SKIP: cannot run npm install:", e)
            _npm = False
            return None
        if p.returncode != 0:
            print("SKIP: npm install of the consumers failed:\n" + p.stderr[-2000:])
            _npm = False
            return None
    # npm may not run install scripts (the one that marks the binary executable)
    for exe in (d / "node_modules" / "@microsoft").glob("sarif-multitool-*/Sarif.Multitool"):
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    _npm = bin_
    return bin_


def validate_sarif(tools, log, d):
    out = d / (log.name + ".validation.sarif")
    if out.exists():
        out.unlink()
    p = lotest.run([tools / "sarif-multitool", "validate", log, "--output", out],
                   env={"DOTNET_SYSTEM_GLOBALIZATION_INVARIANT": "1"}, check=False, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    results = json.loads(out.read_text(encoding="utf-8-sig"))["runs"][0].get("results", [])
    errors = [r for r in results if r.get("level") == "error"]
    assert not errors, [(r["ruleId"], r["message"]) for r in errors]
    return results


def junit_counts(tools, xml):
    doc = json.loads(lotest.run([tools / "junit2json", xml]).stdout)
    cases = [c for s in doc["testsuite"] for c in s.get("testcase", [])]
    failed = [c for c in cases if c.get("failure")]
    return doc, cases, failed


def test_sarif_and_junit_read_by_real_consumers():
    d = lotest.workdir("clean-reports")
    build = tree(d)
    # without --broken nothing moves: both files fail
    r = lotest.leftover("clean", "--junit", d / "before.xml", "--sarif", d / "before.sarif", build)
    assert r.returncode == 1, r
    sarif = json.loads((d / "before.sarif").read_text())
    results = sarif["runs"][0]["results"]
    assert sorted(x["ruleId"] for x in results) == ["broken", "broken"], results
    # located on a source file (test_ci_github.py), each names its artifact
    names = sorted(x["properties"]["artifact"] for x in results)
    assert [n[len(n) - len(m):] for n, m in zip(names, sorted(NAMES))] == sorted(NAMES), names
    # and with --broken they move: the JUnit cases pass
    r = lotest.leftover("clean", "--broken", "--format", "junit", "--sarif", d / "after.sarif", build)
    assert r.returncode == 0, r
    (d / "after.xml").write_text(r.stdout)

    tools = npm_tools()
    if not tools:
        return
    # a validator that silently accepts anything would prove nothing: it must
    # reject a copy with a dangling ruleIndex
    bad = json.loads((d / "before.sarif").read_text())
    bad["runs"][0]["results"][0]["ruleIndex"] = 99
    (d / "control.sarif").write_text(json.dumps(bad))
    try:
        validate_sarif(tools, d / "control.sarif", d)
    except AssertionError as e:
        assert "SARIF1009" in str(e) or "ruleIndex" in str(e), e
    else:
        raise AssertionError("sarif-multitool accepted a dangling ruleIndex")
    print("sarif-multitool: %d notes/warnings on before.sarif"
          % len(validate_sarif(tools, d / "before.sarif", d)))
    validate_sarif(tools, d / "after.sarif", d)
    # one testcase per judged file, the one that loads passing
    doc, cases, failed = junit_counts(tools, d / "before.xml")
    assert len(cases) == 3 and len(failed) == 2, doc
    assert sorted(c["name"] for c in cases) == sorted(NAMES + ["lib/libok.so"]), cases
    assert sorted(c["name"] for c in failed) == sorted(NAMES), failed
    assert doc["tests"] == 3 and doc["failures"] == 2, doc
    doc, cases, failed = junit_counts(tools, d / "after.xml")
    assert len(cases) == 3 and not failed, doc
    moved = [c for c in cases if "quarantine" in "".join(c.get("system-out", []))]
    assert sorted(c["name"] for c in moved) == sorted(NAMES), cases


XSD = Path(__file__).resolve().parent / "junit.xsd"


def test_junit_of_a_clean_tree():
    """Every judged file a passing testcase, one testsuite per root, valid by the schema."""
    d = lotest.workdir("junit-clean")
    libs = {"a": ["libone.so", "sub/libtwo.so"], "b": ["libthree.so"]}
    for root, names in libs.items():
        for n in names:
            lotest.cc(d / root / n, "int f(void) { return 1; }\n")
        for c in (d / root).rglob("*.c"):
            c.unlink()
    r = lotest.leftover("clean", "--junit", d / "clean.xml", d / "a")
    assert r.returncode == 0, r
    r = lotest.leftover("scan", "--format", "junit", d / "a", d / "b")
    assert r.returncode == 0, r
    (d / "scan.xml").write_text(r.stdout)

    xmllint = lotest.need("xmllint", "libxml2-utils")
    for xml in ("clean.xml", "scan.xml"):
        p = lotest.run([xmllint, "--noout", "--schema", XSD, d / xml], check=False)
        assert p.returncode == 0, p.stderr
    # and the schema is no rubber stamp: a testcase without a name fails it
    (d / "control.xml").write_text((d / "clean.xml").read_text().replace(' name="libone.so"', ""))
    p = lotest.run([xmllint, "--noout", "--schema", XSD, d / "control.xml"], check=False)
    assert p.returncode != 0, p

    tools = npm_tools()
    if not tools:
        return
    doc, cases, failed = junit_counts(tools, d / "clean.xml")
    assert sorted(c["name"] for c in cases) == sorted(libs["a"]) and not failed, doc
    assert doc["tests"] == 2 and doc["failures"] == 0, doc
    doc, cases, failed = junit_counts(tools, d / "scan.xml")
    suites = {s["name"]: sorted(c["name"] for c in s["testcase"]) for s in doc["testsuite"]}
    assert suites == {"leftover %s" % (d / k): sorted(v) for k, v in libs.items()}, suites
    assert not failed and doc["tests"] == 3, doc


def test_github_annotations():
    d = lotest.workdir("clean-github")
    build = tree(d)
    r = lotest.run([lotest.LEFTOVER, "clean", build], env={"GITHUB_ACTIONS": "true"}, check=False)
    assert r.returncode == 1, r
    lines = [l for l in r.stdout.splitlines() if l.startswith("::")]
    assert len(lines) == 2, r.stdout
    # where file= points is test_ci_github.py's; the message names the artifact
    assert lines[0].startswith("::error ") and "/lib/libbroken.so: would not load" in lines[0], lines
    assert "no_library_has_this" in lines[0], lines
    r = lotest.run([lotest.LEFTOVER, "clean", "--broken", build], env={"GITHUB_ACTIONS": "true"},
                   check=False)
    assert r.returncode == 0, r
    assert sum(l.startswith("::warning ") for l in r.stdout.splitlines()) == 2, r.stdout
    r = lotest.run([lotest.LEFTOVER, "clean", build], env={"GITHUB_ACTIONS": ""}, check=False)
    assert "::" not in r.stdout, r.stdout


if __name__ == "__main__":
    lotest.main(globals())
