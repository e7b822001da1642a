"""leftover_build: leftover's wheel and sdist, made offline from this tree.

The wheel carries what `cmake --install` puts in a prefix, laid out so that
pip installs it into the environment's prefix the same way: the program in
`.data/scripts` (PREFIX/bin/leftover), the rules, the CMake package, the man
page and completions in `.data/data/share` (PREFIX/share/...), and the pytest
plugin at the top, with its `pytest11` entry point. The program already
reads the rules beside itself (bin/../share/leftover/rules), so the installed
wheel needs nothing else to find them.

backend.py is the PEP 517 build backend pyproject.toml names (so that
`pip install --no-build-isolation --no-index` of the sdist, or of this tree,
builds it with nothing but python3 and cmake); wheel.py writes the archive
and reads its platform tag; `python3 -m leftover_build` (ci/build-wheel) is
the one command that makes both. Only the standard library is used.
"""
