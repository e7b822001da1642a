"""The shell completions against the CLI they complete (issue 15).

Each subcommand's options are what its --help lists (printed from the
option table the CLI parses, auditor/cli/opts.h) and the words an option's
value may be are what the CLI says when given another. The bash completion
is run in bash with bash-completion, the fish one in fish (`complete -C`),
the zsh one in an interactive zsh on a pty (TAB typed, compadd's matches
captured). Each must offer exactly those options and values, so that
an option added to a table without its completion fails here.
"""
import re

import lotest

DOCS = lotest.SOURCE_DIR / "docs"
HERE = lotest.workdir("completion")  # where the shells run: file names offered come from here


def commands():
    out = lotest.leftover("--help").stdout
    return re.findall(r"^  (\w+) ", out.split("commands:")[1], re.M)


def help_options(cmd):
    """Every -x and --long of `leftover CMD --help`."""
    r = lotest.leftover(cmd, "--help")
    assert r.returncode == 0, r
    opts = set()
    for m in re.finditer(r"^  (-\w, )?(--[\w-]+)", r.stdout, re.M):
        opts.add(m.group(2))
        if m.group(1):
            opts.add(m.group(1)[:2])
    return opts


def values(cmd, opt):
    """The words the CLI accepts for `opt`, from its message on a word it does not."""
    r = lotest.leftover(cmd, opt, "no-such-value", HERE)
    m = re.search(r"takes (.*), not 'no-such-value'", r.stderr)
    assert r.returncode == 2 and m, r
    return set(re.split(r", | or ", m.group(1)))


VALUED = [("scan", "--format"), ("clean", "--format"), ("clean", "--fail-on")]


def bash_complete(*words):
    """COMPREPLY of the bash completion for `leftover WORDS...` (the last one being completed)."""
    script = """
source /usr/share/bash-completion/bash_completion
source %s
COMP_WORDS=(leftover %s)
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="${COMP_WORDS[*]}"
COMP_POINT=${#COMP_LINE}
_leftover leftover "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%%s\\n' "${COMPREPLY[@]}"
""" % (DOCS / "leftover.bash-completion", " ".join("'%s'" % w for w in words))
    return set(lotest.run(["bash", "-c", script], cwd=HERE).stdout.split())


def test_bash():
    lotest.need("/usr/share/bash-completion/bash_completion", "bash-completion")
    assert bash_complete("") >= set(commands()), bash_complete("")
    for cmd in commands():
        got = bash_complete(cmd, "-")
        assert got == help_options(cmd), (cmd, got ^ help_options(cmd))
    for cmd, opt in VALUED:
        assert bash_complete(cmd, opt, "") == values(cmd, opt), (cmd, opt)


def fish_complete(line):
    fish = lotest.need("fish", "fish")
    out = lotest.run([fish, "--no-config", "-c", "source %s; complete -C '%s'"
                      % (DOCS / "leftover.fish", line)], cwd=HERE).stdout
    return {l.split("\t")[0] for l in out.splitlines()}


def test_fish():
    assert fish_complete("leftover ") >= set(commands())
    for cmd in commands():
        got = {w for w in fish_complete("leftover %s -" % cmd) if w.startswith("-")}
        assert got == help_options(cmd), (cmd, got ^ help_options(cmd))
    for cmd, opt in VALUED:
        assert fish_complete("leftover %s %s " % (cmd, opt)) == values(cmd, opt), (cmd, opt)


# An interactive zsh on a pty (zsh/zpty) types the line, a TAB, ^U and a
# command that prints a marker; compadd is wrapped to write every match it
# is given to a file. zle takes the keys in order and completes before it
# reads ^U, so the matches are all written when the marker shows. (^C would
# flush what was typed ahead.) A zsh that never shows the marker fails the
# test by run()'s timeout.
ZSH_DRIVER = r"""
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT='=P='; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z "compadd() { local -a h; builtin compadd -O h \"\$@\"; print -rl -- \$h >> $2; builtin compadd \"\$@\" }"
zpty -w z 'print -r -- READY-$((1))'
zpty -r z line '*READY-1*'
zpty -r z line '*=P=*'
zpty -w z "$3"$'\t\x15''print -r -- DONE-$((2))'
zpty -r z line '*DONE-2*'
zpty -d z
"""


def zsh_complete(line):
    zsh = lotest.need("zsh", "zsh")
    out = HERE / "zsh-matches"
    if out.exists():
        out.unlink()
    (HERE / "driver.zsh").write_text(ZSH_DRIVER)
    # TERM=dumb: zle reprints the prompt after a listing instead of moving the cursor back to it
    lotest.run([zsh, "-f", HERE / "driver.zsh", DOCS, out, line], cwd=HERE, timeout=60,
               env={"TERM": "dumb"})
    return {w.strip() for w in out.read_text().splitlines() if w.strip()} if out.exists() else set()


def test_zsh():
    zsh = lotest.need("zsh", "zsh")
    r = lotest.run([zsh, "-n", DOCS / "_leftover"], check=False)
    assert r.returncode == 0, r.stderr
    assert zsh_complete("leftover ") == set(commands()), zsh_complete("leftover ")
    for cmd in commands():
        got = zsh_complete("leftover %s -" % cmd)
        assert got == help_options(cmd), (cmd, got ^ help_options(cmd))
    for cmd, opt in VALUED:
        assert zsh_complete("leftover %s %s " % (cmd, opt)) == values(cmd, opt), (cmd, opt)


def test_cache_actions():
    """The words after `cache` are the actions its --help names, in each shell."""
    actions = set(re.findall(r"leftover cache (\w+)", lotest.leftover("cache", "--help").stdout))
    assert actions == {"info", "clear"}, actions
    assert bash_complete("cache", "") == actions
    assert fish_complete("leftover cache ") == actions
    assert zsh_complete("leftover cache ") == actions


if __name__ == "__main__":
    lotest.main(globals())
