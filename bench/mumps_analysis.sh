#!/bin/bash
# SPDX-License-Identifier: MIT
# MUMPS's analysis alone over rank counts and orderings (issue #38: the 16-rank predictions of
# docs/performance.md "16 ranks: what the 2-rank figures and MUMPS's analysis predict"):
#   bench/mumps_analysis.sh MESH [RANKS] [ORDERINGS] [OUT]
# RANKS default "1 2 4 8 16" (oversubscribed where the machine has fewer cores: the analysis's counts
# and estimates do not depend on the cores, its time does), ORDERINGS default "pord scotch ptscotch".
# The clamp set is CLAMP (bench/crank.geo). Writes OUT (default bench/results/mumps_analysis.md): one row
# per run from build/bench/bench_mumps_analysis's summary line; the per-process lines go to OUT's .log.
# Memory: every process reads the mesh and its share of K; 16 processes on the 868 k crank need ~6 GB
# summed: the script holds /tmp/flexuq-bigmem.lock around each run (LOCK= for none: the 294 k crank needs
# < 2.5 GB at 16 processes; LOCK=FILE for another lock file).
# COMPRESS (default "auto"): a list of auto and/or off: MUMPS's analysis on the node graph (ICNTL(15) −3,
# linear_solver.compress auto; PT-Scotch's parallel analysis ignores it) or on the DOF graph (off); each
# ordering and rank count runs once per entry. "rank-0 CPU" is the host's CPU time in the analysis (the
# sequential orderings run there), which a loaded machine inflates less than the wall time.
set -euo pipefail
mesh=${1:?usage: $0 MESH [RANKS] [ORDERINGS] [OUT]}
ranks=${2:-"1 2 4 8 16"}
orderings=${3:-"pord scotch ptscotch"}
out=${4:-bench/results/mumps_analysis.md}
compress=${COMPRESS:-auto}
here=$(cd "$(dirname "$0")/.." && pwd)
exe=$here/build/bench/bench_mumps_analysis
[ -x "$exe" ] || { echo "$0: $exe missing: cmake --build build --target bench_mumps_analysis" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OPENBLAS_NUM_THREADS=1
lock=${LOCK-/tmp/flexuq-bigmem.lock}
mkdir -p "$(dirname "$out")"
log=${out%.md}.log
{
  echo "# MUMPS analysis of $(basename "$mesh") ($(date -u '+%F %H:%M UTC'), $(nproc) cores)"
  echo
  echo "| ordering | compress | processes | analysis [s] | rank-0 CPU in analysis [s] | RINFOG(1) ops | max RINFO(1) | max RINFO(1) / mean | max INFO(3) / mean | INFOG(16) max in-core [MB] | INFOG(17) total in-core [MB] | INFOG(26) max OOC [MB] | INFOG(27) total OOC [MB] | largest front | summed RSS after analysis [MB] | load |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$out"
: > "$log"
for o in $orderings; do
  for p in $ranks; do
   for c in $compress; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    line=$(${lock:+flock "$lock"} mpirun -n "$p" "$exe" "$mesh" CLAMP "$o" compress="$c" 2>&1 | tee -a "$log" | grep '^summary:' || true)
    [ -n "$line" ] || { echo "$0: $o on $p processes failed (see $log)" >&2; continue; }
    echo "$line" | awk -v load="$load" -v c="$c" '{ for (i = 2; i < NF; i += 2) v[$i] = $(i + 1)
      printf "| %s | %s | %s | %.1f | %.2f | %.3e | %.3e | %.2f | %.2f | %d | %d | %d | %d | %d | %d | %s |\n", v["ordering"], c, v["processes"],
        v["analysis_s"], v["rank0_cpu_analysis_s"], v["RINFOG1"], v["max_RINFO1"], v["ops_imbalance"], v["factor_imbalance"], v["INFOG16_MB"], v["INFOG17_MB"],
        v["INFOG26_MB"], v["INFOG27_MB"], v["INFOG5"], v["rss_after_analysis_sum_MB"], load }' >> "$out"
   done
  done
done
cat "$out"
