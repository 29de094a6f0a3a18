# SPDX-License-Identifier: MIT
# Sourced by bench/mbs_*.sh: options [--out DIR] [--flexuq PATH], the MPI/BLAS environment, and a
# working directory. Sets `here` (the source tree), `out`, `flexuq`; leaves the caller in $out.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$here/bench/results"; flexuq="$here/build/bin/flexuq"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2;; --flexuq) flexuq=$2; shift 2;;
    *) echo "unknown option $1"; exit 2;;
  esac
done
[ -x "$flexuq" ] || { echo "build flexuq first"; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$out"; cd "$out"
