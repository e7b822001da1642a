"""Hostile file names (issue 7): non-UTF-8 bytes, newlines, tabs, a leading
dash. Text output shows each on one line, escaped; JSON gives them back
losslessly (docs/json.md: "path" with \\xNN escapes plus "path_hex" for names that
are not valid UTF-8; valid UTF-8 names, newlines included, as plain JSON
strings); and a name that looks like an option is not taken for one.
"""

import json
import os

import lotest

NAMES = [
    b"bad-\xff\xfe.so",        # not UTF-8
    b"line\nbreak.so",        # a newline would split a text line
    b"tab\there.so",
    b"-rf.so",                # a leading dash
    b"--format=text.so",
    b"esc-\x1b[31m.so",       # a terminal escape
    b"back\\slash.so",
    b"caf\xc3\xa9.so",        # valid UTF-8
]


def test_names_text_and_json():
    d = lotest.workdir("hardening_names")
    src = lotest.cc(d / "src" / "one.so", "int one(void){return 1;}\n")
    tree = d / "tree"
    tree.mkdir()
    # The same object under each name, plus a broken (not loadable) one, so
    # each name shows up in a finding too.
    data = src.read_bytes()
    for n in NAMES:
        with open(os.path.join(bytes(tree), n), "wb") as f:
            f.write(data)
        with open(os.path.join(bytes(tree), b"broken-" + n), "wb") as f:
            f.write(data[:300])
    r = lotest.scan(tree)
    assert r.rc == 1, r
    got = set()
    for f in r.doc["files"]:
        if "path_hex" in f:
            raw = bytes.fromhex(f["path_hex"])
        else:
            raw = f["path"].encode("utf-8")
        got.add(raw)
    want = set(NAMES) | {b"broken-" + n for n in NAMES}
    assert got == want, "JSON lost names: %s / extra %s" % (sorted(want - got), sorted(got - want))
    # Valid UTF-8 names are plain strings, without path_hex.
    by_path = {f["path"]: f for f in r.doc["files"]}
    assert "caf\u00e9.so" in by_path and "path_hex" not in by_path["caf\u00e9.so"], by_path.keys()
    assert "line\nbreak.so" in by_path, by_path.keys()

    # Text: every finding on one line, no raw control byte, no invalid UTF-8.
    t = lotest.run([lotest.LEFTOVER, "scan", "--verbose", tree], check=False)
    assert t.returncode == 1, t
    out = t.stdout.encode("utf-8", "surrogateescape")
    assert b"\x1b" not in out and b"\xff" not in out and b"\t" not in out, out[-2000:]
    assert len([l for l in out.split(b"\n") if b"broken-" in l and b".so" in l]) >= len(NAMES), \
        out.decode("utf-8", "replace")
    assert b"line\\nbreak.so" in out, out.decode("utf-8", "replace")
    # The reason quoting the name is whole too, not cut at the name's newline.
    assert b"broken-line\\nbreak.so'" in out, out.decode("utf-8", "replace")


def test_leading_dash_is_not_an_option():
    d = lotest.workdir("hardening_dash")
    lotest.cc(d / "-x" / "liba.so", "int a(void){return 1;}\n")
    # After --, a directory named like an option is scanned, not parsed.
    r = lotest.run([lotest.LEFTOVER, "scan", "--format", "json", "--", "-x"], cwd=d, check=False)
    assert r.returncode == 0, r
    assert [f["path"] for f in json.loads(r.stdout)["files"]] == ["liba.so"], r.stdout


if __name__ == "__main__":
    lotest.main(globals())
