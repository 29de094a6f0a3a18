# SPDX-License-Identifier: MIT
"""What the CalculiX cross-checks of a clamped plate share (ccx_shell_crosscheck.py,
ccx_plane_crosscheck.py): run ccx on ccx_run.inp and read its eigenfrequencies; run `flexuq modes
job.yaml` on n ranks and read the frequencies it prints."""
import os
import re
import subprocess
import sys


def ccx_frequencies(work, count):
    """The first @p count cycle frequencies (Hz) of ccx's *FREQUENCY step on ccx_run.inp in @p work."""
    with open(os.path.join(work, "ccx.log"), "w") as log:
        subprocess.run(["ccx", "ccx_run"], cwd=work, stdout=log, stderr=subprocess.STDOUT, check=True,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    text = open(os.path.join(work, "ccx_run.dat")).read()
    block = text[text.index("E I G E N V A L U E   O U T P U T"):]
    rows = re.findall(r"^\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$", block, re.M)
    return [float(r[3]) for r in rows[:count]]


def flexuq_modes(work, args, np):
    """`flexuq modes job.yaml` in @p work on @p np ranks (output plate_np<np>.h5): its printed output,
    kept in flexuq_np<np>.log; exits the script if flexuq fails."""
    cmd = [args.mpiexec, "-n", str(np)] + args.mpiexec_flags.split() + [args.flexuq, "modes", "job.yaml",
                                                                       "--set", f"output=plate_np{np}.h5"]
    out = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(work, f"flexuq_np{np}.log"), "w") as f:
        f.write(out.stdout)
    if out.returncode != 0:
        print(out.stdout)
        sys.exit(f"flexuq failed on {np} rank(s)")
    return out.stdout


def printed_frequencies(stdout, count):
    """The first @p count frequencies (Hz) of flexuq modes' table (mode, f, ω², residual, multiplicity)."""
    rows = re.findall(r"^\s+(\d+)\s+([0-9.eE+-]+)\s+([0-9.eE+-]+)\s+([0-9.eE+-]+)\s+(\d+)\s*$", stdout, re.M)
    return [float(r[1]) for r in rows[:count]]


def s4_plate_lines(nx, ny, a, b, xyz=None, closed=False, elset="PLATE", digits=10):
    """An .inp's *NODE block and *ELEMENT, TYPE=S4, ELSET=@p elset of a flat [0, a] x [0, b] plate at
    z = 0, nx x ny quads: (lines, lab(i, j) → node label, the next free element label). @p xyz:
    (x, y) → (x, y, z) maps the flat plate's nodes onto a curved surface (default: z = 0). @p closed:
    the edge x = a is the edge x = 0 (nx nodes a row, the last quads close the ring: a cylinder through
    @p xyz). Coordinates with @p digits significant digits."""
    cols = nx if closed else nx + 1
    lab = lambda i, j: 1 + i % cols + cols * j
    lines = ["*NODE"]
    for j in range(ny + 1):
        for i in range(cols):
            p = xyz(a * i / nx, b * j / ny) if xyz else (a * i / nx, b * j / ny, 0)
            lines.append(f"{lab(i, j)}, {p[0]:.{digits}g}, {p[1]:.{digits}g}, {p[2]:.{digits}g}")
    lines.append(f"*ELEMENT, TYPE=S4, ELSET={elset}")
    e = 1
    for j in range(ny):
        for i in range(nx):
            lines.append(f"{e}, {lab(i, j)}, {lab(i + 1, j)}, {lab(i + 1, j + 1)}, {lab(i, j + 1)}")
            e += 1
    return lines, lab, e


def quad8_lattice(nx, ny, lx, ly):
    """nx x ny eight-node quadrilaterals on [0, lx] x [0, ly], their nodes on the fine lattice
    (2 nx + 1) x (2 ny + 1) without the centres: (lab(i, j) → node label on the fine lattice,
    used: label → (x, y) of the nodes the elements use, elems: per element its 8 fine-lattice (i, j),
    corners counter-clockwise then mid-sides)."""
    lab = lambda i, j: 1 + i + (2 * nx + 1) * j
    used, elems = {}, []
    for i in range(nx):
        for j in range(ny):
            I, J = 2 * i, 2 * j
            e = [(I, J), (I + 2, J), (I + 2, J + 2), (I, J + 2), (I + 1, J), (I + 2, J + 1), (I + 1, J + 2), (I, J + 1)]
            elems.append(e)
            for q in e:
                used[lab(*q)] = (lx * q[0] / (2 * nx), ly * q[1] / (2 * ny))
    return lab, used, elems


def compare_with_ccx(fc, runs, count, rtol, ranks_rtol, ccx_label="ccx"):
    """Print flexuq's frequencies (@p runs: rank count → frequencies) beside ccx's @p fc; True when
    all @p count agree within @p rtol and every rank count equals the smallest to @p ranks_rtol."""
    ok = len(fc) == count
    first = runs[min(runs)]
    print(f" mode    flexuq [Hz]    {ccx_label} [Hz]   flexuq/ccx-1")
    for k in range(count):
        dc = first[k] / fc[k] - 1
        print(f"{k + 1:5d} {first[k]:14.6f} {fc[k]:14.6f} {dc:14.3e}")
        ok = ok and abs(dc) <= rtol
    for n, f in runs.items():
        worst = max(abs(x / y - 1) for x, y in zip(f, first))
        print(f"flexuq {n} rank(s) vs {min(runs)}: {worst:.2e}")
        ok = ok and len(f) == count and worst <= ranks_rtol
    return ok


def write_case(work, lines, ccx_boundary, fixed, count):
    """plate.inp from @p lines, ccx_run.inp (it, *BOUNDARY @p ccx_boundary, a *FREQUENCY step of
    @p count modes) and job.yaml (`flexuq modes` on plate.inp, model.fixed: @p fixed) in @p work."""
    with open(os.path.join(work, "plate.inp"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(work, "ccx_run.inp"), "w") as f:
        f.write(f"*INCLUDE, INPUT=plate.inp\n*BOUNDARY\n{ccx_boundary}\n*STEP\n*FREQUENCY\n{count}\n*END STEP\n")
    with open(os.path.join(work, "job.yaml"), "w") as f:
        f.write(f"model:\n  mesh: plate.inp\n  fixed: {fixed}\nmodes:\n  count: {count}\noutput: plate.h5\n")


def run_and_compare(args, lines, ccx_boundary, fixed, count, rtol, ranks_rtol):
    """write_case in args.workdir, ccx and `flexuq modes` at each of args.np's rank counts, then
    compare_with_ccx; prints PASS/FAIL and exits 0/1."""
    write_case(args.workdir, lines, ccx_boundary, fixed, count)
    fc = ccx_frequencies(args.workdir, count)
    runs = {int(n): printed_frequencies(flexuq_modes(args.workdir, args, int(n)), count) for n in args.np.split(",")}
    ok = compare_with_ccx(fc, runs, count, rtol, ranks_rtol)
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


def oracle_parser():
    """The arguments every cross-check takes (CMake's flexuq_oracle_ccx_test passes them)."""
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("--flexuq", required=True)
    p.add_argument("--mpiexec", default="mpirun")
    p.add_argument("--mpiexec-flags", default="")
    p.add_argument("--np", default="1,2")
    p.add_argument("--workdir", required=True)
    return p
