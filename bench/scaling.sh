#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Strong scaling of flexuq (issue #38 item 4): `modes` (20 clamped modes), `reduce` (Craig–Bampton, the
# clamp face as an RBE2 interface, 20 fixed-interface modes, no free-free check-out) and a small Monte
# Carlo campaign (ranks_per_sample 1, so N ranks = N groups, fixed sample count) over a rank list, on the
# crank of bench/crank.geo (tet10, clamped at CLAMP), with CalculiX *FREQUENCY beside it. Writes a markdown
# table (OUT/scaling.md, rewritten after every run, so a killed run still leaves the finished rows) and
# every run's log under OUT/logs.
#
#   bench/scaling.sh [--ranks "1 2 4 8 16"] [--sizes "300k"] [--what "modes ccx reduce campaign"]
#                    [--solvers "krylov-schur block"]
#                    [--reduce-ranks LIST] [--campaign-ranks LIST] [--ccx-threads "1 MAXRANK"]
#                    [--campaign-size 30k] [--samples 32] [--modes 20] [--budget SECONDS]
#                    [--meshes DIR] [--out DIR] [--flexuq PATH] [--no-chroot | --chroot DIR [--bundle T.tar.xz]]
#   bench/scaling.sh --prepare --meshes DIR --sizes "300k 30k"     # meshes only (needs gmsh, python3)
#
# --solvers "krylov-schur block": the modes and reduce runs once per eigensolver (modes.solver,
# reduce.modes.solver; rows "modes" for Krylov–Schur, "modes-block" for block; default krylov-schur).
# Sizes (gmsh h): 30k = 0.0105, 100k = 0.0066, 300k = 0.0043 (293 988 DOFs), 1M = 0.0029 (867 690 DOFs).
# Meshes come from --meshes DIR (crank_SIZE.inp or crank_SIZE.inp.xz, made by --prepare) or, where gmsh
# and python3 exist, are made on the fly. The driver (timing, parsing, tables) needs only bash 5, awk and
# coreutils; flexuq, mpirun and ccx run either from this machine's PATH / build tree (--no-chroot, the
# default where no bundle is found) or inside the relocatable root of ../shared/tools/chroot-bundle
# (--chroot DIR, the default where DIR=/opt/r holds one and we are root; --bundle unpacks one there and
# bind-mounts /proc, /sys, /dev). Per run: wall time (start to exit), DOFs, the eigensolve phase (max over
# ranks) and the summed peak memory from flexuq's own log ("... summed over ranks", else the largest
# per-phase peak RSS of its phase table); for ccx and campaigns, which print none, the sum of VmHWM over
# the run's processes sampled from /proc every 0.5 s. --budget S: no run starts after S seconds, and a
# running one is killed at S (its row says so). ccx rows compare the 20 frequencies with flexuq's (flagged
# above 1e-3; the .dat is kept in OUT/logs). Rank counts above the machine's cores run oversubscribed,
# unbound (not a scaling figure). See docs/performance.md, "Strong scaling".
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ranks="1 2 4 8 16"; sizes="300k"; what="modes ccx reduce campaign"; reduce_ranks=""; campaign_ranks=""
solvers=krylov-schur; ccx_threads=""; campaign_size=30k; samples=32; nmodes=20; budget=0; meshes=""; out="$here/bench/results/scaling"
flexuq="$here/build/bin/flexuq"; mode=auto; root=/opt/r; bundle=""; prepare=0; args="$*"
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) ranks=$2; shift 2;; --sizes) sizes=$2; shift 2;; --what) what=$2; shift 2;;
    --solvers) solvers=$2; shift 2;;
    --reduce-ranks) reduce_ranks=$2; shift 2;; --campaign-ranks) campaign_ranks=$2; shift 2;;
    --ccx-threads) ccx_threads=$2; shift 2;; --campaign-size) campaign_size=$2; shift 2;;
    --samples) samples=$2; shift 2;; --modes) nmodes=$2; shift 2;; --budget) budget=$2; shift 2;;
    --meshes) meshes=$2; shift 2;; --out) out=$2; shift 2;; --flexuq) flexuq=$2; shift 2;;
    --no-chroot) mode=host; shift;; --chroot) mode=chroot; root=$2; shift 2;; --bundle) bundle=$2; shift 2;;
    --prepare) prepare=1; shift;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0;;
    *) echo "scaling.sh: unknown option $1 (see --help)" >&2; exit 2;;
  esac
done
declare -A H=([30k]=0.0105 [100k]=0.0066 [300k]=0.0043 [1M]=0.0029)
for s in $sizes $campaign_size; do [ -n "${H[$s]:-}" ] || { echo "unknown size $s (30k 100k 300k 1M)" >&2; exit 2; }; done
maxr=1; for r in $ranks; do [ "$r" -gt "$maxr" ] && maxr=$r; done
: "${reduce_ranks:=$ranks}" "${campaign_ranks:=$ranks}" "${ccx_threads:=1 $maxr}"
[ "$ccx_threads" = "1 1" ] && ccx_threads=1
[ -n "$meshes" ] || meshes="$out/meshes"
mkdir -p "$out/logs" "$meshes"; out=$(cd "$out" && pwd); meshes=$(cd "$meshes" && pwd)

# ---- meshes: crank_SIZE.inp (tet10, volume elements only; node set CLAMP, element set SOLID) ----------
make_mesh() {  # size -> $meshes/crank_$1.inp
  local s=$1 d; d=$(mktemp -d)
  command -v gmsh > /dev/null && command -v python3 > /dev/null ||
    { echo "no mesh crank_$s.inp(.xz) in $meshes, and no gmsh/python3 here to make one" >&2; return 1; }
  cp "$here/bench/crank.geo" "$d/" &&
  (cd "$d" && gmsh -3 -order 2 -setnumber Mesh.SecondOrderLinear 1 -setnumber h "${H[$s]}" \
     -setnumber Mesh.SaveGroupsOfNodes 1 -format inp -o raw.inp crank.geo > gmsh.log 2>&1) &&
  python3 -c "import sys; sys.path.insert(0, sys.argv[1]); from ccx_crosscheck import clean_inp; clean_inp(sys.argv[2], sys.argv[3])" \
    "$here/tests/oracle" "$d/raw.inp" "$meshes/crank_$s.inp" || { echo "meshing $s failed (see $d)" >&2; return 1; }
  rm -rf "$d"
}
unxz_to() {  # file.xz -> stdout (xz, or python3's lzma where xz is missing)
  if command -v xz > /dev/null; then xz -dc "$1"
  else python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)" "$1"; fi
}
get_mesh() {  # size -> ensures $meshes/crank_$1.inp
  local f="$meshes/crank_$1.inp"
  [ -s "$f" ] && return 0
  if [ -s "$f.xz" ]; then unxz_to "$f.xz" > "$f.tmp" && mv "$f.tmp" "$f"; return; fi
  make_mesh "$1"
}
if [ "$prepare" = 1 ]; then
  for s in $sizes; do get_mesh "$s" && xz -T0 -6 -kf "$meshes/crank_$s.inp" && ls -l "$meshes/crank_$s.inp"*; done
  exit 0
fi

# ---- where flexuq / mpirun / ccx come from ---------------------------------------------------------------
if [ -n "$bundle" ]; then
  [ "$mode" = auto ] && mode=chroot
  if [ ! -x "$root/opt/flexuq/flexuq" ]; then mkdir -p "$root" && unxz_to "$bundle" | tar -xf - -C "$root" || exit 1; fi
fi
if [ "$mode" = auto ]; then
  if [ -x "$root/opt/flexuq/flexuq" ] && [ "$(id -u)" = 0 ]; then mode=chroot; else mode=host; fi
fi
mounted=()
if [ "$mode" = chroot ]; then
  [ -x "$root/opt/flexuq/flexuq" ] || { echo "no bundle at $root (use --bundle or --no-chroot)" >&2; exit 2; }
  for d in proc sys dev; do
    if ! awk -v m="$root/$d" '$2 == m {f = 1} END {exit !f}' /proc/mounts; then
      mount --bind "/$d" "$root/$d" && mounted+=("$root/$d") || echo "warning: cannot bind-mount /$d" >&2
    fi
  done
  unmount() { local mp; for mp in "${mounted[@]}"; do umount "$mp" 2> /dev/null; done; }
  trap unmount EXIT
  base="$root/work/flexuq-scaling"; inbase=/work/flexuq-scaling; fx=/opt/flexuq/flexuq
  has_ccx=1
else
  [ -x "$flexuq" ] || { echo "no flexuq at $flexuq (build it, or --flexuq PATH)" >&2; exit 2; }
  command -v mpirun > /dev/null || { echo "no mpirun on PATH" >&2; exit 2; }
  base="$out/flexuq-scaling"; inbase="$base"; fx=$flexuq
  has_ccx=0; command -v ccx > /dev/null && has_ccx=1
fi
envs=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1)
[ "$mode" = chroot ] && envs+=(OMPI_MCA_plm=isolated PATH=/usr/bin:/bin HOME=/tmp)
inside() {  # workdir-name "VAR=... VAR=..." "command" : run the command in that work dir, host or chroot
  local w=$1 extra=$2 cmd=$3
  # shellcheck disable=SC2086
  if [ "$mode" = chroot ]; then chroot "$root" /usr/bin/env "${envs[@]}" $extra /bin/bash -c "cd $inbase/$w && $cmd"
  else env "${envs[@]}" $extra bash -c "cd '$inbase/$w' && $cmd"; fi
}
ncores=$(nproc 2> /dev/null || getconf _NPROCESSORS_ONLN)
cpu=$(awk -F: '/^model name/ {sub(/^ */, "", $2); print $2; exit}' /proc/cpuinfo)
memgb=$(awk '/^MemTotal/ {printf "%.0f", $2 / 1048576}' /proc/meminfo)
bind=core
mpiflags() {  # ranks -> mpirun flags
  if [ "$1" -le "$ncores" ]; then echo "--bind-to $bind"; else echo "--oversubscribe --bind-to none"; fi
}

# ---- one run: time it, sample memory, keep the log -------------------------------------------------------
t_start=$EPOCHREALTIME
elapsed() { awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN {printf "%d", b - a}'; }
sample_mem() {  # pid workdir names-regex outfile: max over time of the summed VmHWM [kB] of matching processes
  local pid=$1 wd=$2 re=$3 f=$4 best=0 sum p
  while kill -0 "$pid" 2> /dev/null; do
    sum=0
    for p in /proc/[0-9]*; do
      [[ "$(cat "$p/comm" 2> /dev/null)" =~ $re ]] || continue
      [[ "$(readlink "$p/cwd" 2> /dev/null)" == *"$wd" ]] || continue
      sum=$((sum + $(awk '/^VmHWM/ {print $2; f = 1} END {if (!f) print 0}' "$p/status" 2> /dev/null || echo 0)))
    done
    [ "$sum" -gt "$best" ] && best=$sum && echo "$best" > "$f"
    sleep 0.5
  done
}
tsv="$out/runs.tsv"; : > "$tsv"
record() { printf '%s\n' "$(IFS=$'\t'; echo "$*")" >> "$tsv"; write_table; }
# run kind size np workdir "extra env" "command" names-regex -> wall, log in $out/logs/kind-size-np.log
run_one() {
  local kind=$1 size=$2 np=$3 w=$4 extra=$5 cmd=$6 re=$7 log="$out/logs/$1-$2-$3.log" left t0 rc pid
  if [ "$budget" -gt 0 ]; then
    left=$((budget - $(elapsed)))
    if [ "$left" -le 0 ]; then record "$kind" "$size" "" "$np" "" "" "" "" "skipped (budget)"; return 1; fi
  fi
  echo "[$(elapsed) s] $kind $size np=$np: $cmd" >&2
  rm -f "$out/mem.tmp"; t0=$EPOCHREALTIME
  if [ "$budget" -gt 0 ] && command -v timeout > /dev/null; then
    timeout -k 5 "$left" bash -c "$(declare -f inside); $(declare -p envs mode root inbase); inside \"\$@\"" _ \
      "$w" "$extra" "$cmd" > "$log" 2>&1 &
  else inside "$w" "$extra" "$cmd" > "$log" 2>&1 & fi
  pid=$!; sample_mem "$pid" "flexuq-scaling/$w" "$re" "$out/mem.tmp" & local spid=$!
  wait "$pid"; rc=$?; wait "$spid" 2> /dev/null
  wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.2f", b - a}')
  sampled=$(cat "$out/mem.tmp" 2> /dev/null || echo "")
  status=ok; [ "$rc" = 0 ] || status="failed (exit $rc)"; [ "$rc" = 124 ] || [ "$rc" = 137 ] && status="killed at the budget"
  echo "[$(elapsed) s]   wall $wall s, $status" >&2
}
# flexuq log -> "dofs|mem_MB|eig_s|freqs (space-separated)|note"
parse_flexuq() {
  awk -v phase="$2" '
    /DOFs: [0-9]+ free/ { for (i = 1; i <= NF; i++) if ($i == "DOFs:") dofs = $(i + 1) }
    /summed over ranks/ { for (i = 1; i <= NF; i++) if ($i == "summed") { v = $(i - 2); u = $(i - 1) }
                          summed = (u == "GB") ? v * 1000 : v }
    $0 ~ "^  " phase " +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+$" { eig = $(NF - 2) }
    NF >= 5 && $NF ~ /^[0-9]+$/ && $(NF - 1) ~ /^[0-9]+$/ && $(NF - 2) ~ /^[0-9.]+$/ && $(NF - 3) ~ /^[0-9.]+$/ {
      if ($(NF - 1) + 0 > table) table = $(NF - 1) + 0 }
    /^ +[0-9]+ +[0-9.]+e[-+][0-9]+ +[0-9.]+e[-+][0-9]+ +[0-9.]+e[-+][0-9]+ +[0-9]+$/ { f = f (f == "" ? "" : " ") $2 }
    /evaluated [0-9]+ sample/ { note = $0; sub(/^ +/, "", note); sub(/;.*/, "", note) }
    END { printf "%s|%s|%s|%s|%s\n", dofs, summed != "" ? summed : table, eig, f, note }' "$1"
}

# ---- the markdown table ----------------------------------------------------------------------------------
write_table() {
  {
    echo "<!-- bench/scaling.sh $args -->"
    echo "Machine: $cpu, $ncores cores (nproc), $memgb GB; $(date -u '+%Y-%m-%d %H:%M UTC'); flexuq from" \
         "$([ "$mode" = chroot ] && echo "the chroot bundle at $root" || echo "$fx"), mpirun --bind-to $bind, OPENBLAS_NUM_THREADS=1."
    echo
    echo "| run | DOFs | ranks | wall | speed-up vs 1 rank | summed peak memory | eigensolve phase | CB / modes (wall) | note |"
    echo "|---|---|---|---|---|---|---|---|---|"
    awk -F'\t' '
      function gb(mb) { return mb == "" ? "—" : sprintf("%.2f GB", mb / 1000) }
      function sec(s) { return s == "" ? "—" : (s < 100 ? sprintf("%.1f s", s) : sprintf("%.0f s", s)) }
      function dof(n,  s) { if (n == "") return "—"; s = ""; while (n >= 1000) { s = sprintf(" %03d", n % 1000) s; n = int(n / 1000) } return n s }
      function maxrel(a, b,  x, y, n, i, d, m) { n = split(a, x, " "); if (split(b, y, " ") < n) n = split(b, y, " ")
        m = 0; for (i = 1; i <= n; i++) { d = (x[i] - y[i]) / x[i]; if (d < 0) d = -d; if (d > m) m = d } return n ? sprintf("%.1e", m) : "" }
      { k[NR] = $1; sz[NR] = $2; dofs[NR] = $3; np[NR] = $4; wall[NR] = $5; mem[NR] = $6; eig[NR] = $7; fr[NR] = $8; st[NR] = $9; nt[NR] = $10
        if ($9 == "ok") { w[$1, $2, $4] = $5; if (!(($1, $2) in fref) && $8 != "") fref[$1, $2] = $8
                          if ($1 ~ /^modes/ && !($2 in mref) && $8 != "") mref[$2] = $8 } }
      END { for (i = 1; i <= NR; i++) {
        name = k[i] " " sz[i]; ranks = np[i]; note = nt[i]
        if (k[i] == "ccx") { ranks = np[i] " thread" (np[i] > 1 ? "s" : "") }
        if (st[i] != "ok") { printf "| %s | %s | %s | — | — | — | — | — | %s |\n", name, dof(dofs[i]), ranks, st[i]; continue }
        su = ((k[i], sz[i], 1) in w && k[i] != "") ? sprintf("%.2f×", w[k[i], sz[i], 1] / wall[i]) : "—"
        mk = k[i]; sub(/^reduce/, "modes", mk)
        cb = "—"; if (k[i] ~ /^reduce/ && ((mk, sz[i], np[i]) in w)) cb = sprintf("%.2f×", wall[i] / w[mk, sz[i], np[i]])
        if (k[i] ~ /^modes/ && fr[i] != "" && fr[i] != mref[sz[i]]) note = note (note ? "; " : "") "max rel. Δf vs first modes run " maxrel(mref[sz[i]], fr[i])
        if (k[i] == "ccx") {
          if (fr[i] != "" && (sz[i] in mref)) { d = maxrel(mref[sz[i]], fr[i])  # tet10 mass rules differ by ~1e-5
            note = note (note ? "; " : "") "max rel. Δf vs flexuq " d (d + 0 > 1e-3 ? " **(> 1e-3: not the same modes)**" : "") }
          if (("modes", sz[i], np[i]) in w) note = note (note ? "; " : "") sprintf("flexuq modes at %d rank(s) %.1f× faster", np[i], wall[i] / w["modes", sz[i], np[i]]) }
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, dof(dofs[i]), ranks, sec(wall[i]), su, gb(mem[i]), sec(eig[i]), cb, note } }' "$tsv"
    echo
    echo "Wall = whole run, start to exit (mesh read, assembly, solve, output). Memory: flexuq's own summed-over-ranks" \
         "peak RSS; for ccx and campaigns the summed VmHWM of the run's processes sampled every 0.5 s." \
         "Campaign: ${samples} Monte Carlo samples of the ${campaign_size} crank (10 frequencies), ranks_per_sample 1."
  } > "$out/scaling.md"
}

# ---- the runs --------------------------------------------------------------------------------------------
prep_work() {  # size -> work dir with crank.inp and the job files
  local s=$1 w="$base/$1"
  mkdir -p "$w" || return 1
  get_mesh "$s" || return 1
  [ -s "$w/crank.inp" ] || cp "$meshes/crank_$s.inp" "$w/crank.inp" || return 1
  cat > "$w/modes.yaml" <<YAML
model: {mesh: crank.inp, material: {E: 2.1e11, nu: 0.3, rho: 7850}}
modes: {count: $nmodes, fixed: [CLAMP]}
output: modes.h5
YAML
  cat > "$w/cb.yaml" <<YAML
model: {mesh: crank.inp, material: {E: 2.1e11, nu: 0.3, rho: 7850}}
reduce:
  method: craig-bampton
  interfaces: [{set: CLAMP, kind: rbe2}]
  modes: {count: $nmodes}
  checkout: {free_free: 0}
output: cb.h5
YAML
  cat > "$w/campaign.yaml" <<YAML
model: {mesh: crank.inp, material: {E: 2.1e11, nu: 0.3, rho: 7850}, fixed: [CLAMP]}
parameters:
  E:   {dist: lognormal, mean: 2.1e11, std: 1.0e10}
  rho: {dist: uniform, low: 7700, high: 8000}
outputs: {frequencies: 10}
method: {type: monte-carlo, samples: $samples}
campaign: {ranks_per_sample: 1, checkpoint_every: 1000, seed: 42}
output: campaign.h5
YAML
  printf '%s\n' "*INCLUDE, INPUT=crank.inp" "*MATERIAL, NAME=STEEL" "*ELASTIC" "2.1e11, 0.3" "*DENSITY" "7850" \
    "*SOLID SECTION, ELSET=SOLID, MATERIAL=STEEL" "*BOUNDARY" "CLAMP, 1, 3" "*STEP" "*FREQUENCY" "$nmodes" \
    "*END STEP" > "$w/ccxjob.inp"
}
flexuq_row() {  # kind size np phase
  local p; p=$(parse_flexuq "$out/logs/$1-$2-$3.log" "$4")
  IFS='|' read -r dofs mem eig freqs note <<< "$p"
  [ -z "$dofs" ] && dofs=$(awk -F'\t' -v s="$2" '$1 ~ /^modes/ && $2 == s && $3 != "" {d = $3} END {print d}' "$tsv")
  [ -z "$mem" ] && [ -n "$sampled" ] && mem=$(awk -v k="$sampled" 'BEGIN {printf "%.0f", k * 1.024 / 1000}')
  record "$1" "$2" "$dofs" "$3" "$wall" "$mem" "$eig" "$freqs" "$status" "$note"
}
solver_suffix() { [ "$1" = krylov-schur ] || echo "-$1"; }  # run kind: modes (Krylov–Schur), modes-block, …
for sv in $solvers; do
  case $sv in krylov-schur|block) ;; *) echo "unknown solver $sv (krylov-schur block)" >&2; exit 2;; esac
done
echo "scaling.sh: $mode mode, $ncores cores, $cpu; out $out" >&2
for s in $sizes; do prep_work "$s" || exit 1; done
# can mpirun bind here (a container may hide the topology)? If not, run unbound and say so in the table.
pr=$maxr; [ "$pr" -gt "$ncores" ] && pr=$ncores
if ! inside "${sizes%% *}" "" "mpirun -n $pr --bind-to core /bin/bash -c exit" > "$out/logs/bind-probe.log" 2>&1; then
  bind=none; echo "mpirun --bind-to core failed (logs/bind-probe.log): runs unbound" >&2
fi
[[ " $what " == *" campaign "* ]] && { prep_work "$campaign_size" || exit 1; }
for s in $sizes; do
  for k in $what; do
    case $k in
      modes) for sv in $solvers; do kn=modes$(solver_suffix "$sv"); for r in $ranks; do
        run_one "$kn" "$s" "$r" "$s" "" "mpirun -n $r $(mpiflags "$r") $fx modes modes.yaml --set modes.solver=$sv" '^flexuq$' || continue
        flexuq_row "$kn" "$s" "$r" eigensolve; done; done;;
      reduce) for sv in $solvers; do kn=reduce$(solver_suffix "$sv"); for r in $reduce_ranks; do
        run_one "$kn" "$s" "$r" "$s" "" "mpirun -n $r $(mpiflags "$r") $fx reduce cb.yaml --set reduce.modes.solver=$sv" '^flexuq$' || continue
        flexuq_row "$kn" "$s" "$r" "cms: fixed-interface modes"; done; done;;
      ccx) [ "$has_ccx" = 1 ] || { echo "no ccx: skipped" >&2; continue; }
        for t in $ccx_threads; do
          run_one ccx "$s" "$t" "$s" "OMP_NUM_THREADS=$t CCX_NPROC_STIFFNESS=$t CCX_NPROC_EQUATION_SOLVER=$t NUMBER_OF_CPUS=$t" \
            "ccx -i ccxjob" '^ccx' || continue
          freqs=$(awk '/E I G E N V A L U E   O U T P U T/ {on = 1; next} /P A R T I C I P A T I O N/ {on = 0}
                       on && NF == 5 && $1 ~ /^[0-9]+$/ {printf "%s%.9e", (n++ ? " " : ""), sqrt($2 > 0 ? $2 : 0) / (2 * 3.141592653589793)}' \
                  "$base/$s/ccxjob.dat" 2> /dev/null)  # the eigenvalue table
          mem=""; [ -n "$sampled" ] && mem=$(awk -v k="$sampled" 'BEGIN {printf "%.0f", k * 1.024 / 1000}')
          dofs=$(awk -F'\t' -v s="$s" '$1 ~ /^modes/ && $2 == s && $3 != "" {d = $3} END {print d}' "$tsv")
          record ccx "$s" "$dofs" "$t" "$wall" "$mem" "" "$freqs" "$status" ""
          mv -f "$base/$s/ccxjob.dat" "$out/logs/ccx-$s-$t.dat" 2> /dev/null; rm -f "$base/$s"/ccxjob.{frd,sta,cvg,12d}
        done;;
      campaign) [ "$s" = "${sizes%% *}" ] || continue  # once, on its own (small) mesh
        for r in $campaign_ranks; do
          rm -rf "$base/$campaign_size"/campaign.h5*
          run_one campaign "$campaign_size" "$r" "$campaign_size" "" \
            "mpirun -n $r $(mpiflags "$r") $fx campaign campaign.yaml" '^flexuq$' || continue
          flexuq_row campaign "$campaign_size" "$r" "-"; done;;
      *) echo "unknown run kind $k (modes reduce ccx campaign)" >&2; exit 2;;
    esac
  done
done
rm -f "$out/mem.tmp"
echo "[$(elapsed) s] done: $out/scaling.md" >&2
cat "$out/scaling.md"
