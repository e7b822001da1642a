"""Rule layers on a real CMake tree, as `leftover rules --show-origin` shows them.

The layers are the shipped defaults, the user's $XDG_CONFIG_HOME/leftover/rules,
the source tree's .leftover (found through CMAKE_HOME_DIRECTORY in the build
tree's CMakeCache.txt), the build tree's .leftover/rules, then --rules FILE;
each later layer overrides the earlier ones, and --show-origin names the
file and line the winning value came from. Bad rules in any layer stop the
command with the file, line and key named; a user's rule file that may not
be read is skipped with a warning instead, as git skips such a config.
"""
import json

import lotest


def tree(name):
    d = lotest.workdir(name)
    src, build, xdg = d / "src", d / "build", d / "xdg"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(layers C)\n"
        "add_library(plugin SHARED plugin.c)\n")
    (src / "plugin.c").write_text("int plugin_answer(void) { return 42; }\n")
    lotest.cmake_build(src, build)
    (xdg / "leftover").mkdir(parents=True)
    return d, src, build, xdg


def rules(xdg, *args):
    """`leftover rules ARGS` with the user layer at xdg; never raises."""
    return lotest.run([lotest.LEFTOVER, "rules"] + [str(a) for a in args],
                      env={"XDG_CONFIG_HOME": str(xdg)}, check=False)


def origins(proc):
    """name -> [(file, line, value)] from --show-origin output."""
    out = {}
    for line in proc.stdout.splitlines():
        where, _, setting = line.partition("\t")
        name, _, value = setting.partition("=")
        f, _, n = where.rpartition(":")
        out.setdefault(name, []).append((f, int(n), value))
    return out


def test_each_layer_overrides_the_one_before():
    d, src, build, xdg = tree("rules-layers")
    user = xdg / "leftover" / "rules"
    user.write_text("# mine\n[fail]\n\ton = broken\n"
                    "[rule \"plugins\"]\n\tmatch = *.so\n\treason = from the user\n")
    p = rules(xdg, "--show-origin", build)
    assert p.returncode == 0, p
    o = origins(p)
    assert o["fail.on"] == [(str(user), 3, "broken")], o
    assert o["rule.plugins.reason"] == [(str(user), 6, "from the user")], o
    # the shipped defaults come first, from the source tree's rules/ in a build tree
    assert o["candidates.include"][0] == (str(lotest.SOURCE_DIR / "rules" / "default.rules"), 8, "*.so"), o

    source = src / ".leftover"
    source.write_text("[fail]\n\ton = never\n")
    o = origins(rules(xdg, "--show-origin", build))
    assert o["fail.on"] == [(str(source), 2, "never")], o
    assert o["rule.plugins.reason"] == [(str(user), 6, "from the user")], o

    (build / ".leftover").mkdir(exist_ok=True)
    tree_rules = build / ".leftover" / "rules"
    tree_rules.write_text("[rule \"plugins\"]\n\n\treason = from the build tree\n")
    o = origins(rules(xdg, "--show-origin", build))
    assert o["fail.on"] == [(str(source), 2, "never")], o
    assert o["rule.plugins.reason"] == [(str(tree_rules), 3, "from the build tree")], o
    # the match from the user layer still applies: patterns accumulate
    assert o["rule.plugins.match"] == [(str(user), 5, "*.so")], o

    given = d / "given.rules"
    given.write_text("[fail]\n\ton = stale\n[rule \"plugins\"]\n\treason = from --rules\n")
    o = origins(rules(xdg, "--show-origin", "--rules", given, build))
    assert o["fail.on"] == [(str(given), 2, "stale")], o
    assert o["rule.plugins.reason"] == [(str(given), 4, "from --rules")], o

    # a subdirectory of the build tree still finds the tree's layers
    o = origins(rules(xdg, "--show-origin", build / "CMakeFiles"))
    assert o["fail.on"] == [(str(source), 2, "never")], o

    # without --show-origin: name=value only
    p = rules(xdg, build)
    assert "fail.on=never\n" in p.stdout and "\t" not in p.stdout, p.stdout


def test_bad_rules_in_a_layer_name_file_line_and_key():
    d, src, build, xdg = tree("rules-bad-layer")
    (src / ".leftover").write_text("[candidates]\n\tinclude = *.so\n\tinclde = *.x\n")
    p = rules(xdg, build)
    assert p.returncode == 2, p
    assert "%s:3: candidates.inclde: unknown key" % (src / ".leftover") in p.stderr, p.stderr
    assert p.stdout == "", p.stdout

    (src / ".leftover").write_text("[host \"app\"]\n\tmatch = *.so\n\tprogram = ${cmake:APP_EXE}\n")
    # an unset ${cmake:VAR} leaves the host without a program: no error
    assert rules(xdg, build).returncode == 0
    # nor does a default that is not there: it is a guess, not the author's word
    (src / ".leftover").write_text("[host \"app\"]\n\tmatch = *.so\n"
                                   "\tprogram = ${cmake:APP_EXE:-no-such-app-on-path}\n")
    assert rules(xdg, build).returncode == 0
    (src / ".leftover").write_text("[host \"app\"]\n\tmatch = *.so\n\tprogram = ${cmake:APP_EXE:-}\n")
    p = rules(xdg, build)
    assert p.returncode == 2 and "host.app.program" in p.stderr, p
    # a program the rule names that does not exist is the rule's error
    (src / ".leftover").write_text("[host \"app\"]\n\tmatch = *.so\n\tprogram = %s/no-such-app\n" % d)
    p = rules(xdg, build)
    assert p.returncode == 2, p
    assert ("%s:3: host.app.program: host program '%s/no-such-app' does not exist"
            % (src / ".leftover", d)) in p.stderr, p.stderr
    # one the build tree's cache names is the tree's: the scan needing it says so,
    # and --host replaces it
    (src / ".leftover").write_text("[host \"app\"]\n\tmatch = *.so\n\tprogram = ${cmake:APP_EXE}\n")
    cache = build / "CMakeCache.txt"
    cache.write_text(cache.read_text() + "APP_EXE:FILEPATH=%s/gone-app\n" % d)
    assert rules(xdg, build).returncode == 0
    env = {"XDG_CONFIG_HOME": str(xdg)}
    # ... by the files that need it being unjudged, with why
    p = lotest.run([lotest.LEFTOVER, "scan", "--format", "json", build], env=env, check=False)
    assert p.returncode == 1, p
    f = [f for f in json.loads(p.stdout)["files"] if f["path"] == "libplugin.so"][0]
    assert f["verdict"] == "unjudged", f
    why = f["reasons"][0]["detail"]
    assert "%s/gone-app" % d in why and "[host \"app\"]" in why, f
    p = lotest.run([lotest.LEFTOVER, "scan", "--host", "/bin/sh", build], env=env, check=False)
    assert p.returncode == 0, p


def as_nobody(xdg, *args):
    """`leftover ARGS` as user nobody with the user layer at xdg: mode 000 means
    nothing to root, who runs the suite."""
    cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]
    reach = lotest.run(cmd + ["test", "-x", xdg], check=False)
    assert reach.returncode == 0, "user nobody cannot reach %s: put LEFTOVER_WORK elsewhere" % xdg
    return lotest.run(cmd + [lotest.LEFTOVER] + [str(a) for a in args],
                      env={"XDG_CONFIG_HOME": str(xdg)}, check=False)


def test_unreadable_tree_rules_stop_the_scan_naming_the_file():
    d, src, build, xdg = tree("rules-unreadable-tree")
    (build / ".leftover").mkdir()
    tree_rules = build / ".leftover" / "rules"
    tree_rules.write_text("[fail]\n\ton = never\n")
    tree_rules.chmod(0)
    for cmd in ("scan", "rules"):
        p = as_nobody(xdg, cmd, build)
        assert p.returncode == 2, p
        assert "cannot read rule file '%s': Permission denied" % tree_rules in p.stderr, p.stderr


def test_unreadable_user_rules_are_a_warning_and_the_scan_goes_on():
    d, src, build, xdg = tree("rules-unreadable-user")
    user = xdg / "leftover" / "rules"
    user.write_text("[fail]\n\ton = never\n[candidates]\n\texclude = *.so\n")
    warning = "leftover: warning: cannot read rule file '%s': Permission denied; going on without it\n"
    broken = build / "libbroken.so"
    lotest.cc(broken, "extern int nowhere(void);\nint f(void) { return nowhere(); }\n")
    for blocked in (user, user.parent):  # the file, or the directory it is in
        blocked.chmod(0)
        p = as_nobody(xdg, "rules", build)
        assert p.returncode == 0 and p.stderr == warning % user, p
        assert "fail.on=never" not in p.stdout and "candidates.exclude" not in p.stdout, p.stdout
        # the scan runs on the other layers: libbroken.so is a candidate
        # again, and fails the run under the default's [fail] on
        p = as_nobody(xdg, "scan", build)
        assert p.returncode == 1 and p.stderr == warning % user, p
        assert "libbroken.so: broken" in p.stdout, p.stdout
        p = as_nobody(xdg, "clean", "--dry-run", build)
        assert p.returncode == 1 and p.stderr == warning % user, p
        assert "1 broken file left in place" in p.stdout, p.stdout
        blocked.chmod(0o755)
    # one that can be read but is wrong still stops the scan
    user.chmod(0o644)
    user.write_text("[fail]\n\ton = sometimes\n")
    p = as_nobody(xdg, "scan", build)
    assert p.returncode == 2 and str(user) in p.stderr and "warning" not in p.stderr, p


def test_check_validates_one_file():
    d = lotest.workdir("rules-check")
    good, bad = d / "good.rules", d / "bad.rules"
    good.write_text("[symbols]\n\tignore = __gcov_*\n")
    bad.write_text("[rule \"x\"]\n\tmatch = *.so\n\taction = shred\n")
    p = lotest.leftover("rules", "--check", good)
    assert p.returncode == 0 and p.stdout == "" and p.stderr == "", p
    p = lotest.leftover("rules", "--check", good, bad)
    assert p.returncode == 1, p
    assert "%s:3: rule.x.action: 'shred' is not quarantine, delete, report or keep" % bad in p.stderr, p.stderr
    for f in sorted((lotest.SOURCE_DIR / "rules").glob("**/*.rules")):
        p = lotest.leftover("rules", "--check", f)
        assert p.returncode == 0, (f, p.stderr)
    assert lotest.leftover("rules", "--check").returncode == 2


if __name__ == "__main__":
    lotest.main(globals())
