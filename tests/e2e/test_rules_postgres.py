"""PostgreSQL extensions under the default rules (rules/postgres.rules).

An extension exports Pg_magic_func (PG_MODULE_MAGIC) and takes palloc,
elog, SPI_* ... from the postgres server program, which exports all of its
functions. leftover knows one by that export and judges it from the server
beside it (Debian's /usr/lib/postgresql/N/lib next to N/bin/postgres), else
the newest of Debian's servers. Truth: `LOAD 'path'` in a real server (a
cluster initdb'd in the test, listening only on a unix socket in its own
directory), one backend per extension: the server loads with
dlopen(RTLD_NOW | RTLD_GLOBAL), so a backend that has loaded one would lend
its symbols to the next. Debian's postgresql-15 and postgresql-server-dev-15
(PGXS) are installed by the test when missing.
"""
import concurrent.futures
import contextlib
import os
import pwd
import time

import lotest

BIN = "/usr/lib/postgresql/15/bin"
LIB = "/usr/lib/postgresql/15/lib"
EXT = """#include "postgres.h"
#include "fmgr.h"
PG_MODULE_MAGIC;
PG_FUNCTION_INFO_V1(answer);
Datum answer(PG_FUNCTION_ARGS) {
  int32 *v = palloc(sizeof(int32)), r; *v = 42; r = *v; pfree(v); PG_RETURN_INT32(r); }
"""


@contextlib.contextmanager
def server(work):
    """A postgres server of a fresh cluster, on a unix socket in `work`; the socket dir."""
    pw = pwd.getpwnam("postgres")
    data, sock = work / "data", work / "sock"
    sock.mkdir()
    os.chown(work, pw.pw_uid, pw.pw_gid)
    os.chown(sock, pw.pw_uid, pw.pw_gid)
    as_pg = ["runuser", "-u", "postgres", "--"]
    lotest.run(as_pg + [BIN + "/initdb", "-D", data, "-A", "trust", "--no-sync"])
    lotest.run(as_pg + [BIN + "/pg_ctl", "-D", data, "-w", "-l", work / "log", "-o",
                        "-c listen_addresses='' -k %s -c fsync=off" % sock, "start"])
    try:
        yield sock
    finally:
        lotest.run(as_pg + [BIN + "/pg_ctl", "-D", data, "-m", "immediate", "stop"],
                   check=False)


def pg_load(sock, paths):
    """What a fresh backend says to `LOAD 'path'`, for each path: "ok" when the
    library loaded (its _PG_init may still refuse: sepgsql wants to be in
    shared_preload_libraries), else "error" and the server's message."""
    def one(p):
        r = lotest.run([BIN + "/psql", "-X", "-q", "-h", sock, "-U", "postgres", "-d",
                        "postgres", "-v", "ON_ERROR_STOP=1", "-c", "LOAD '%s'" % p],
                       check=False, timeout=60)
        loaded = r.returncode == 0 or "could not load library" not in r.stderr
        return "ok" if loaded else "error " + r.stderr.strip()
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        return list(ex.map(one, [str(p) for p in paths]))


def test_postgres_extensions_are_judged_from_the_server():
    postgres = lotest.need(BIN + "/postgres", "postgresql-15")
    lotest.need("/usr/include/postgresql/15/server/postgres.h", "postgresql-server-dev-15")
    work = lotest.workdir("rules-postgres")
    os.chmod(work, 0o755)

    # a PGXS build: one extension that uses what the server has, one that
    # also needs a function it has not
    tree = work / "tree"
    tree.mkdir()
    (tree / "good.c").write_text(EXT)
    (tree / "bad.c").write_text(EXT + "extern void pg_not_in_server(void);\n"
                                "void _PG_init(void) { pg_not_in_server(); }\n")
    (tree / "Makefile").write_text("MODULES = good bad\nPG_CONFIG = %s/pg_config\n"
                                   "PGXS := $(shell $(PG_CONFIG) --pgxs)\ninclude $(PGXS)\n"
                                   % BIN)
    lotest.run(["make", "-C", tree])
    rels = ["good.so", "bad.so"]
    # what makes them the server's: from a C program they do not load
    plain = lotest.dlopen([tree / p for p in rels])
    assert all("undefined symbol" in a for a in plain), plain

    with server(work) as sock:
        truth = pg_load(sock, [tree / p for p in rels])
        assert truth[0] == "ok" and "pg_not_in_server" in truth[1], truth
        r = lotest.scan(tree)
        # postgres on PATH (a symlink to it on some machines), else Debian's
        lotest.assert_hosted(r, rels, truth, "postgres", postgres, "pg_not_in_server")
        assert r.rc == 1, r

        # the server's own extensions, each as a backend LOADs it
        t0 = time.time()
        r = lotest.scan(LIB)
        files = {p: f for p, f in r.files.items() if f["verdict"] != "skipped"}
        truth = pg_load(sock, [os.path.join(LIB, p) for p in files])
        agree = [p for p, t in zip(files, truth) if files[p]["loads"] is (t == "ok")]
        assert len(agree) == len(files) >= 80, (
            "%d/%d agree" % (len(agree), len(files)),
            [(p, files[p]["verdict"], t) for p, t in zip(files, truth) if p not in agree])
        assert all(f["host"] == postgres for f in files.values()), r
        print("%s: %d/%d agree with LOAD (%d broken), %.0f s" % (
            LIB, len(agree), len(files),
            sum(f["verdict"] == "broken" for f in files.values()), time.time() - t0))

    # a machine without a server: the scan goes on, and only what the rule
    # cannot know is taken as the server's
    (work / "noserver.rules").write_text(
        "[host \"postgres\"]\n\tprogram = ${cmake:POSTGRES_EXECUTABLE:-/nonexistent/*/postgres}\n")
    r = lotest.scan(tree, args=["--rules", work / "noserver.rules"])
    assert r.rc == 0, r
    for rel in rels:
        f = r.file(rel)
        assert f["host_rule"] == "postgres" and f["host"] is None and f["verdict"] == "ok", f


if __name__ == "__main__":
    lotest.main(globals())
