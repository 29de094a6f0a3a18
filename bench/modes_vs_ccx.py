#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark `flexuq modes` against CalculiX *FREQUENCY on a crank-like tet10 component.

Run through bench/modes_vs_ccx.sh. For each size: gmsh meshes bench/crank.geo (tet10, straight-sided:
Mesh.SecondOrderLinear = 1), clamped at the CLAMP end face; then
  * flexuq modes (20 modes) at 1 and 2 ranks, with the default MUMPS settings and (unless
    --no-mumps-variants) with parallel PT-Scotch ordering (-..._mumps_icntl_28 2 -..._icntl_29 1);
  * ccx *FREQUENCY (20 modes) with OMP_NUM_THREADS = 1 and 2 (up to --ccx-max);
wall time of each run (flexuq per phase from its summary), peak memory (flexuq: the "summed over
ranks" line it prints; ccx: /usr/bin/time -v maximum resident set size), and the first 20
frequencies are compared (tet10: ccx integrates C3D10 mass with 4 points, flexuq exactly, so they
differ by up to a few 1e-4: see tests/oracle/ccx_crosscheck.py; the check allows 1e-3).
Writes a markdown table to --out (default bench/results/modes_vs_ccx.md) and prints it.
"""
import argparse
import datetime
import os
import platform
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
from ccx_crosscheck import clean_inp, read_ccx_dat, write_deck  # noqa: E402

# gmsh size h [m] for each nominal size (measured: 0.0068 -> 93 k DOF, 0.0047 -> 235 k DOF).
SIZES = {"30k": 0.0105, "100k": 0.0066, "300k": 0.0043, "1M": 0.0029}
E, NU, RHO = 2.1e11, 0.3, 7850.0
# MUMPS ordering variants tried at 2 ranks besides the default (Debian's MUMPS 5.5: PORD).
MUMPS_VARIANTS = {
    "ptscotch": ["-modes_st_mat_mumps_icntl_28", "2", "-modes_st_mat_mumps_icntl_29", "1"],  # parallel
    "parmetis": ["-modes_st_mat_mumps_icntl_28", "2", "-modes_st_mat_mumps_icntl_29", "2"],  # parallel
    "metis": ["-modes_st_mat_mumps_icntl_7", "5"],
    "qamd": ["-modes_st_mat_mumps_icntl_7", "6"],
    "amf": ["-modes_st_mat_mumps_icntl_7", "2"],
}
FREQ_RTOL = 1e-3


def dof_count(label):
    m = re.match(r"^(\d+(?:\.\d+)?)([kKmM]?)$", label)
    if not m:
        raise SystemExit("bad size %r (e.g. 100k, 1M)" % label)
    return float(m.group(1)) * {"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6}[m.group(2)]


def timed(cmd, cwd, log, env):
    """Run under /usr/bin/time -v; return (wall s, max RSS bytes of the biggest process, output)."""
    load = os.getloadavg()[0]
    if load > 0.5:
        print("  (note: load average %.1f before %s: other processes compete for the cores)" % (load, cmd[0]),
              flush=True)
    t0 = time.time()
    full = ["/usr/bin/time", "-v"] + cmd
    with open(os.path.join(cwd, log), "w") as f:
        p = subprocess.run(full, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, env=env)
    wall = time.time() - t0
    text = open(os.path.join(cwd, log)).read()
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d), see %s:\n%s" % (" ".join(cmd), p.returncode,
                                                              os.path.join(cwd, log), text[-2000:]))
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    return wall, (int(m.group(1)) * 1024 if m else float("nan")), text


def flexuq_summary(text):
    phases = {}
    for m in re.finditer(r"^\s+(read mesh|partition\+assemble|eigensolve|write results)\s+([\d.]+)\s+([\d.]+)\s*$",
                         text, re.M):
        phases[m.group(1)] = float(m.group(3))
    m = re.search(r"peak memory: ([\d.]+) (MB|GB) per rank \(max\), ([\d.]+) (MB|GB) summed", text)
    mem = float(m.group(3)) * (1e9 if m.group(4) == "GB" else 1e6) if m else float("nan")
    m = re.search(r"DOFs: (\d+) free", text)
    dofs = int(m.group(1)) if m else 0
    return phases, mem, dofs


def fmt_t(s):
    return "—" if s is None else ("%.1f" % s if s < 100 else "%.0f" % s)


def fmt_gb(b):
    return "—" if b is None else "%.2f" % (b / 1e9)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flexuq", default=os.path.join(ROOT, "build", "bin", "flexuq"))
    ap.add_argument("--sizes", default="100k,300k", help="comma-separated, from %s" % ",".join(SIZES))
    ap.add_argument("--ccx-max", default="300k", help="largest size at which ccx runs (0 = never)")
    ap.add_argument("--modes", type=int, default=20)
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--threads", default="1,2", help="OMP_NUM_THREADS values for ccx")
    ap.add_argument("--mumps-variants", default="ptscotch,qamd",
                    help="extra MUMPS orderings at 2 ranks, from %s ('' = none)" % ",".join(MUMPS_VARIANTS))
    ap.add_argument("--workdir", default="/tmp/flexuq-bench")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "modes_vs_ccx.md"))
    a = ap.parse_args()

    for tool in ("gmsh", "ccx", "/usr/bin/time"):
        if shutil.which(tool) is None:
            raise SystemExit("%s not found" % tool)
    import h5py
    import numpy as np
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
    ccx_max = 0 if a.ccx_max in ("0", "") else dof_count(a.ccx_max)
    ranks = [int(x) for x in a.ranks.split(",")]
    threads = [int(x) for x in a.threads.split(",")]
    variants = [("default", [])] + [(v, MUMPS_VARIANTS[v]) for v in a.mumps_variants.split(",") if v]
    rows = []
    log = []

    def say(msg):
        print(msg, flush=True)
        log.append(msg)

    for label in a.sizes.split(","):
        if label not in SIZES:
            raise SystemExit("unknown size %s (known: %s)" % (label, ", ".join(SIZES)))
        wd = os.path.join(a.workdir, label)
        shutil.rmtree(wd, ignore_errors=True)
        os.makedirs(wd)
        shutil.copy(os.path.join(HERE, "crank.geo"), wd)
        t_mesh, _, _ = timed(["gmsh", "-3", "-order", "2", "-setnumber", "Mesh.SecondOrderLinear", "1",
                              "-setnumber", "h", repr(SIZES[label]), "-setnumber", "Mesh.SaveGroupsOfNodes", "1",
                              "-format", "inp", "-o", "raw.inp", "crank.geo"], wd, "gmsh.log", env)
        nel = clean_inp(os.path.join(wd, "raw.inp"), os.path.join(wd, "crank.inp"))
        os.remove(os.path.join(wd, "raw.inp"))
        with open(os.path.join(wd, "job.yaml"), "w") as f:
            f.write("model:\n  mesh: crank.inp\n  material: {E: %.17g, nu: %.17g, rho: %.17g}\n" % (E, NU, RHO))
            f.write("modes:\n  count: %d\n  fixed: [CLAMP]\noutput: modes.h5\n" % a.modes)
        say("== %s: %d tet10 elements, meshed in %.0f s" % (label, nel, t_mesh))
        row = {"size": label, "flexuq": {}, "ccx": {}, "dofs": 0}
        freqs = {}
        for vname, vopts in variants:
            for np_ in ranks:
                if vopts and np_ == 1:
                    continue  # parallel ordering needs >= 2 ranks
                tag = "np%d-%s" % (np_, vname)
                cmd = ["mpiexec", "-n", str(np_), "--allow-run-as-root", "--oversubscribe", "--bind-to", "core",
                       a.flexuq, "modes", "job.yaml", "--set", "output=modes-%s.h5" % tag] + vopts
                try:
                    wall, _, text = timed(cmd, wd, "flexuq-%s.log" % tag, env)
                except RuntimeError as e:
                    m = re.search(r"(INFOG\(1\)=-?\d+)", str(e))
                    row["flexuq"][tag] = {"failed": m.group(1) if m else "failed"}
                    say("  flexuq %-13s FAILED: %s" % (tag, m.group(1) if m else str(e)[-300:]))
                    continue
                for line in text.splitlines():
                    if "not available" in line:
                        say("  flexuq %-13s MUMPS: %s" % (tag, line.strip()))
                phases, mem, dofs = flexuq_summary(text)
                row["dofs"] = dofs
                with h5py.File(os.path.join(wd, "modes-%s.h5" % tag), "r") as h:
                    freqs["flexuq " + tag] = np.array(h["modes/frequencies_hz"])[:a.modes]
                row["flexuq"][tag] = {"wall": wall, "phases": phases, "mem": mem}
                say("  flexuq %-13s wall %7.1f s  (%s)  peak %.2f GB summed" %
                    (tag, wall, ", ".join("%s %.1f" % kv for kv in phases.items()), mem / 1e9))
        if ccx_max and dof_count(label) <= ccx_max:
            write_deck(os.path.join(wd, "ccxjob.inp"), "crank.inp", True, a.modes)
            # the deck asks for no nodal output: time the solve, not the .frd writing
            deck = open(os.path.join(wd, "ccxjob.inp")).read().replace("*NODE FILE\nU\n", "")
            open(os.path.join(wd, "ccxjob.inp"), "w").write(deck)
            for nt in threads:
                e2 = dict(env, OMP_NUM_THREADS=str(nt), CCX_NPROC_STIFFNESS=str(nt),
                          CCX_NPROC_EQUATION_SOLVER=str(nt), NUMBER_OF_CPUS=str(nt))
                wall, rss, _ = timed(["ccx", "-i", "ccxjob"], wd, "ccx-t%d.log" % nt, e2)
                eig = read_ccx_dat(os.path.join(wd, "ccxjob.dat"))
                freqs["ccx t%d" % nt] = np.sqrt(np.maximum(eig, 0))[:a.modes] / (2 * np.pi)
                row["ccx"][nt] = {"wall": wall, "mem": rss}
                say("  ccx    OMP_NUM_THREADS=%d wall %7.1f s  peak %.2f GB" % (nt, wall, rss / 1e9))
        # frequency agreement (ccx .dat has 7 digits; tet10 mass rules differ, see module doc)
        keys = list(freqs)
        base = freqs[keys[0]]
        worst = 0.0
        for k in keys[1:]:
            f = freqs[k]
            if len(f) < a.modes or len(base) < a.modes:
                say("  !! %s returned %d modes" % (k, len(f)))
                worst = float("inf")
                continue
            d = float(np.max(np.abs(f - base) / base))
            worst = max(worst, d)
            say("  max rel. frequency difference %s vs %s: %.2e" % (k, keys[0], d))
        row["freq_ok"] = worst <= FREQ_RTOL
        row["freq_diff"] = worst
        row["f1"] = float(base[0])
        rows.append(row)

    # markdown table
    def fl(row, tag):
        return row["flexuq"].get(tag)

    lines = ["| size | DOFs | flexuq 1 rank [s] | flexuq 2 ranks [s] | 2 ranks, other MUMPS orderings [s] | 2-rank speed-up | "
             "ccx 1 thread [s] | ccx 2 threads [s] | ccx(1t) / flexuq(1r) | ccx(2t) / flexuq(2r) | "
             "flexuq mem 1r / 2r [GB] | ccx mem [GB] | max rel. Δf (20 modes) |",
             "|" + "---|" * 13]
    for r in rows:
        f1, f2 = fl(r, "np1-default"), fl(r, "np2-default")
        others = [(t[4:], v) for t, v in r["flexuq"].items() if t.startswith("np2-") and t != "np2-default"]
        c1, c2 = r["ccx"].get(1), r["ccx"].get(2)
        f2p = " ".join("%s: %s" % (n, v.get("failed") or fmt_t(v["wall"])) for n, v in others) or None
        best2 = f2["wall"] if f2 else None
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %.1e%s |" % (
            r["size"], r["dofs"], fmt_t(f1 and f1["wall"]), fmt_t(f2 and f2["wall"]), f2p or "—",
            ("%.2f×" % (f1["wall"] / best2)) if f1 and best2 else "—",
            fmt_t(c1 and c1["wall"]), fmt_t(c2 and c2["wall"]),
            ("%.1f×" % (c1["wall"] / f1["wall"])) if c1 and f1 else "—",
            ("%.1f×" % (c2["wall"] / best2)) if c2 and best2 else "—",
            fmt_gb(f1 and f1["mem"]), fmt_gb(f2 and f2["mem"]), fmt_gb(c1 and c1["mem"]),
            r["freq_diff"], "" if r["freq_ok"] else " **FAIL**"))
    lines += ["", "flexuq phases [s] (max over ranks): read mesh / partition+assemble / eigensolve / write results", ""]
    for r in rows:
        for tag, v in r["flexuq"].items():
            if "failed" in v:
                lines.append("- %s %s: failed (%s)" % (r["size"], tag, v["failed"]))
                continue
            p = v["phases"]
            lines.append("- %s %s: %s" % (r["size"], tag, " / ".join(
                "%.1f" % p.get(k, float("nan")) for k in ("read mesh", "partition+assemble", "eigensolve",
                                                          "write results"))))
    head = ["<!-- bench/modes_vs_ccx.sh %s, %s, %s -->" % (" ".join(sys.argv[1:]), platform.node(),
                                                        datetime.datetime.now().isoformat(timespec="minutes"))]
    text = "\n".join(head + lines) + "\n"
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(text)
        f.write("\n<!-- run log\n" + "\n".join(log) + "\n-->\n")
    print()
    print(text)
    return 0 if all(r["freq_ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
