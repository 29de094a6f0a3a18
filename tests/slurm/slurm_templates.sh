#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The jobs/slurm templates under a real Slurm (single node, started here and stopped after, even on
# failure):
#  1. modes.sbatch and reduce.sbatch on 2 tasks (srun --mpi=pmix) give the results of mpirun -n 2;
#  2. campaign-array.sbatch runs a 2-task array (a seed sweep of one job), each task equal to its
#     mpirun run bit for bit;
#  3. campaign.sbatch with --time=1 and --signal=B:USR1@20: slurmctld's time-limit warning makes
#     the job checkpoint (partial results, exit 75) and requeue itself; the requeued run adds
#     --resume, redoes no sample and ends with results bit-identical to an uninterrupted run;
#  4. reduce.sbatch with a stochastic reduce: the same time-out, checkpoint, requeue and resume.
# Usage: slurm_templates.sh FLEXUQ MPIEXEC SRCDIR WORKDIR
# Needs root and Debian's slurm-wlm + munge (installed here when missing, as CI may do).
set -euo pipefail
flexuq=$1 mpiexec=$2 src=$3 work=$4
py=/usr/bin/python3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
t_start=$SECONDS
say() { printf '[test %s +%ss] %s\n' "$(date -u +%T)" "$((SECONDS - t_start))" "$*"; }
fail() {
  say "FAIL: $*"
  exit 1
}

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: the single-node Slurm of this test runs its daemons as root"
  exit 77
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null ||
  ! command -v munged >/dev/null; then
  say "installing slurm-wlm and munge (Debian packages; jobs/local/setup.sh lists them too)"
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null ||
    { timeout 300 apt-get update -q >/dev/null && timeout 600 apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null; } ||
    fail "cannot install slurm-wlm and munge"
fi

# shellcheck source=tests/slurm/cluster.sh
source "$here/cluster.sh"
mkdir -p "$work"
cd "$work"
rm -rf runs ./*.out ./*.h5 ./*.h5.journal ./*.xdmf ./*.log ./*.yaml sweep.txt
on_exit() {
  local rc=$?
  set +e
  if [ "$rc" -ne 0 ]; then
    say "--- job logs ---"
    for f in "$work"/*.out; do [ -f "$f" ] && { echo "== $f"; tail -40 "$f"; }; done
    say "--- slurmctld / slurmd logs (tails) ---"
    tail -25 "$work/cluster/log/slurmctld.log" "$work/cluster/log/slurmd.log" 2>/dev/null
  fi
  [ -n "${watchdog:-}" ] && kill "$watchdog" 2>/dev/null
  slurm_cluster_stop
  exit "$rc"
}
trap on_exit EXIT
trap 'say "interrupted (or over the 480 s budget)"; exit 130' INT TERM
# Never hang, and stop the daemons before ctest's own timeout (600 s) would kill this shell.
# (Its own fds closed, so ctest does not wait for it; it takes its sleep along when stopped.)
(
  exec >/dev/null 2>&1
  sleep 480 &
  nap=$!
  trap 'kill $nap; exit 0' TERM
  wait "$nap" && kill -TERM $$
) &
watchdog=$!
slurm_cluster_start "$work/cluster"

export FLEXUQ_HOME=$src FLEXUQ_BIN=$flexuq FLEXUQ_ENV=/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mpirun_() {
  local n=$1
  shift
  timeout 120 "$mpiexec" -n "$n" --allow-run-as-root --oversubscribe "$flexuq" "$@"
}
job_field() { scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1; }
# wait_state JOB SECONDS STATE...: until the job is in one of the states (fails on timeout).
wait_state() {
  local id=$1 limit=$2
  shift 2
  local end=$((SECONDS + limit)) st=""
  while [ "$SECONDS" -lt "$end" ]; do
    st=$(job_field "$id" JobState)
    for want in "$@"; do [ "$st" = "$want" ] && return 0; done
    case "$st" in FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE)
      fail "job $id ended $st (reason $(job_field "$id" Reason), exit $(job_field "$id" ExitCode))" ;;
    esac
    sleep 1
  done
  fail "job $id still $st after ${limit}s (waiting for $*)"
}

# wait_requeued JOB: until the job has been requeued once (fails if it ends or after 150 s).
wait_requeued() {
  local id=$1 end=$((SECONDS + 150)) st
  until [ "$(job_field "$id" Restarts)" = 1 ]; do
    [ "$SECONDS" -lt "$end" ] || fail "job $id was not requeued within 150 s (state $(job_field "$id" JobState))"
    st=$(job_field "$id" JobState)
    case "$st" in COMPLETED | FAILED | CANCELLED | TIMEOUT) fail "job $id ended $st without a requeue" ;; esac
    sleep 1
  done
}
# start_requeued JOB: Slurm holds a requeued batch job ~2 min (BeginTime); give it a longer limit
# and start it now. An update sent while the job is still completing its first run can be lost
# (seen under load: the job then sat out its BeginTime), so repeat it until the job leaves PENDING.
start_requeued() {
  local id=$1 end=$((SECONDS + 90))
  # The first run's step must be gone first: an allocation made while it is still completing is
  # killed at once ("Killing non-startable batch job: Job credential revoked", exit 1; seen on a
  # clean-clone CI run, the update 0.6 s after the requeue and the old step done 2 s later).
  while [ -n "$(squeue -h -s -j "$id" 2>/dev/null)" ] || [ "$(job_field "$id" JobState)" = COMPLETING ]; do
    [ "$SECONDS" -lt "$end" ] || break
    sleep 1
  done
  sleep 2
  scontrol update JobId="$id" TimeLimit=3 StartTime=now || true
  while [ "$(job_field "$id" JobState)" = PENDING ] || [ "$(job_field "$id" JobState)" = REQUEUED ] ||
    [ "$(job_field "$id" JobState)" = COMPLETING ]; do
    [ "$SECONDS" -lt "$end" ] || fail "requeued job $id did not start (state $(job_field "$id" JobState), reason $(job_field "$id" Reason))"
    sleep 2
    scontrol update JobId="$id" TimeLimit=3 StartTime=now 2>/dev/null || true
  done
}

# --------------------------------------------------------------------------- jobs ------------
cat >modes.yaml <<'YAML'
command: modes
model:
  generator: {type: box, size: [0.2, 0.05, 0.05], cells: [4, 2, 2]}
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
modes: {count: 4, fixed: [XMIN]}
YAML
cat >reduce.yaml <<'YAML'
command: reduce
model:
  generator: {type: box, size: [0.2, 0.05, 0.05], cells: [4, 2, 2]}
  material: {E: 2.1e11, nu: 0.3, rho: 7850}
reduce:
  method: craig-bampton
  interfaces: [{set: XMIN, kind: rbe2}]
  modes: {count: 4}
YAML
# A campaign whose samples take 0.6 s each (model.delay_seconds; the outputs do not depend on it):
# 180 samples on 2 groups = 54 s. With --time=1 and @20 the warning comes at slurmctld's first
# check (every ~30 s) that finds less than 20 + 30 s left: 10-40 s into the job, always mid-run.
cat >slow.yaml <<'YAML'
model: {function: polynomial, delay_seconds: 0.6}
parameters:
  a: {dist: normal, mean: 1, std: 0.5}
  b: {dist: uniform, low: -1, high: 2}
method: {type: sobol, samples: 180, pce: {max_order: 3}}
campaign: {ranks_per_sample: 1, seed: 5, checkpoint_every: 5}
YAML
cat >fast.yaml <<'YAML'
model: {function: ishigami}
parameters:
  x1: {dist: uniform, low: -3.141592653589793, high: 3.141592653589793}
  x2: {dist: uniform, low: -3.141592653589793, high: 3.141592653589793}
  x3: {dist: uniform, low: -3.141592653589793, high: 3.141592653589793}
method: {type: lhs, samples: 60, pce: {max_order: 4}}
campaign: {ranks_per_sample: 1, seed: 1}
YAML
printf '# a seed sweep of one job\nfast.yaml --set campaign.seed=1\n\nfast.yaml --set campaign.seed=2 --set method.samples=80\n' >sweep.txt

# ------------------------------------------------------------------------------ 1 -----------
say "1: modes.sbatch and reduce.sbatch on 2 tasks"
m=$(sbatch --parsable --job-name=modes --ntasks=2 --time=3 --output="$work/modes.out" "$src/jobs/slurm/modes.sbatch" modes.yaml)
r=$(sbatch --parsable --job-name=reduce --ntasks=2 --time=3 --output="$work/reduce.out" "$src/jobs/slurm/reduce.sbatch" reduce.yaml)
mpirun_ 2 modes modes.yaml --set output=ref-modes.h5 >ref-modes.log
mpirun_ 2 reduce reduce.yaml --set output=ref-reduce.h5 >ref-reduce.log

# ------------------------------------------------------------------------------ 2 -----------
say "2: campaign-array.sbatch, 2 tasks of 1 rank"
a=$(sbatch --parsable --job-name=sweep --array=0-1 --ntasks=1 --time=3 --signal=B:USR1@10 --output="$work/sweep-%a.out" \
  "$src/jobs/slurm/campaign-array.sbatch" sweep.txt)
# Rank groups that do not fit the allocation: the script stops before srun, naming both numbers.
bad=$(FLEXUQ_GROUPS=3 sbatch --parsable --job-name=bad --ntasks=2 --time=1 --output="$work/bad.out" \
  "$src/jobs/slurm/campaign.sbatch" fast.yaml)
# A step that launches no rank (here: a node list srun cannot satisfy) is launched again, then the
# job fails; it is never reported as a finished campaign (srun itself may exit 0 on such failures).
nolaunch=$(FLEXUQ_SRUN_ARGS=--nodelist=nosuchnode FLEXUQ_LAUNCH_PAUSE=1 sbatch --parsable --job-name=nolaunch --signal=B:USR1@10 \
  --ntasks=1 --time=2 --output="$work/nolaunch.out" "$src/jobs/slurm/campaign.sbatch" fast.yaml)
mpirun_ 1 campaign fast.yaml --set campaign.seed=1 --set output=ref-sweep0.h5 >ref-sweep0.log
mpirun_ 1 campaign fast.yaml --set campaign.seed=2 --set method.samples=80 --set output=ref-sweep1.h5 >ref-sweep1.log

# ------------------------------------------------------------------------------ 3 -----------
say "3: campaign.sbatch with --time=1 --signal=B:USR1@20 (2 tasks, FLEXUQ_GROUPS=2)"
cut=$(FLEXUQ_GROUPS=2 sbatch --parsable --job-name=cut --ntasks=2 --time=1 --signal=B:USR1@20 \
  --output="$work/cut.out" "$src/jobs/slurm/campaign.sbatch" slow.yaml)
cutdir=runs/cut-$cut
# The reference: the same campaign uninterrupted, outside Slurm, without the delay.
mpirun_ 2 campaign slow.yaml --set model.delay_seconds=0 --set output=ref-slow.h5 >ref-slow.log

# --- 1 and 2 (they run before 3: the node has 2 CPUs) ---
wait_state "$m" 120 COMPLETED
wait_state "$r" 120 COMPLETED
$py - "runs/modes-$m/modes.h5" ref-modes.h5 "runs/reduce-$r/reduce.h5" ref-reduce.h5 <<'PY' || fail "slurm and mpirun results differ"
import sys, h5py, numpy as np
a, b, c, d = (h5py.File(p, "r") for p in sys.argv[1:])
fa, fb = a["modes/frequencies_hz"][()], b["modes/frequencies_hz"][()]
assert len(fa) >= 4 and fa.shape == fb.shape and np.allclose(fa, fb, rtol=1e-10, atol=0), (fa, fb)
# The reduced body: quantities that do not depend on the basis chosen inside a degenerate pair.
for k in ("reduced/mode_eigenvalues", "reduced/checkout/free_free_reduced_hz", "reduced/checkout/mass_full_reduced"):
    x, y = c[k][()], d[k][()]
    assert x.shape == y.shape and np.allclose(x, y, rtol=1e-9, atol=0), (k, x, y)
assert c["reduced/K"].shape == d["reduced/K"].shape
print("modes (Hz):", fa, "\nreduced body:", c["reduced/K"].shape, "same spectrum as mpirun's")
PY
[ -s "runs/modes-$m/log_view.txt" ] && [ -f "runs/modes-$m/modes.yaml" ] || fail "modes run folder incomplete"
# (The templates' lead, 300 s, exceeds these jobs' 3 min: a warning may come at slurmctld's first
# check, even before flexuq starts; it is only logged, modes cannot checkpoint.)
for t in 0 1; do
  wait_state "${a}_$t" 120 COMPLETED
  $py "$src/tests/campaign/compare_h5.py" 0 "ref-sweep$t.h5" "runs/sweep-${a}_$t/fast.h5" || fail "array task $t differs from its mpirun run"
done
end=$((SECONDS + 60))
until [ "$(job_field "$bad" JobState)" = FAILED ]; do
  [ "$SECONDS" -lt "$end" ] || fail "job $bad (FLEXUQ_GROUPS=3 on 2 tasks) did not fail: $(job_field "$bad" JobState)"
  sleep 1
done
[ "$(job_field "$bad" ExitCode)" = 2:0 ] || fail "bad allocation: exit $(job_field "$bad" ExitCode), expected 2"
grep -q "FLEXUQ_GROUPS=3 does not divide the 2 tasks of the allocation" bad.out || fail "bad allocation: no clear message"
wait_state "$nolaunch" 60 FAILED
grep -q "srun started no flexuq rank (attempt 2 of 3" nolaunch.out || fail "a step that started no rank was not launched again"
grep -q "srun started no flexuq rank in 3 attempt(s)" nolaunch.out || fail "no clear message after the launch attempts"
! grep -q "campaign complete" nolaunch.out || fail "a campaign that never started was reported complete"
say "1, 2: modes, reduce and the array passed"

# --- 3: the warning, the checkpoint and the requeue ---
say "3: waiting for the time-limit warning and the requeue of job $cut"
wait_requeued "$cut"
say "3: requeued: $(grep -c . "$work/cut.out") log lines so far; state $(job_field "$cut" JobState), $(job_field "$cut" Reason)"
grep -q "time-limit warning (SIGUSR1)" cut.out || fail "no time-limit warning in the log"
grep -q "flexuq exited with status 75" cut.out || fail "flexuq did not exit with 75 after the warning"
grep -q "2 group(s) of 1 rank" cut.out || fail "the rank groups were not taken from the allocation"
part=$($py - "$cutdir/slow.h5" <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
st = f["samples/status"][()]
print(int(f["samples"].attrs["final"]), int(np.sum(st != 2)), len(st))
PY
)
read -r final ndone total <<<"$part"
say "3: partial results after the checkpoint: final=$final, $ndone of $total samples"
[ "$final" = 0 ] || fail "the checkpoint's result file claims to be final"
[ "$ndone" -gt 0 ] && [ "$ndone" -lt "$total" ] || fail "the warning did not land mid-run ($ndone of $total done)"
start_requeued "$cut"

# --- 3: the requeued run ---
wait_state "$cut" 150 COMPLETED
say "3: job $cut completed: restarts $(job_field "$cut" Restarts), exit $(job_field "$cut" ExitCode)"
[ "$(job_field "$cut" Restarts)" = 1 ] || fail "expected exactly one requeue"
grep -q "restart 1; run folder" cut.out || fail "the requeued run did not see SLURM_RESTART_COUNT=1"
grep -q "journal .* found (restart 1): resuming" cut.out || fail "the requeued run did not resume"
grep -q "resuming: $ndone already done" cut.out || fail "flexuq did not resume from the $ndone journaled samples"
evaluated=$(sed -n 's/.*evaluated \([0-9]*\) sample.*/\1/p' cut.out | tail -n1)
[ "$((ndone + evaluated))" -eq "$total" ] || fail "resume redid or lost samples: $ndone + $evaluated != $total"
$py "$src/tests/campaign/compare_h5.py" 0 ref-slow.h5 "$cutdir/slow.h5" || fail "requeued result differs from the uninterrupted one"
$py - "$cutdir/slow.h5" <<'PY' || fail "the final result is not marked final"
import sys, h5py
assert int(h5py.File(sys.argv[1], "r")["samples"].attrs["final"]) == 1
PY
say "3: passed: time-out -> checkpoint ($ndone/$total) -> requeue -> resume ($evaluated more) -> bit-identical"

# ------------------------------------------------------------------------------ 4 -----------
# reduce.sbatch with a stochastic reduce (tests/app/scb_bar.yaml, 20 points of 5 s on 2 groups of 1
# rank = 50 s): the warning is passed on once the points have begun, the job checkpoints (75),
# requeues and resumes, and the stochastic body equals an uninterrupted mpirun run bit for bit.
say "4: reduce.sbatch with a stochastic reduce, --time=1 --signal=B:USR1@20"
cp "$src/tests/app/scb_bar.yaml" "$src/tests/app/scb_bar.inp" .
sed 's/^  mesh: scb_bar.inp/  mesh: scb_bar.inp\n  delay_seconds: 5/' scb_bar.yaml >scb_slow.yaml
scb=$(sbatch --parsable --job-name=scb --ntasks=2 --time=1 --signal=B:USR1@20 --output="$work/scb.out" \
  "$src/jobs/slurm/reduce.sbatch" scb_slow.yaml)
mpirun_ 2 reduce scb_slow.yaml --set model.delay_seconds=0 --set output=ref-scb.h5 >ref-scb.log
wait_requeued "$scb"
grep -q "a stochastic reduce finishes its points in flight" scb.out || fail "4: no time-limit warning in the log"
grep -q "flexuq exited with status 75" scb.out || fail "4: the stochastic reduce did not exit with 75 after the warning"
grep -q "stochastic reduce checkpointed" scb.out || fail "4: no checkpoint message"
start_requeued "$scb"
wait_state "$scb" 150 COMPLETED
grep -q "journal .*scb_slow.h5.journal found (restart 1): resuming" scb.out || fail "4: the requeued reduce did not resume"
grep -q "resuming: [0-9]* already done" scb.out || fail "4: flexuq did not resume from the journaled points"
$py - "runs/scb-$scb/scb_slow.h5" ref-scb.h5 <<'PY' || fail "4: the requeued stochastic body differs from the uninterrupted one"
import sys, h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) and o.dtype.kind == "f" and
             n.split("/")[0] in ("outputs", "statistics", "stochastic_body", "reduced") else None)
assert any(n.startswith("stochastic_body/pce/") for n in names), "no expansions"
bad = [n for n in names if a[n].shape != b[n].shape or a[n][()].tobytes() != b[n][()].tobytes()]
assert not bad, bad
print(f"4: {len(names)} datasets bit-identical")
PY
say "PASSED: templates under slurmctld; time-out -> checkpoint ($ndone/$total) -> requeue -> resume ($evaluated more) -> bit-identical; the same for a stochastic reduce"
