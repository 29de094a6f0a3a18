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
