"""Lua C modules under the default rules (rules/lua.rules).

A Lua C module leaves lua_*/luaL_* undefined: the interpreter that
require()s it provides them. leftover knows such a module by what it needs
and judges it from the lua of its version (lua/5.4/ -> lua5.4), or from
`lua` elsewhere. Truth: lua5.4 loading each module itself
(package.loadlib, RTLD_NOW), in a child. Debian's lua-cjson and lua5.4 are
installed by the test when missing.
"""
import glob
import shutil

import lotest


def test_lua_modules_are_judged_from_lua():
    lua = lotest.need("lua5.4", "lua5.4")
    lotest.need("/usr/lib/x86_64-linux-gnu/lua/5.4/cjson.so", "lua-cjson")
    work = lotest.workdir("rules-lua")
    tree = work / "tree"
    (tree / "lib" / "lua" / "5.4").mkdir(parents=True)
    shutil.copy("/usr/lib/x86_64-linux-gnu/lua/5.4/cjson.so", tree / "lib" / "lua" / "5.4")
    # one built here: it needs a function lua has, and one it has not
    good = lotest.cc(tree / "lib" / "lua" / "5.4" / "m.so",
                     "extern void lua_pushnil(void *);\n"
                     "int luaopen_m(void *L) { lua_pushnil(L); return 1; }\n")
    bad = lotest.cc(tree / "elsewhere" / "bad.so",
                    "extern void lua_pushnil(void *); extern void lua_not_in_lua(void *);\n"
                    "int luaopen_bad(void *L) { lua_pushnil(L); lua_not_in_lua(L); return 1; }\n")
    rels = ["lib/lua/5.4/cjson.so", "lib/lua/5.4/m.so", "elsewhere/bad.so"]

    # what makes them lua's: from a C program they do not load
    plain = lotest.dlopen([tree / p for p in rels])
    assert all("undefined symbol: lua" in a for a in plain), plain

    r = lotest.scan(tree)
    truth = lotest.host_load(lua, [tree / p for p in rels])
    assert truth[:2] == ["ok", "ok"] and "lua_not_in_lua" in truth[2], truth
    for rel, answer in zip(rels, truth):
        f = r.file(rel)
        assert f["loads"] is (answer == "ok"), (rel, f, answer)
    assert r.file("lib/lua/5.4/cjson.so")["host"] == shutil.which("lua5.4"), r.file(rels[0])
    assert {x["symbol"] for x in r.reasons("elsewhere/bad.so", "undefined-symbol")} == \
        {"lua_not_in_lua"}, r.file("elsewhere/bad.so")
    assert r.rc == 1, r


if __name__ == "__main__":
    lotest.main(globals())
