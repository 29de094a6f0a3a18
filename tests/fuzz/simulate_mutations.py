#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation fuzzing of `flexuq simulate` jobs through the real CLI (issue #40 item 8).

The libFuzzer targets (tests/fuzz/CMakeLists.txt) cover the readers; a simulate job is parsed, built
and integrated by the whole stack, too much to instrument in CI's sanitizer build. This runs the
release `flexuq` on seeded mutations of the simulate configs in configs/: one leaf of the job (a key
path found by walking the YAML (python3-yaml): bodies.crank.mass, joints.2.axis.1, solver.alpha, …) set to a hostile
value (NaN, ±Inf, 0, negative, 1e308, 1e-308, a string, a list, a mapping, empty) in a copy of the job, the
run shortened to a few steps. Every case must end within the time limit with exit 0 (the value was
acceptable) or exit 2 with a "flexuq: error:" message (the job file and key for what the parse pass
sees; the joint row or the time for what only the run finds) — never a crash, a hang, an internal or
untranslated error (exit 1/3, a raw yaml-cpp message) or a trace. Deterministic: --seed picks the cases.

Usage: simulate_mutations.py FLEXUQ SOURCE_DIR WORKDIR [--cases N] [--seed S] [--timeout T]
"""
import argparse
import copy
import os
import random
import shutil
import subprocess
import sys

import yaml

CONFIGS = ["slider-crank.yaml", "slider-crank-seed004.yaml", "slider-crank-seed004-2d.yaml", "v8-rigid.yaml",
           "msd-seed004.yaml", "msd-seed004-pct.yaml", "slider-crank-seed004-pct.yaml"]
HOSTILE = [float("nan"), float("inf"), -float("inf"), 0, -1, -1e-3, 1e308, -1e308, 1e-308, "abc", "",
           [1, 2], [], {"a": 1}, None, 99999999999999999999, 0.5, 2.7, True]
SKIP = {"command", "output", "solver.end"}


def leaves(node, prefix=()):
    """Paths (tuples of keys and list indices: a key may itself hold dots) of every leaf."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from leaves(v, prefix + (i,))
        if not node:
            yield prefix
    else:
        yield prefix


def mutate(doc, path, value):
    """A deep copy of @p doc with the leaf at @p path replaced by @p value."""
    doc = copy.deepcopy(doc)
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return doc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("flexuq")
    ap.add_argument("src")
    ap.add_argument("work")
    ap.add_argument("--cases", type=int, default=80)
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--timeout", type=float, default=30)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    jobs = []
    for name in CONFIGS:
        path = os.path.join(a.src, "configs", name)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            doc = yaml.safe_load(f)
        solver = doc.get("solver", {}) if isinstance(doc.get("solver"), dict) else {}
        step = float(solver.get("step", 1e-3))
        end = float(solver.get("start", 0.0)) + 5 * step  # a few steps: every check, little time
        paths = [p for p in leaves(doc) if p and ".".join(map(str, p)) not in SKIP and p[0] != "output"]
        doc.setdefault("solver", {})
        if isinstance(doc["solver"], dict):
            doc["solver"]["end"] = end
        jobs.append((name, doc, paths))
    if not jobs:
        sys.exit("no simulate config found under " + os.path.join(a.src, "configs"))
    failures = []
    counts = {0: 0, 2: 0}
    for case in range(a.cases):
        name, doc, paths = rng.choice(jobs)
        key = rng.choice(paths)
        value = rng.choice(HOSTILE)
        job = f"case{case}-{name}"
        with open(os.path.join(a.work, job), "w") as f:
            yaml.safe_dump(dict(mutate(doc, key, value), output=f"case{case}.h5"), f, default_flow_style=None)
        cmd = [a.flexuq, "simulate", job, "--log-level", "warn"]
        what = f"case {case}: {name} with {'.'.join(map(str, key))} = {value!r}"
        name = job
        try:
            r = subprocess.run(cmd, cwd=a.work, capture_output=True, text=True, timeout=a.timeout,
                               env=dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1"))
        except subprocess.TimeoutExpired:
            failures.append(f"{what}: no answer within {a.timeout} s")
            continue
        out = r.stdout + r.stderr
        if r.returncode not in (0, 2):
            failures.append(f"{what}: exit {r.returncode}\n{out[-2000:]}")
        elif any(t in out for t in ("Segmentation", "terminate called", "Traceback", "internal error", "Assertion")):
            failures.append(f"{what}: crash text in the output\n{out[-2000:]}")
        elif r.returncode == 2 and "flexuq: error:" not in out:
            failures.append(f"{what}: exit 2 without an error line\n{out[-2000:]}")
        elif r.returncode == 2 and "yaml-cpp" in out:
            failures.append(f"{what}: a raw yaml-cpp message (no key named)\n{out[-2000:]}")
        else:
            counts[r.returncode] += 1
            if os.environ.get("FLEXUQ_FUZZ_VERBOSE"):
                print(what, "->", r.returncode, out.strip().splitlines()[-1] if out.strip() else "")
        for f in os.listdir(a.work):
            if f.startswith("case"):
                p = os.path.join(a.work, f)
                shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    print(f"simulate mutations: {a.cases} cases, {counts[0]} accepted, {counts[2]} refused with a message, "
          f"{len(failures)} failures (seed {a.seed})")
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
