"""`leftover scan --format junit|sarif`: the CI reports straight from a scan.

The reports are parsed back (JUnit with an XML parser, SARIF as JSON) and
must name exactly the files the JSON report calls broken. clean's reports
are validated against real consumers in test_clean_reports.py; these use
the same writers.
"""
import json
import xml.etree.ElementTree as ET

import lotest


def tree():
    d = lotest.workdir("formats")
    lotest.cc(d / "lib" / "libgone.so", "int gone(void){return 1;}")
    lotest.cc(d / "libuser.so", "int gone(void); int user(void){return gone();}",
              "-L", d / "lib", "-lgone", "-Wl,-rpath,$ORIGIN/lib")
    lotest.cc(d / "libfine.so", "int fine(void){return 0;}")
    lotest.cc(d / "lib" / "libgone.so", "int other(void){return 1;}")
    return d


def test_json_of_many_files_is_one_document_in_order():
    # Past a few hundred files the report is written by two threads, one
    # half each: the document must read as one, every file once, in order.
    d = tree()
    lib = (d / "libfine.so").read_bytes()
    many = ["many/%03d/libfine%d.so" % (i // 10, i) for i in range(700)]
    for rel in many:
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_bytes(lib)
    r = lotest.scan(d)
    assert r.rc == 1, r
    paths = [f["path"] for f in r.doc["files"]]
    assert paths == sorted(many + ["lib/libgone.so", "libfine.so", "libuser.so"]), paths
    assert [p for p in paths if r.file(p)["verdict"] != "ok"] == ["libuser.so"], r.doc
    # jansson's layout, as one dump of the whole document writes it
    assert r.stdout == json.dumps(r.doc, indent=1, ensure_ascii=False) + "\n", r.stdout[:2000]


def test_junit_has_a_failing_testcase_per_broken_file():
    d = tree()
    broken = {p for p, f in lotest.scan(d).files.items() if f["verdict"] == "broken"}
    assert broken == {"libuser.so"}, broken
    p = lotest.leftover("scan", "--format", "junit", d)
    assert p.returncode == 1, p
    root = ET.fromstring(p.stdout)
    failed = {tc.get("name") for tc in root.iter("testcase") if tc.find("failure") is not None}
    assert failed == broken, p.stdout


def test_sarif_has_a_result_per_broken_file():
    d = tree()
    p = lotest.leftover("scan", "--format", "sarif", d)
    assert p.returncode == 1, p
    log = json.loads(p.stdout)
    assert log["version"] == "2.1.0", log
    # located on a source file where one is known (test_ci_github.py); the artifact is named
    names = [r["properties"]["artifact"] for r in log["runs"][0]["results"]]
    assert len(names) == 1 and names[0].endswith("libuser.so"), names


def test_unknown_format_is_a_usage_error():
    p = lotest.leftover("scan", "--format", "xml", lotest.workdir("formats-bad"))
    assert p.returncode == 2 and "--format takes text, json, junit or sarif, not 'xml'" in p.stderr, p


def test_root_that_is_not_a_directory():
    d = lotest.workdir("formats-roots")
    for cmd in ("scan", "clean", "restore", "rules"):
        r = lotest.leftover(cmd, "/etc/passwd")
        assert r.returncode == 2, r
        assert "%s: '/etc/passwd' is not a directory" % cmd in r.stderr, r.stderr
    r = lotest.leftover("scan", d, d / "missing")
    assert r.returncode == 2 and "'%s'" % (d / "missing") in r.stderr, r


def test_paths_of_two_roots():
    """Relative to the reported root only inside a scanned root, never elsewhere.

    a/libneed.so needs f@V2; the libv.so found through --library-path, in
    sys/ (under the common root of a/ and b/, in neither), has only f@V1: the
    reason names that library by its absolute path, not as "sys/libv.so",
    which would read as a file of the scan.
    """
    d = lotest.workdir("formats-two-roots")
    for ver in ("V1", "V2"):
        (d / (ver + ".map")).write_text("%s { global: f; local: *; };\n" % ver)
    src = "int f(void) { return 2; }\n"
    lotest.cc(d / "v2" / "libv.so", src, "-Wl,-soname,libv.so", "-Wl,--version-script=%s" % (d / "V2.map"))
    lotest.cc(d / "sys" / "libv.so", src, "-Wl,-soname,libv.so", "-Wl,--version-script=%s" % (d / "V1.map"))
    lotest.cc(d / "a" / "libneed.so", "extern int f(void);\nint g(void) { return f(); }\n",
              "-L", d / "v2", "-lv")
    lotest.cc(d / "b" / "libok.so", src)
    r = lotest.scan(d / "a", d / "b", args=("--library-path", d / "sys"))
    assert r.doc["root"] == str(d), r.doc["root"]
    [reason] = r.reasons("a/libneed.so", "missing-version")
    assert reason["library"] == str(d / "sys" / "libv.so"), reason
    roots = (d / "a", d / "b")
    for f in r.doc["files"]:
        for p in [f["path"], f.get("target")] + [x[k] for x in f["reasons"]
                                                  for k in ("object", "library")]:
            if p and not p.startswith("/"):
                assert any((d / p).is_relative_to(root) for root in roots), (p, f)


if __name__ == "__main__":
    lotest.main(globals())
