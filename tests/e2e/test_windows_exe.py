r"""leftover.exe under Wine, end to end: the Windows build says what the Linux one does (issue 46).

The seed of test_windows.py (wintree.py), built by MinGW-w64 with CMake and
Ninja: branch `main` builds three Python modules on capi.dll, branch `new`
drops two of capi.dll's exports (one by name, one by ordinal) and the
modules importing them. Tree `a` is built at main only; tree `b` at main,
then at new, so it keeps the two modules the current build no longer makes.
leftover.exe (LEFTOVER_EXE, cross-built with MinGW-w64; tests/CMakeLists.txt
passes its path) runs under Wine in the build's prefix, given Z:\ paths with
backslashes as a user types them, and must say what the Linux build says of
the same tree:

  - scan: b exits 1 and names the stale modules and the missing imports
    (each stale verdict held against the build itself), a exits 0; system
    DLLs come from the prefix's System32, with no note of a stand-in;
  - explain, given the ImportError Python prints, names the file and the import;
  - clean moves the stale modules into the quarantine, restore brings them
    back byte for byte;
  - every report (text, json, junit, sarif; under GITHUB_ACTIONS the
    annotations, the step summary and the outputs) parses and carries the
    Linux build's verdicts;
  - exit statuses 0, 1 and 2 as on Linux;
  - a module held open by another Wine process (probe/holdopen.c: shared for
    reading only, so Windows refuses to move it) is reported as not moved,
    left whole, and moved by the next clean once the process is gone.

Without LEFTOVER_EXE the Linux build plays leftover.exe, on Linux paths, and
the held-open case (only Windows refuses the move) is skipped: a way to
write the test, never what CI runs (tests/CMakeLists.txt always sets it).
One Wine prefix and one pair of trees serve the file.
"""
import hashlib
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import lotest
from wintree import CC64, PYDIR, TAG, configure_build, keep_server, seed_repo, setup_python, \
    wine, wine_env, winpath

EXE = os.environ.get("LEFTOVER_EXE")
SEED, ORDMOD, KEPT = "_mlirRegisterEverything" + TAG, "_ordmod" + TAG, "_mlir" + TAG
STALE = [SEED, ORDMOD]
IMPORT_ERROR = ("ImportError: DLL load failed while importing _mlirRegisterEverything: "
                "The specified procedure could not be found.")


def shown(path):
    """A path as the program under test is given it (and prints it)."""
    return winpath(path) if EXE else str(path)


def unix(text):
    """Text of leftover.exe's with its Z: paths (Z:\\tmp\\x as given, Z:/tmp/x as
    it spells a root) as Linux paths, to compare with the Linux build's."""
    return re.sub(r"Z:([\\/][^\s'\"<>|,)]*)", lambda m: m.group(1).replace("\\", "/"), text)


def said(text):
    """The lines of a text report, Linux paths, but the loader notes (see verdicts())."""
    return [l for l in unix(text).splitlines() if not l.lstrip().startswith("loader-note: ")]


def tool(*args, env=None):
    """The program under test with args (Paths given as shown()); never raises on its status.
    Windows' C runtime ends each line of a text stream with CRLF, as every
    Windows program's output does: read here as lines."""
    args = [shown(a) if isinstance(a, Path) else str(a) for a in args]
    if not EXE:
        return lotest.leftover(*args, env=env)
    e = wine_env()
    e.update(env or {})
    p = lotest.run([wine(), EXE] + args, env=e, check=False, timeout=300)
    p.stdout, p.stderr = p.stdout.replace("\r\n", "\n"), p.stderr.replace("\r\n", "\n")
    return p


def linux(*args, env=None):
    """The Linux build, the reference, on the same tree."""
    return lotest.leftover(*args, env=env)


def py():
    """--python: the tree's python.exe, the probe (wintree.setup_python)."""
    return ["--python", PYDIR / "python.exe"]


_trees = None


def trees():
    """(a, b, src) built once per file; the Wine prefix made."""
    global _trees
    if _trees:
        return _trees
    assert not EXE or os.path.isfile(EXE), \
        "LEFTOVER_EXE=%s: no leftover.exe; the cross build (ci/build-windows) made none" % EXE
    setup_python()
    d = lotest.workdir("winexe")
    src, a, b = d / "src", d / "a", d / "b"
    seed_repo(src)
    lotest.git(d, "clone", "-q", src, d / "src-a")
    configure_build(d / "src-a", a)
    configure_build(src, b)
    lotest.git(src, "checkout", "-q", "new")
    configure_build(src, b)
    assert all((b / m).exists() for m in STALE + [KEPT])
    if EXE:
        keep_server()
    _trees = a, b, src
    return _trees


def verdicts(doc):
    """What a scan's JSON says of each file: its verdict and what it rests on.
    Paths with "/"; the loader notes left out (the Linux build's name Wine's
    DLLs standing in for System32, which leftover.exe has itself)."""
    out = {}
    for f in doc["files"]:
        reasons = sorted((r["kind"], r["library"], r["symbol"], r["version"])
                         for r in f["reasons"] if r["kind"] != "loader-note")
        out[f["path"].replace("\\", "/")] = (f["verdict"], f["loads"], f["orphan"], f["kind"],
                                             f["arch"], unix(f["host"] or ""), reasons)
    return out


def put_back(b):
    """Every quarantine set of b restored (what a failed case left moved), newest first."""
    q = b / ".leftover.d" / "quarantine"
    while q.is_dir() and any(q.iterdir()):
        r = linux("restore", b)
        assert r.returncode == 0, r


def sha256s(root, names):
    return {n: hashlib.sha256((root / n).read_bytes()).hexdigest() for n in names}


def test_scan_names_the_stale_modules_and_the_missing_imports():
    a, b, src = trees()
    r = lotest.Scan(tool("scan", "--format", "json", *py(), b))
    assert r.rc == 1, r
    ref = lotest.scan(b, args=py())
    assert verdicts(r.doc) == verdicts(ref.doc), (r.doc, ref.doc)
    assert r.doc["summary"] == ref.doc["summary"], r.doc["summary"]
    f = r.file(SEED)
    assert f["verdict"] == "stale" and f["kind"] == "python-extension", f
    assert f["arch"] == "x64-windows" and f["host"] == shown(PYDIR / "python.exe"), f
    assert [(x["library"], x["symbol"]) for x in r.reasons(SEED, "undefined-symbol")] == \
        [("capi.dll", "mlirOld")], f
    assert [x["symbol"] for x in r.reasons(ORDMOD, "undefined-symbol")] == ["#5"], r.file(ORDMOD)
    assert r.file(KEPT)["verdict"] == "ok" and r.file("capi.dll")["verdict"] == "ok", r.doc
    # leftover.exe takes system DLLs from Windows' System32: no note of a stand-in
    # naming a directory of Linux's
    notes = {x["detail"] for f in r.doc["files"] for x in f["reasons"] if x["kind"] == "loader-note"}
    assert not EXE or not [n for n in notes if "System32" in n], notes
    # the source tree read through libgit2 on a Z: path: the commit checked out
    t = r.doc["trees"][0]
    assert t["commit"] == lotest.git(src, "rev-parse", "HEAD").strip() and t["branch"] == "new", t
    assert unix(t["source"]) == str(src) and unix(t["build"]) == str(b), t

    text = tool("scan", *py(), b)
    assert text.returncode == 1, text
    assert "%s: stale (python-extension)\n    undefined symbol: mlirOld, expected in capi.dll" \
        % SEED in text.stdout, text.stdout
    assert "undefined symbol: #5, expected in capi.dll" in text.stdout, text.stdout

    # branch a, where every module is still built and loads
    r = lotest.Scan(tool("scan", "--format", "json", *py(), a))
    assert r.rc == 0, r
    assert {p: v[0] for p, v in verdicts(r.doc).items()} == \
        {KEPT: "ok", SEED: "ok", ORDMOD: "ok", "capi.dll": "ok"}, r.doc
    assert tool("scan", *py(), a).returncode == 0


def test_explain_names_the_file_and_the_missing_import():
    a, b, src = trees()
    e = tool("explain", *py(), IMPORT_ERROR, b)
    assert e.returncode == 1, e
    assert SEED in e.stdout and "capi.dll!mlirOld" in e.stdout and "stale" in e.stdout, e.stdout
    ref = linux("explain", *py(), IMPORT_ERROR, b)
    assert e.returncode == ref.returncode and said(e.stdout) == said(ref.stdout), (e.stdout,
                                                                                  ref.stdout)


def junit_cases(xml):
    """{testcase name: failure type or None} of a JUnit report, checked
    against the schema the Linux tests hold the writer to."""
    d = lotest.WORK / "junit"
    d.mkdir(exist_ok=True)
    (d / "report.xml").write_text(xml)
    p = lotest.run([lotest.need("xmllint", "libxml2-utils"), "--noout", "--schema",
                    lotest.SOURCE_DIR / "tests/e2e/junit.xsd", d / "report.xml"], check=False)
    assert p.returncode == 0, p.stderr + xml
    root = ET.fromstring(xml)
    return {tc.get("name").replace("\\", "/"): (tc.find("failure").get("type")
                                                if tc.find("failure") is not None else None)
            for tc in root.iter("testcase")}


def sarif_results(text):
    """Each SARIF result's rule, level, location and fingerprint, by artifact."""
    log = json.loads(text)
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1, log
    out = {}
    for r in log["runs"][0]["results"]:
        art = r["locations"][0]["physicalLocation"]["artifactLocation"]
        assert "\\" not in art["uri"], art  # a URI, '/' whatever the system
        out[unix(r["properties"]["artifact"])] = (r["ruleId"], r["level"], art["uri"],
                                                  art["uriBaseId"], r["partialFingerprints"])
    for base in log["runs"][0]["originalUriBaseIds"].values():
        assert base["uri"].startswith("file:///") and "\\" not in base["uri"], base
    return out


def more(line):
    """A line with its count of further reasons left out."""
    return re.sub(r" \(and \d+ more\)", "", line)


def github(run, root, d):
    """clean --dry-run under GITHUB_ACTIONS by `run`: its annotations, step
    summary rows and outputs (the files the runner names, in `d`)."""
    out, summary = d / "github-output", d / "step-summary"
    for f in (out, summary):
        f.write_text("")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": shown(out) if run is tool else str(out),
           "GITHUB_STEP_SUMMARY": shown(summary) if run is tool else str(summary)}
    p = run("clean", "--dry-run", *py(), root, env=env)
    # "(and N more)" reasons: the Linux build's count holds its System32 note
    notes = sorted(more(unix(l)) for l in p.stdout.splitlines() if l.startswith("::"))
    rows = sorted(more(l) for l in summary.read_text().replace("\r\n", "\n").splitlines()
                  if l.startswith("| "))
    outputs = dict(l.split("=", 1) for l in out.read_text().replace("\r\n", "\n").splitlines())
    return p.returncode, notes, rows, outputs


def assert_scan_reports_agree(root, rc):
    """scan's every format, of leftover.exe and of the Linux build: same status, same verdicts."""
    got = {}
    for fmt in ("text", "json", "junit", "sarif"):
        p, ref = (run("scan", "--format", fmt, *py(), root) for run in (tool, linux))
        assert p.returncode == ref.returncode == rc, (fmt, p, ref)
        got[fmt] = p.stdout, ref.stdout
    p, ref = got["text"]
    assert said(p) == said(ref), (p, ref)
    p, ref = got["json"]
    assert verdicts(json.loads(p)) == verdicts(json.loads(ref)), (p, ref)
    p, ref = got["junit"]
    cases = junit_cases(p)
    assert cases == junit_cases(ref), (p, ref)
    assert sorted(n for n, t in cases.items() if t) == (STALE if rc else []), p
    p, ref = got["sarif"]
    assert sarif_results(p) == sarif_results(ref), (p, ref)


def test_reports_in_every_format_carry_the_linux_verdicts():
    a, b, src = trees()
    assert_scan_reports_agree(a, 0)
    assert_scan_reports_agree(b, 1)
    # clean's own reports, of a dry run: the tree stays as it is
    for fmt in ("json", "junit", "sarif"):
        p, ref = (run("clean", "--dry-run", "--format", fmt, *py(), b) for run in (tool, linux))
        assert p.returncode == ref.returncode == 1, (fmt, p, ref)
        if fmt == "json":
            keys = ("path", "verdict", "status", "size", "error")
            acts = [{k: x[k] for k in keys} for x in json.loads(p.stdout)["actions"]]
            assert acts == [{k: x[k] for k in keys} for x in json.loads(ref.stdout)["actions"]], \
                (p.stdout, ref.stdout)
            assert sorted(x["path"] for x in acts) == STALE, acts
        elif fmt == "junit":
            assert junit_cases(p.stdout) == junit_cases(ref.stdout), (p.stdout, ref.stdout)
        else:
            assert sarif_results(p.stdout) == sarif_results(ref.stdout), (p.stdout, ref.stdout)
    d = lotest.WORK / "github"
    d.mkdir(exist_ok=True)
    got, want = github(tool, b, d), github(linux, b, d)
    assert got == want, (got, want)
    assert got[3]["stale"] == str(len(STALE)) and len(got[1]) == len(STALE), got


def test_exit_statuses_as_on_linux():
    a, b, src = trees()
    missing = b.parent / "missing"
    cases = [  # (arguments, status, what stderr says)
        (["scan", *py(), a], 0, None),
        (["scan", *py(), b], 1, None),
        (["explain", *py(), IMPORT_ERROR, b], 1, None),
        (["clean", "--dry-run", *py(), a], 0, None),
        (["scan", "--no-such-option", b], 2, "no-such-option"),
        (["scan", "--format", "xml", b], 2, "--format takes text, json, junit or sarif, not 'xml'"),
        (["scan", missing], 2, "'%s'" % shown(missing)),
        (["clean", b / "CMakeCache.txt"], 2, "clean: '%s' is not a directory"
         % shown(b / "CMakeCache.txt")),
        (["restore", a], 2, None),  # no quarantine set
        (["explain", IMPORT_ERROR, missing], 2, None),
    ]
    for args, rc, says in cases:
        p, ref = tool(*args), linux(*args)
        assert (p.returncode, ref.returncode) == (rc, rc), (args, p, ref)
        assert says is None or says in p.stderr, (args, p.stderr)


def test_clean_and_restore_on_a_drive_letter_path():
    a, b, src = trees()
    put_back(b)
    before = sha256s(b, STALE + [KEPT, "capi.dll"])
    c = tool("clean", *py(), b)
    assert c.returncode == 0, c
    assert not any((b / m).exists() for m in STALE) and (b / KEPT).exists(), c.stdout
    sets = tool("restore", "--list", b)
    assert sets.returncode == 0 and len(sets.stdout.split()) == 1, sets
    stamp = sets.stdout.split()[0]
    held = b / ".leftover.d" / "quarantine" / stamp
    assert sha256s(held, STALE) == {m: before[m] for m in STALE}, list(held.iterdir())
    after = lotest.Scan(tool("scan", "--format", "json", *py(), b))
    assert after.rc == 0, after
    back = tool("restore", b)
    assert back.returncode == 0, back
    assert sha256s(b, before) == before
    assert tool("scan", *py(), b).returncode == 1


def holdopen():
    """probe/holdopen.c built for Windows, once per file."""
    exe = lotest.WORK / "holdopen.exe"
    if not exe.exists():
        lotest.run([CC64, "-O1", "-municode", "-o", exe,
                    lotest.SOURCE_DIR / "tests/e2e/probe/holdopen.c"])
    return exe


def holder(path):
    """A Wine process holding `path` open until its stdin closes (running once it says so)."""
    p = subprocess.Popen([wine(), str(holdopen()), "hold", winpath(path)], text=True,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=dict(os.environ, **wine_env()))
    line = p.stdout.readline().strip()
    assert line == "held", line
    return p


def release(p):
    p.stdin.close()
    assert p.stdout.read().split() == ["released"] and p.wait(timeout=60) == 0


def test_a_module_held_open_is_reported_not_lost():
    a, b, src = trees()
    if not EXE:
        print("SKIP: the Linux build moves a file held open; only Windows refuses")
        return
    put_back(b)
    seed = b / SEED
    before = sha256s(b, STALE)
    h = holder(seed)
    try:
        # Windows (Wine too) refuses to move a file opened without FILE_SHARE_DELETE
        m = lotest.run([wine(), holdopen(), "move", winpath(seed), winpath(b / "moved.pyd")],
                       env=wine_env(), check=False)
        assert m.stdout.split() == ["error", "32"], m  # ERROR_SHARING_VIOLATION
        c = tool("clean", "--format", "json", *py(), b)
        # as the Linux build does for a file it could not move: said, exit 1, the rest moved
        assert c.returncode == 1, c
        acts = {x["path"]: x for x in json.loads(c.stdout)["actions"]}
        assert acts[ORDMOD]["status"] == "moved" and acts[SEED]["status"] == "failed", acts
        assert acts[SEED]["error"].startswith("cannot move '%s' into the quarantine: " % SEED)
        assert re.search(r"busy|in use|being used|sharing", acts[SEED]["error"], re.I), acts
        assert acts[SEED]["error"] in c.stderr, c.stderr
        assert seed.exists() and sha256s(b, [SEED]) == {SEED: before[SEED]}
        assert not (b / ORDMOD).exists(), c.stdout
        j = lotest.Scan(tool("scan", "--format", "json", *py(), b))
        assert [f["path"] for f in j.doc["files"] if f["verdict"] == "stale"] == [SEED], j.doc
    finally:
        release(h)  # its process gone, and the handle with it
    c = tool("clean", *py(), b)
    assert c.returncode == 0 and not seed.exists(), c
    # both sets back, byte for byte: the one that moved ORDMOD and this one
    for _ in range(2):
        r = tool("restore", b)
        assert r.returncode == 0, r
    assert sha256s(b, STALE) == before


def test_stale_verdicts_held_against_the_build():
    """Last: removes what leftover.exe calls stale and builds b again."""
    a, b, src = trees()
    put_back(b)
    r = lotest.Scan(tool("scan", "--format", "json", *py(), b))
    assert lotest.stale_paths(r) == STALE, r
    lotest.assert_stale_not_rebuilt(r, b, [lotest.CMAKE, "--build", b])


if __name__ == "__main__":
    lotest.main(globals())
