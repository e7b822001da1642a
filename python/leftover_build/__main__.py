"""python3 -m leftover_build [--sdist] [OUT_DIR]: the wheel (and the sdist) into OUT_DIR.

ci/build-wheel runs this with PYTHONPATH=python; it prints each file's path.
"""
import argparse
import sys
from pathlib import Path

from . import backend


def main():
    ap = argparse.ArgumentParser(prog="python3 -m leftover_build",
                                 description="build leftover's wheel, offline")
    ap.add_argument("out", nargs="?", default="dist", help="where to write (default: dist)")
    ap.add_argument("--sdist", action="store_true", help="also the source distribution")
    args = ap.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    print(out / backend.build_wheel(str(out)))
    if args.sdist:
        print(out / backend.build_sdist(str(out)))
    return 0


sys.exit(main())
