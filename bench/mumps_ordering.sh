#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# MUMPS orderings and memory options of `flexuq modes` (issue #38 item 3; docs/performance.md, "MUMPS
# ordering"): one run per case on RANKS ranks, each with MUMPS's statistics (ICNTL(4) 2), and a table of
# what MUMPS reports (ordering used, analysis time, operations RINFOG(3), factor entries INFOG(29), memory
# allocated / used summed over ranks INFOG(19)/(22)), the factorisation time, flexuq's phases (max over
# ranks: partition+assemble, eigensolve, peak RSS summed over ranks after each), the run's wall time and
# the largest relative difference of its frequencies from the first case's (python3 + h5py).
#   bench/mumps_ordering.sh JOB.yaml [RANKS=2] [CASES...]
# A case is ORDERING[:PETSC_OPTION,VALUE,...], e.g. pord  ptscotch  pord:-modes_st_matmode,inplace
# (default cases: pord scotch ptscotch). The job's own keys hold (mesh, modes); linear_solver.ordering is
# set per case. Logs and the table (mumps_ordering.md) go to WORK (default: the job's folder). Runs over
# ~3 GB: wrap the command in `flock /tmp/flexuq-bigmem.lock` on a shared machine.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
job=$(readlink -f "$1"); np=${2:-2}; shift; [ $# -gt 0 ] && shift
cases=("$@"); [ ${#cases[@]} -gt 0 ] || cases=(pord scotch ptscotch)
flexuq=${FLEXUQ:-$here/build/bin/flexuq}; work=${WORK:-$(dirname "$job")}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
cd "$work"
table=mumps_ordering.md
{ echo "$(basename "$job"), $np ranks, $(nproc) cores, $(date -u +%F)"; echo
  echo "| case | ordering used | analysis [s] | RINFOG(3) | factor entries | MUMPS alloc / used [GB] | factorisation [s] | assemble, eigensolve [s] | peak after assemble / eigensolve [GB] | wall [s] | load | max Δf/f vs first |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"; } > $table
for c in "${cases[@]}"; do
  ord=${c%%:*}; opts=(); [ "$c" != "$ord" ] && IFS=, read -r -a opts <<< "${c#*:}"
  log="mumps_${c//[^A-Za-z0-9_]/_}_np$np.log"; load=$(cut -d' ' -f1 /proc/loadavg); h5="mumps_${c//[^A-Za-z0-9_]/_}_np$np.h5"
  t0=$EPOCHREALTIME
  mpirun -n "$np" "$flexuq" modes "$job" --set linear_solver.ordering="$ord" --set output="$work/$h5" \
         -modes_st_mat_mumps_icntl_4 2 "${opts[@]}" > "$log" 2>&1 || { tail -5 "$log"; echo "$c: flexuq failed" >&2; }
  wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}')
  [ -n "${first:-}" ] || first=$h5
  df=$(/usr/bin/python3 -c "import h5py, numpy as n, sys; f = [h5py.File(a, 'r')['modes/frequencies_hz'][()] for a in sys.argv[1:]]
print('%.1e' % n.max(n.abs(f[1] - f[0]) / f[0]))" "$first" "$h5" 2> /dev/null || echo -)
  awk -v c="$c" -v wall="$wall" -v load="$load" -v df="$df" '
    /Ordering based on|Using PT-SCOTCH|Using ParMETIS/ && !used { used = $0; sub(/^ */, "", used); sub(/ *$/, "", used) }
    /Elapsed time in analysis driver/ && an == "" { an = $NF }
    /------\(3\)  Operations in node elimination/ && fl == "" { fl = $NF; sub(/D/, "e", fl) }
    /INFOG\(29\)  Number of entries in factors/ && fe == "" { fe = $NF }
    /\(INFOG\(19\)\)/ && al == "" { al = $NF / 1000 }
    /\(INFOG\(22\)\)/ && us == "" { us = $NF / 1000 }
    /Elapsed time for factorization/ && ft == "" { ft = $NF }
    $1 == "partition+assemble" { pa = $3; ma = $4 * 1.048576 / 1000 }
    $1 == "eigensolve" { es = $3; me = $4 * 1.048576 / 1000 }
    END { printf "| %s | %s | %s | %.3g | %.3g | %.2f / %.2f | %s | %s, %s | %.2f / %.2f | %s | %s | %s |\n",
                 c, used, an, fl, fe, al, us, ft, pa, es, ma, me, wall, load, df }' "$log" >> $table
done
cat $table
