"""Ruby C extensions as Debian ships them (ruby-json), with the default rules.

Debian links its Ruby extensions against libruby, so they load from any
program and need no [host] rule; the test holds that leftover does not
call them broken, with ruby itself requiring each one as the truth. ruby
and ruby-json (Debian 12's paths) are installed by the test when missing.
"""
import glob

import lotest


def test_debian_ruby_extensions_are_not_broken():
    ruby = lotest.need("ruby", "ruby")
    lotest.need("/usr/lib/x86_64-linux-gnu/rubygems-integration/3.1.0/extensions/x86_64-linux/"
                "3.1.0/json-2.6.3/json/ext/parser.so", "ruby-json")
    exts = sorted(glob.glob("/usr/lib/x86_64-linux-gnu/rubygems-integration/*/extensions/"
                            "*/*/json-*/json/ext/*.so"))
    assert len(exts) >= 2, exts
    for ext in exts:
        p = lotest.run([ruby, "-e", "require ARGV[0]", ext], check=False)
        assert p.returncode == 0, (ext, p.stderr)
        r = lotest.scan(ext.rsplit("/", 1)[0])
        f = r.file(ext.rsplit("/", 1)[1])
        assert f["verdict"] == "ok" and f["loads"] is True, f


if __name__ == "__main__":
    lotest.main(globals())
