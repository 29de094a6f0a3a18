#!/usr/bin/env bash
# The flexuq demo: the product's story on one component, end to end, in seconds once flexuq is built.
# Usage: jobs/local/demo.sh [DIR] [NRANKS]        (jobs/local/run.sh without a job runs it into demo/)
#   1. modes       a steel connecting rod (generated hex20 mesh): its free-free elastic modes
#   2. reduce      the rod as a Craig-Bampton flexible body (pin ends as RBE2 interfaces), with check-out
#   3. reduce      the rod as a stochastic Craig-Bampton body: E and rho uncertain, PCE over 15 points
#   4. simulate    a slider-crank whose connecting rod is that flexible body (at the means)
#   5. campaign    the slider-crank over the rod's (E, rho): 9 simulations, statistics and Sobol' indices
# then one plot (the slider's motion and the rod's strain energy with their uncertainty bands) and the
# paths of the result files. The jobs are configs/demo/*.yaml, copied into DIR (default: ./demo) and
# run there; earlier results in DIR are replaced. FLEXUQ (the flexuq binary, default build/bin/flexuq)
# and MPIEXEC (default mpiexec) can be overridden.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="${1:-demo}"
ranks="${2:-2}"
flexuq="${FLEXUQ:-$here/build/bin/flexuq}"
mpiexec="${MPIEXEC:-mpiexec}"
py=/usr/bin/python3
[ -x "$flexuq" ] || { echo "demo: no flexuq at $flexuq (build it: jobs/local/run.sh)" >&2; exit 2; }
case "$flexuq" in /*) ;; *) flexuq="$PWD/$flexuq" ;; esac   # the jobs run in DIR

# As jobs/local/setup.sh: OpenMPI as root and on few cores, one BLAS thread per rank.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
cp "$here"/configs/demo/*.yaml "$dir"/
cd "$dir"
# Stochastic reduce and campaign are journaled (resumable); the demo starts them afresh.
rm -rf rod-scb.h5.journal slider-crank-uq.h5.journal logs
mkdir -p logs

start_all=$SECONDS
step() { # step <n> <ranks> <job> <what>: run one job, its output on the terminal and in logs/
  local n="$1" np="$2" job="$3" what="$4" t0=$SECONDS
  echo
  echo "=== [$n/5] $what"
  echo "    $mpiexec -n $np flexuq run $job"
  "$mpiexec" -n "$np" "$flexuq" run "$job" 2>&1 | tee "logs/${job%.yaml}.log"
  echo "    ($((SECONDS - t0)) s)"
}
step 1 "$ranks" rod-modes.yaml "the component: free-free modes of a steel connecting rod (0.3 m, hex20)"
step 2 "$ranks" rod-cb.yaml "a Craig-Bampton body of the rod: pin ends as RBE2 interfaces, 6 fixed-interface modes"
step 3 "$ranks" rod-scb.yaml "a stochastic Craig-Bampton body: E log-normal, rho uniform, PCE of order 2"
step 4 1 slider-crank.yaml "a flexible multibody simulation: a slider-crank whose rod is that body (1 revolution)"
step 5 "$ranks" slider-crank-uq.yaml "a campaign over the rod's E and rho: 9 simulations of the slider-crank"

echo
echo "=== plot"
"$py" "$here/postproc/plot_simulation_campaign.py" slider-crank-uq.h5 --times 0.005:0.35:0.005 \
  --simulation slider-crank.h5 --series 'x_B:x=slider position x_B [m]' 'energy:strain=strain energy of the rod [J]' \
  -o slider-crank-uq.png | tee logs/plot.log

pp="$py $here/postproc"
cat <<EOF

=== demo done in $((SECONDS - start_all)) s on $ranks rank(s). Result files:
  $dir/rod-modes.h5          the rod's modes (ParaView: open rod-modes.xdmf)
  $dir/rod-cb.h5             its Craig-Bampton body
  $dir/rod-scb.h5            its stochastic body
  $dir/slider-crank.h5       the simulation (ParaView: open slider-crank.xdmf, press play)
  $dir/slider-crank-uq.h5    the campaign
  $dir/logs/                 each step's whole output
More plots:
  $pp/plot_reduced.py $dir/rod-cb.h5
  $pp/plot_stochastic_body.py $dir/rod-scb.h5
  $pp/plot_simulation.py $dir/slider-crank.h5
  $pp/plot_campaign.py $dir/slider-crank-uq.h5
Open first: $dir/slider-crank-uq.png
  the slider's position and the rod's strain energy over one crank revolution: 9 samples, mean ± 2 std
  and the simulation at the means; right: how much of each one's variance E and rho drive
EOF
