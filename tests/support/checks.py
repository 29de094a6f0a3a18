# SPDX-License-Identifier: MIT
"""One line per check and the exit status at the end, shared by the script tests' embedded Python
(imported with PYTHONPATH="$src/tests/support", src the source tree the test script is given):

    from checks import check, finish
    check(err < 1e-8, f"S8: end C {err:.3g} of L (< 1e-8)")
    finish()    # exit status 1 when any check failed
"""

_ok = True


def check(cond, what):
    """Print `ok` or `FAIL` and what was checked; remember a failure."""
    global _ok
    print(("ok   " if cond else "FAIL ") + what)
    _ok = _ok and bool(cond)


def require(cond, failure):
    """Like check, for a script that prints only what went wrong: `FAIL: <failure>` when cond fails."""
    global _ok
    if not cond:
        print("FAIL:", failure)
        _ok = False


def passed():
    """Whether every check so far held."""
    return _ok


def finish(name=None):
    """Exit non-zero (SystemExit("FAIL")) when a check failed, else say that the script's checks passed."""
    if not _ok:
        raise SystemExit("FAIL")
    if name:
        print(f"{name} checks passed")
