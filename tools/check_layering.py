#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The module dependency check (issue #33 item 6), run by ctest as `layering` (tests/layering).

Usage: /usr/bin/python3 tools/check_layering.py [--root DIR] [--graph]

Reads every `#include "flexuq/<m>/..."` in src/<module>/ and include/flexuq/<module>/ and every
`flexuq_add_library(... DEPENDS ...)` / `target_link_libraries(flexuq_<x> ...)` in
src/<module>/CMakeLists.txt, and fails (exit 1, one line per finding) on
  - an include of a module the including module may not use (ALLOWED below): "file:line: a -> b";
  - a CMake dependency on a module it may not use, or a declared dependency the module never
    includes (declared but unused), or a module included but not linked (not even transitively);
  - a module directory that the table does not know (add it to ORDER and ALLOWED first);
  - an include cycle between files (each strongly connected component of the file graph once).
tests/ is not checked: tests may include what they test. --graph prints the module graph found.

The data path orders the modules: core -> la -> io -> fe -> cms -> pod -> sg -> mbs -> campaign ->
workflow -> config -> app, with uq (pure maths: distributions, quadrature, PCE, statistics) beside them. A
module may use only modules before it, and the table below says which of those it may use; where it
is narrower than the order, the comment says why. Changing an arrow is a design decision: change the
table together with docs/architecture.md.
"""

import argparse
import os
import re
import sys

ORDER = ["core", "la", "uq", "io", "fe", "nl", "cms", "pod", "sg", "mbs", "pct", "rom", "ident", "campaign", "workflow", "config", "app"]

ALLOWED = {
    "core": set(),
    "la": {"core"},
    # uq is pure maths beside the FE chain: no files, meshes or FE.
    "uq": {"core", "la"},
    # io reads and writes files and meshes; it needs no statistics (uq).
    "io": {"core", "la"},
    "fe": {"core", "la", "io", "uq"},
    # nl: the nonlinear static solver of seed 002 (SVK kernels, floating frame, SNES load stepping);
    # it writes its own results file (io), and needs no linear FE component or modes (issue #36).
    "nl": {"core", "la", "io"},
    "cms": {"core", "la", "io", "fe", "uq"},
    # pod works on snapshot matrices (distributed rows or dense operators): no files, meshes, FE or
    # CMS. Its POD-CB study takes the bar as dense CbBar operators; the fixture that builds the bar
    # from a generated mesh is in tests/support (issue #33).
    "pod": {"core", "la", "uq"},
    "sg": {"core", "la", "io", "fe", "cms", "pod", "uq"},
    # mbs reaches FE only through cms (reduced bodies, body files, stress modes); stress recovery
    # that both need lives below both (la/Mechanics.hpp), not in fe (issue #33).
    "mbs": {"core", "la", "io", "cms", "pod", "sg", "uq"},
    # pct: intrusive polynomial chaos of multibody models (seed 004): its own planar Lagrangian models
    # and index-3 scheme on uq's chaos bases; no FE, no mbs System (issue #35).
    "pct": {"core", "uq"},
    # rom: seed 003's reduced-order multibody models (snapshots -> POD -> V, R0, Γ; the reduced
    # integrator) on mbs's System and pod's SVD (issue #34).
    "rom": {"core", "la", "io", "cms", "pod", "mbs"},
    # ident: seed 003 ch. 6's parameter identification (discrete adjoint of the index-3 scheme, BFGS) on
    # mbs's System, full or reduced by rom's basis (issue #34 item 5).
    "ident": {"core", "la", "io", "mbs", "rom"},
    # The campaign knows models only through core/Model.hpp (campaign/Campaign.hpp): FE-free.
    "campaign": {"core", "la", "io", "uq"},
    # workflow runs pct's planar PCT and writes its result file (issue #33's app bound).
    "workflow": {"core", "la", "io", "fe", "cms", "pod", "sg", "mbs", "pct", "rom", "ident", "campaign", "uq"},
    # The job file (io::Config, yaml-cpp): only app includes it, so no library sees YAML (issue #33).
    "config": {"core", "io", "uq", "nl", "pct"},
    "app": {"core", "la", "io", "fe", "nl", "cms", "pod", "sg", "mbs", "pct", "rom", "ident", "campaign", "workflow", "config", "uq"},
}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
FLEXUQ_RE = re.compile(r"^flexuq/([A-Za-z0-9_]+)/")
SOURCE_EXT = (".hpp", ".h", ".hh", ".cpp", ".cc", ".cxx", ".ipp", ".inl")


def check_table():
    """The table itself must follow ORDER (which makes it acyclic)."""
    assert set(ALLOWED) == set(ORDER), "ALLOWED and ORDER name different modules"
    for m, deps in ALLOWED.items():
        for d in deps:
            assert ORDER.index(d) < ORDER.index(m), f"table: {m} -> {d} goes against ORDER"


def source_files(root, module):
    for base in (os.path.join(root, "src", module), os.path.join(root, "include", "flexuq", module)):
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(SOURCE_EXT):
                    yield os.path.join(dirpath, f)


def modules_on_disk(root):
    found = set()
    for base in (os.path.join(root, "src"), os.path.join(root, "include", "flexuq")):
        if os.path.isdir(base):
            found.update(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)))
    return sorted(found)


def resolve(root, including_file, target):
    """The repository path an include names, or None if it is not a file of the tree."""
    cands = [os.path.join(os.path.dirname(including_file), target), os.path.join(root, "include", target)]
    for c in cands:
        if os.path.isfile(c):
            return os.path.normpath(c)
    return None


# ---- CMake -----------------------------------------------------------------------------------------

def cmake_calls(text):
    """(command, [arguments], line) of each call in a CMakeLists.txt, comments stripped."""
    lines = [re.sub(r"#.*", "", l) for l in text.split("\n")]
    clean = "\n".join(lines)
    calls = []
    for m in re.finditer(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", clean):
        depth, i = 1, m.end()
        while i < len(clean) and depth:
            depth += {"(": 1, ")": -1}.get(clean[i], 0)
            i += 1
        args = clean[m.end():i - 1].split()
        calls.append((m.group(1), args, clean.count("\n", 0, m.start()) + 1))
    return calls


def expand(args, variables):
    out = []
    for a in args:
        v = re.fullmatch(r"\$\{([A-Za-z0-9_]+)\}", a)
        out.extend(variables.get(v.group(1), []) if v else [a])
    return out


def cmake_dependencies(root, modules):
    """{module: [(dependency target, CMakeLists path, line)]}, {target: module} and {module: "path:line"
    of its first library}."""
    targets, raw, where = {}, {m: [] for m in modules}, {}
    for m in modules:
        path = os.path.join(root, "src", m, "CMakeLists.txt")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            calls = cmake_calls(f.read())
        variables = {}
        for cmd, args, line in calls:
            if cmd == "set" and args:
                variables[args[0]] = expand(args[1:], variables)
            elif cmd == "flexuq_add_library" and args:
                targets["flexuq_" + args[0]] = m
                where.setdefault(m, f"{os.path.relpath(path, root)}:{line}")
                args = expand(args[1:], variables)
                if "DEPENDS" in args:
                    tail = args[args.index("DEPENDS") + 1:]
                    for kw in ("SOURCES",):
                        if kw in tail:
                            tail = tail[:tail.index(kw)]
                    raw[m].extend((t, path, line) for t in tail)
            elif cmd == "target_link_libraries" and args:
                raw[m].extend((t, path, line) for t in expand(args[1:], variables))
            elif cmd == "add_library" and args:
                targets[args[0]] = m
    deps = {m: [(t, p, l) for t, p, l in raw[m] if t.startswith("flexuq_") and t != "flexuq_deps"] for m in modules}
    return deps, targets, where


# ---- include cycles --------------------------------------------------------------------------------

def strongly_connected(graph):
    """Tarjan's algorithm, iterative; returns the components with more than one file or a self-loop."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in graph.get(v, ()):
                    out.append(sorted(comp))
    return out


# ---- the check -------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--graph", action="store_true", help="print the module graph found")
    a = ap.parse_args(argv)
    root = os.path.normpath(os.path.abspath(a.root))
    check_table()
    rel = lambda p: os.path.relpath(p, root)
    errors = []
    modules = modules_on_disk(root)
    for m in modules:
        if m not in ALLOWED:
            errors.append(f"{m}: a module the layering table does not know (add it to ORDER and ALLOWED in "
                          f"tools/check_layering.py and to docs/architecture.md)")
    known = [m for m in modules if m in ALLOWED]

    uses = {m: {} for m in known}  # module -> {used module: count}
    graph, n_files, n_cross = {}, 0, 0
    for m in known:
        for path in source_files(root, m):
            n_files += 1
            node = rel(path)
            graph.setdefault(node, set())
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, text in enumerate(f, 1):
                    inc = INCLUDE_RE.match(text)
                    if not inc:
                        continue
                    target = resolve(root, path, inc.group(1))
                    if target:
                        graph[node].add(rel(target))
                    fm = FLEXUQ_RE.match(inc.group(1))
                    if not fm:
                        continue
                    d = fm.group(1)
                    if d == m:
                        continue
                    n_cross += 1
                    uses[m][d] = uses[m].get(d, 0) + 1
                    if d not in ALLOWED[m]:
                        why = "against the module order" if d not in ORDER or ORDER.index(d) > ORDER.index(m) \
                            else "not in its allowed dependencies"
                        allowed = ", ".join(x for x in ORDER if x in ALLOWED[m]) or "nothing"
                        errors.append(f'{node}:{lineno}: {m} -> {d} (#include "{inc.group(1)}"): {why}; '
                                      f"{m} may include {allowed}")

    deps, targets, lib_at = cmake_dependencies(root, known)
    declared = {m: set() for m in known}
    for m in known:
        for t, path, line in deps[m]:
            d = targets.get(t, t[len("flexuq_"):])
            if d == m:
                continue
            if d not in ALLOWED:
                errors.append(f"{rel(path)}:{line}: {m} links {t}, which is no module of the table")
                continue
            declared[m].add(d)
            if d not in ALLOWED[m]:
                errors.append(f"{rel(path)}:{line}: {m} -> {d} (CMake dependency {t}): "
                              f"{m} may not depend on {d}")
            elif d not in uses[m]:
                errors.append(f"{rel(path)}:{line}: {m} -> {d} (CMake dependency {t}): declared but unused "
                              f"(no file of {m} includes flexuq/{d}/)")

    def closure(m, seen=None):
        seen = set() if seen is None else seen
        for d in declared.get(m, ()):
            if d not in seen:
                seen.add(d)
                closure(d, seen)
        return seen
    for m in known:
        linked = closure(m)
        for d in sorted(uses[m]):
            if d in ALLOWED and d in ALLOWED[m] and d not in linked:
                errors.append(f"{lib_at.get(m, f'src/{m}/CMakeLists.txt')}: {m} includes flexuq/{d}/ but does not link flexuq_{d} "
                              f"(not even through its dependencies)")

    cycles = strongly_connected(graph)
    for comp in cycles:
        errors.append("include cycle: " + " <-> ".join(comp))

    if a.graph:
        for m in sorted(known, key=ORDER.index):
            used = ", ".join(f"{d}({uses[m][d]})" for d in sorted(uses[m], key=lambda x: ORDER.index(x)
                                                                      if x in ORDER else 99))
            print(f"{m:9s} includes {used or '-'}; links {', '.join(sorted(declared[m], key=ORDER.index)) or '-'}")
    for e in errors:
        print(e)
    if errors:
        print(f"layering: {len(errors)} finding(s) in {n_files} files (tools/check_layering.py says what each "
              f"module may include)")
        return 1
    print(f"layering: OK ({len(known)} modules, {n_files} files, {n_cross} includes across modules, "
          f"0 backward includes, 0 unused or missing CMake dependencies, 0 include cycles)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
