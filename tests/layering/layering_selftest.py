#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The layering check can fail: tools/check_layering.py on small fake trees in a temporary directory,
one defect each (a backward include, an arrow the order allows but the table forbids, a declared but
unused CMake dependency, a dependency the table forbids, an include without the link, an include
cycle, an unknown module), each expected to exit 1 and to name the file:line and the arrow; the
clean tree exits 0. Usage: layering_selftest.py <path of check_layering.py>."""

import os
import subprocess
import sys
import tempfile

CHECKER = sys.argv[1]


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def clean_tree(root):
    """core <- la <- fe (via io) and cms, each declaring what it includes."""
    write(root, "src/core/CMakeLists.txt", "flexuq_add_library(core SOURCES A.cpp)\n")
    write(root, "include/flexuq/core/A.hpp", "#pragma once\n")
    write(root, "src/core/A.cpp", '#include "flexuq/core/A.hpp"\n')
    write(root, "src/la/CMakeLists.txt", "# la\nflexuq_add_library(la SOURCES B.cpp\n  DEPENDS flexuq_core)\n")
    write(root, "include/flexuq/la/B.hpp", '#pragma once\n#include "flexuq/core/A.hpp"\n')
    write(root, "src/la/B.cpp", '#include "flexuq/la/B.hpp"\n#include "Local.hpp"\n')
    write(root, "src/la/Local.hpp", "#pragma once\n")
    write(root, "src/io/CMakeLists.txt", "flexuq_add_library(io SOURCES C.cpp DEPENDS flexuq_core)\n")
    write(root, "src/io/C.cpp", '#include "flexuq/core/A.hpp"\n')
    write(root, "src/fe/CMakeLists.txt", "set(FE_DEPS flexuq_la flexuq_io)\nflexuq_add_library(fe SOURCES D.cpp DEPENDS ${FE_DEPS})\n")
    write(root, "include/flexuq/fe/D.hpp", '#pragma once\n#include "flexuq/la/B.hpp"\n')
    write(root, "src/fe/D.cpp", '#include "flexuq/fe/D.hpp"\n#include "flexuq/core/A.hpp"\n#include "flexuq/io/C.hpp"\n')
    write(root, "src/cms/CMakeLists.txt", "flexuq_add_library(cms SOURCES E.cpp DEPENDS flexuq_fe)\n")
    write(root, "src/cms/E.cpp", '#include "flexuq/fe/D.hpp"\n')
    write(root, "src/mbs/CMakeLists.txt", "flexuq_add_library(mbs SOURCES F.cpp DEPENDS flexuq_cms)\n")
    write(root, "src/mbs/F.cpp", '#include "flexuq/cms/E.hpp"\n')


def run(root):
    p = subprocess.run([sys.executable, CHECKER, "--root", root], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


failures = []


def case(name, defect, expected):
    with tempfile.TemporaryDirectory(prefix="layering-") as root:
        clean_tree(root)
        defect(root)
        rc, out = run(root)
        want_rc = 0 if expected is None else 1
        ok = rc == want_rc and (expected is None or all(e in out for e in expected))
        print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {rc}" + ("" if ok else f"\n{out}"))
        if not ok:
            failures.append(name)


case("clean tree passes", lambda r: None, None)
case("backward include core -> la",
     lambda r: write(r, "src/core/A.cpp", '#include "flexuq/core/A.hpp"\n\n#include "flexuq/la/B.hpp"\n'),
     ["src/core/A.cpp:3: core -> la", "against the module order"])
case("mbs -> fe: after fe in the order, still refused (FE only through cms)",
     lambda r: write(r, "src/mbs/F.cpp", '#include "flexuq/cms/E.hpp"\n#include "flexuq/fe/D.hpp"\n'),
     ["src/mbs/F.cpp:2: mbs -> fe", "not in its allowed dependencies"])
case("backward include in a header",
     lambda r: write(r, "include/flexuq/la/B.hpp", '#pragma once\n#include "flexuq/fe/D.hpp"\n'),
     ["include/flexuq/la/B.hpp:2: la -> fe"])
case("declared but unused CMake dependency",
     lambda r: write(r, "src/cms/CMakeLists.txt", "flexuq_add_library(cms SOURCES E.cpp DEPENDS flexuq_fe flexuq_io)\n"),
     ["src/cms/CMakeLists.txt:1: cms -> io (CMake dependency flexuq_io): declared but unused"])
case("CMake dependency the table forbids",
     lambda r: write(r, "src/la/CMakeLists.txt", "flexuq_add_library(la SOURCES B.cpp DEPENDS flexuq_core flexuq_fe)\n"),
     ["src/la/CMakeLists.txt:1: la -> fe (CMake dependency flexuq_fe): la may not depend on fe"])
case("include without the link",
     lambda r: write(r, "src/io/CMakeLists.txt", "flexuq_add_library(io SOURCES C.cpp)\n"),
     ["io includes flexuq/core/ but does not link flexuq_core"])
case("include cycle between files",
     lambda r: write(r, "src/la/Local.hpp", '#pragma once\n#include "flexuq/la/B.hpp"\n')
     or write(r, "include/flexuq/la/B.hpp", '#pragma once\n#include "flexuq/core/A.hpp"\n#include "../../../src/la/Local.hpp"\n'),
     ["include cycle: include/flexuq/la/B.hpp <-> src/la/Local.hpp"])
case("unknown module", lambda r: write(r, "src/mechanics/G.cpp", "\n"),
     ["mechanics: a module the layering table does not know"])

if failures:
    print(f"layering_selftest: {len(failures)} case(s) failed: {', '.join(failures)}")
    sys.exit(1)
print("layering_selftest: every defect was found, the clean tree passed")
