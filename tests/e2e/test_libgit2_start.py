"""What leftover leaves out of libgit2's start (auditor/src/build/git.c).

A libgit2 built with mbedTLS, as Debian's is, parses the system's CA
bundle when it starts, for https remotes, which leftover never reaches.
leftover defines the one function that reads it, and declines. Held
against the dynamic loader, which says with LD_DEBUG=bindings which object
each reference bound to, and against the files a scan opens (strace).
"""
import os

import lotest

SYMBOL = "mbedtls_x509_crt_parse_file"


def bindings_of(symbol, ld_debug_dir):
    """(from, to) of every binding of `symbol` in the LD_DEBUG output files."""
    found = []
    for name in os.listdir(ld_debug_dir):
        with open(os.path.join(ld_debug_dir, name), errors="replace") as f:
            for line in f:
                # "binding file A [0] to B [0]: normal symbol `S' [VERSION]"
                if "binding file " not in line or "`%s'" % symbol not in line:
                    continue
                rest = line.split("binding file ", 1)[1]
                src, rest = rest.split(" [", 1)
                dst = rest.split(" to ", 1)[1].split(" [", 1)[0]
                found.append((src, dst))
    return found


def test_libgit2_binds_the_ca_reader_to_leftover():
    work = lotest.workdir("libgit2_start_bindings")
    tree = work / "tree"
    tree.mkdir()
    debug = work / "ld"
    debug.mkdir()
    # every reference bound at start, called or not: the answer does not
    # hang on whether this machine has a CA bundle for libgit2 to read
    r = lotest.scan(tree, env={"LD_BIND_NOW": "1", "LD_DEBUG": "bindings",
                               "LD_DEBUG_OUTPUT": str(debug / "out")})
    assert r.rc == 0 and r.doc["summary"]["files"] == 0, r
    from_libgit2 = [(s, d) for s, d in bindings_of(SYMBOL, debug)
                    if os.path.basename(s).startswith("libgit2.")]
    if not from_libgit2:
        print("libgit2 here does not use mbedTLS's %s: nothing to decline" % SYMBOL)
        return
    assert all(d == lotest.LEFTOVER for _, d in from_libgit2), from_libgit2


def test_a_scan_never_opens_the_ca_bundle():
    work = lotest.workdir("libgit2_start_opens")
    tree = work / "tree"
    tree.mkdir()
    (tree / "libx.so").write_bytes(b"not an object")
    _, lines = lotest.traced_scan(tree, "open,openat,openat2", work / "trace")
    opened = "\n".join(lines)
    assert "libx.so" in opened  # the trace holds the scan's own opens
    assert "ca-certificates" not in opened and "/etc/ssl/" not in opened, \
        [line for line in lines if "/etc/ssl" in line or "ca-cert" in line]


if __name__ == "__main__":
    lotest.main(globals())
