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
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in log["runs"][0]["results"]]
    assert len(uris) == 1 and uris[0].endswith("libuser.so"), uris


def test_unknown_format_is_a_usage_error():
    p = lotest.leftover("scan", "--format", "xml", lotest.workdir("formats-bad"))
    assert p.returncode == 2 and "--format takes text, json, junit or sarif, not 'xml'" in p.stderr, p


if __name__ == "__main__":
    lotest.main(globals())
