# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared part of the flexuq SLURM templates (modes.sbatch, reduce.sbatch, campaign.sbatch,
# campaign-array.sbatch): sourced by them from the flexuq checkout, never submitted itself.
# docs/slurm.md describes the flow; jobs/slurm/env.example lists the knobs.
#
# Time-out protocol (campaign): the job is submitted with `--signal=B:USR1@<lead>` and `--requeue`.
#   1. slurmctld sends SIGUSR1 to this batch shell <lead> to <lead> + 30 s before the time limit
#      (it checks limits every ~30 s). The shell must run flexuq in the background and trap the
#      signal: a batch shell without traps dies at once and its ranks are SIGKILLed.
#   2. The trap forwards SIGUSR1 to srun, which passes it to every rank. `flexuq campaign` finishes
#      the samples in flight (each one is already fsync'ed to the journal when done), writes
#      partial results and exits with status 75.
#   3. On 75 the shell runs `scontrol requeue`: same job id, same run folder; the job pends again
#      (Slurm holds a requeued batch job ~2 min: BeginTime) and the new run sees the journal
#      (and SLURM_RESTART_COUNT > 0) and adds --resume. Results are bit-identical to a run
#      that was never interrupted.
#   If the samples in flight outlast the lead time, the time limit's SIGTERM arrives: the ranks
#   treat it like SIGUSR1, the shell requeues at once (it is SIGKILLed KillWait seconds later);
#   at worst the samples in flight are lost and redone.
# A stochastic reduce (`reduce` with `reduce.stochastic`) runs its points through the campaign
# engine and follows the same protocol once its points have begun (its journal's state file is
# written then); before that, and for a deterministic reduction, the warning is only logged.
# modes and a deterministic reduce cannot checkpoint: they get the same traps only to say so in the
# log, and are never requeued on a time-out (a rerun would hit the same limit); --requeue still
# restarts them after a node failure.

flexuq_log() { printf '%s flexuq-slurm[%s]: %s\n' "$(date -u +%FT%TZ)" "${SLURM_JOB_ID:-no job}" "$*"; }
flexuq_die() {
  flexuq_log "error: $*" >&2
  exit 2
}

# flexuq_setup JOB [ARGS...]: environment, binary and run folder. Sets FLEXUQ_JOB, FLEXUQ_RUN,
# FLEXUQ_STEM (job file name without extension).
flexuq_setup() {
  [ -n "${SLURM_JOB_ID:-}" ] || flexuq_die "not inside a SLURM job: submit this template with sbatch"
  [ $# -ge 1 ] && [ -n "$1" ] || flexuq_die "no job file: sbatch <template> job.yaml [--set key=value]..."
  FLEXUQ_JOB=$1
  [ -f "$FLEXUQ_JOB" ] || flexuq_die "job file '$FLEXUQ_JOB' not found (relative paths start in the submit folder $PWD)"
  local env_file=${FLEXUQ_ENV:-}
  if [ -z "$env_file" ]; then
    for f in "$FLEXUQ_HOME/jobs/slurm/env" "$FLEXUQ_HOME/jobs/slurm/env.example"; do
      if [ -f "$f" ]; then env_file=$f; break; fi
    done
  fi
  if [ -n "$env_file" ]; then
    [ -r "$env_file" ] || flexuq_die "FLEXUQ_ENV=$env_file not found"
    # shellcheck disable=SC1090
    source "$env_file"
  fi
  export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 # flexuq is MPI-parallel: one thread per rank
  FLEXUQ_BIN=${FLEXUQ_BIN:-$FLEXUQ_HOME/build/bin/flexuq}
  [ -x "$FLEXUQ_BIN" ] || flexuq_die "flexuq binary '$FLEXUQ_BIN' not found or not executable (set FLEXUQ_BIN)"
  FLEXUQ_STEM=$(basename "${FLEXUQ_JOB%.*}")
  # One folder per job, stable across requeues (same job id; array tasks: <array id>_<task>).
  local id=${SLURM_JOB_ID}
  [ -n "${SLURM_ARRAY_JOB_ID:-}" ] && id=${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}
  FLEXUQ_RUN=${FLEXUQ_RUN_DIR:-runs/${SLURM_JOB_NAME:-flexuq}-$id}
  mkdir -p "$FLEXUQ_RUN"
  cp "$FLEXUQ_JOB" "$FLEXUQ_RUN/" # keep the job and the code version with the result
  git -C "$FLEXUQ_HOME" describe --always --dirty >"$FLEXUQ_RUN/flexuq-version.txt" 2>/dev/null || true
  local limit
  limit=$(squeue -h -j "$SLURM_JOB_ID" -o %l 2>/dev/null || true)
  flexuq_log "job '$FLEXUQ_JOB' on ${SLURM_NTASKS:-?} task(s), ${SLURM_JOB_NUM_NODES:-?} node(s) (${SLURM_JOB_NODELIST:-?}), time limit ${limit:-?}, restart ${SLURM_RESTART_COUNT:-0}; run folder $FLEXUQ_RUN"
}

# The signal traps are installed as soon as this file is sourced: a warning that comes before
# flexuq starts (lead time close to the time limit) must not kill the shell. The handlers only
# record; flexuq_srun's loop acts.
_flexuq_on_usr1() {
  FLEXUQ_WARNED=1
  if [ "$FLEXUQ_CHECKPOINTS" = 1 ]; then
    flexuq_log "time-limit warning (SIGUSR1): asking flexuq to finish the samples in flight and checkpoint"
  elif [ "$FLEXUQ_CHECKPOINTS" = 2 ]; then
    flexuq_log "time-limit warning (SIGUSR1): a stochastic reduce finishes its points in flight and checkpoints (passed on once its points have begun); a deterministic reduction cannot checkpoint and will be killed at the limit"
  else
    flexuq_log "time-limit warning (SIGUSR1): flexuq ${FLEXUQ_VERB:-} cannot checkpoint and will be killed at the limit; resubmit with a longer --time"
  fi
}

_flexuq_on_term() {
  FLEXUQ_TERMINATED=1
  flexuq_log "SIGTERM (time limit, scancel or preemption): waiting for flexuq to stop"
  # The ranks get SIGTERM from slurmstepd themselves. A checkpointing run that hit its time limit
  # is requeued now: this shell is SIGKILLed KillWait seconds from here. The time limit without a
  # warning (no --signal=B:USR1@<lead>) is told from scancel by the job's reason.
  case "$FLEXUQ_CHECKPOINTS" in
  1) ;;
  2) [ -f "${FLEXUQ_READY_FILE:-}" ] || return 0 ;; # a reduce that never reached its points
  *) return 0 ;;
  esac
  if [ "$FLEXUQ_WARNED" = 0 ] && [ "$(squeue -h -j "$SLURM_JOB_ID" -o %r 2>/dev/null)" = TimeLimit ]; then
    FLEXUQ_WARNED=1
    flexuq_log "time limit reached without a warning (submit with --signal=B:USR1@<lead>): samples in flight may be lost"
  fi
  if [ "$FLEXUQ_WARNED" = 1 ]; then _flexuq_requeue || true; fi
}

# Bytes in the campaign's journal records: a run that adds none made no progress.
_flexuq_journal_bytes() {
  local n=0 f s
  for f in "$1"/*.rec; do
    [ -f "$f" ] || continue
    s=$(stat -c %s "$f" 2>/dev/null || echo 0)
    n=$((n + s))
  done
  echo "$n"
}

_flexuq_requeue() {
  [ "$FLEXUQ_REQUEUED" = 1 ] && return 0
  local n=${SLURM_RESTART_COUNT:-0} max=${FLEXUQ_MAX_REQUEUES:-20} now
  if [ "${FLEXUQ_REQUEUE:-1}" != 1 ]; then
    flexuq_log "not requeued (FLEXUQ_REQUEUE=${FLEXUQ_REQUEUE}); continue with: FLEXUQ_RUN_DIR=$FLEXUQ_RUN sbatch ..."
    return 1
  fi
  if [ "$n" -ge "$max" ]; then
    flexuq_log "not requeued: restarted $n times already (FLEXUQ_MAX_REQUEUES=$max)"
    return 1
  fi
  now=$(_flexuq_journal_bytes "$FLEXUQ_JOURNAL")
  if [ "$now" -le "$FLEXUQ_JOURNAL_BYTES0" ]; then
    flexuq_log "not requeued: no sample finished in this run (is the --signal lead time longer than the time limit, or one sample longer than the job?)"
    return 1
  fi
  FLEXUQ_REQUEUED=1
  flexuq_log "requeueing job $SLURM_JOB_ID (restart $((n + 1))); the next run resumes from the journal"
  if ! scontrol requeue "$SLURM_JOB_ID"; then
    FLEXUQ_REQUEUED=0
    flexuq_log "scontrol requeue failed; continue with: FLEXUQ_RUN_DIR=$FLEXUQ_RUN sbatch ..."
    return 1
  fi
}

# flexuq_srun ARGS...: `srun flexuq ARGS` on all tasks of the allocation, in the background so that
# this shell can take SLURM's signals. Sets FLEXUQ_RC (the step's exit status). A step that starts
# no rank is launched again (FLEXUQ_LAUNCH_TRIES, default 3, FLEXUQ_LAUNCH_PAUSE s apart).
# FLEXUQ_CHECKPOINTS=1 (campaign) forwards the time-limit warning to the ranks (srun passes it on
# to every rank), but only once flexuq has installed its handler: the campaign's state file is
# rewritten at the start of each run, after that (a rank signalled earlier would die).
flexuq_srun() {
  local tries=${FLEXUQ_LAUNCH_TRIES:-3} attempt=1
  while :; do
    _flexuq_srun_once "$attempt" "$@"
    # A step that started no rank is not flexuq's result: say so and launch again, unless the job
    # is being stopped. Seen under Slurm 22.05: the first step of a requeued job (same job id, so
    # the same step id as the previous run's) "aborted before step completely launched", and srun
    # exited 0; the launch 10 s later ran normally.
    if [ "$FLEXUQ_STARTED" -gt 0 ] || [ "$FLEXUQ_WARNED" = 1 ] || [ "$FLEXUQ_TERMINATED" = 1 ]; then break; fi
    if [ "$attempt" -ge "$tries" ]; then
      flexuq_log "srun started no flexuq rank in $attempt attempt(s) (status $FLEXUQ_RC): giving up"
      [ "$FLEXUQ_RC" -ne 0 ] || FLEXUQ_RC=1
      break
    fi
    flexuq_log "srun started no flexuq rank (attempt $attempt of $tries, status $FLEXUQ_RC): launching again in ${FLEXUQ_LAUNCH_PAUSE:-10} s"
    attempt=$((attempt + 1))
    sleep "${FLEXUQ_LAUNCH_PAUSE:-10}" &
    wait $! 2>/dev/null || true
  done
  if [ "$FLEXUQ_STARTED" -gt 0 ]; then
    flexuq_log "flexuq exited with status $FLEXUQ_RC"
  else
    flexuq_log "no flexuq rank ran (status $FLEXUQ_RC)"
  fi
}

# One srun; sets FLEXUQ_RC and FLEXUQ_STARTED (ranks that reached exec of flexuq: each touches a
# marker in the run folder, which every node sees, then becomes flexuq by exec).
_flexuq_srun_once() {
  local attempt=$1 ready=${FLEXUQ_READY_FILE:-} forwarded=0 t0=$SECONDS mark marks
  shift
  mark=$(mktemp "${TMPDIR:-/tmp}/flexuq-srun.XXXXXX")
  marks="$FLEXUQ_RUN/.launch-${SLURM_RESTART_COUNT:-0}-$attempt"
  rm -rf "$marks" && mkdir -p "$marks"
  # shellcheck disable=SC2086,SC2016  # FLEXUQ_SRUN_ARGS is a list of options; $0/$@ are the inner shell's
  srun --mpi="${FLEXUQ_SRUN_MPI:-pmix}" --ntasks="${SLURM_NTASKS:-1}" --kill-on-bad-exit=1 ${FLEXUQ_SRUN_ARGS:-} \
    /bin/sh -c ': >"$0/rank-${SLURM_PROCID:-0}"; exec "$@"' "$marks" "$FLEXUQ_BIN" "$@" &
  FLEXUQ_STEP_PID=$!
  # Poll (1 s naps, so that the traps run at once) until srun is gone.
  while kill -0 "$FLEXUQ_STEP_PID" 2>/dev/null; do
    # 2 (reduce): only once the points have begun; a deterministic reduction never writes the file.
    if [ "$FLEXUQ_CHECKPOINTS" != 0 ] && [ "$FLEXUQ_WARNED" = 1 ] && [ "$forwarded" = 0 ] &&
      { [ -z "$ready" ] || [ "$ready" -nt "$mark" ] ||
        { [ "$FLEXUQ_CHECKPOINTS" = 1 ] && [ $((SECONDS - t0)) -ge 120 ]; }; }; then
      kill -USR1 "$FLEXUQ_STEP_PID" 2>/dev/null || true
      forwarded=1
    fi
    sleep 1 &
    wait $! 2>/dev/null || true
  done
  FLEXUQ_RC=0
  wait "$FLEXUQ_STEP_PID" || FLEXUQ_RC=$?
  FLEXUQ_STARTED=$(find "$marks" -name 'rank-*' 2>/dev/null | wc -l)
  rm -rf "$marks" "$mark"
}

# flexuq_run VERB JOB [ARGS...]: modes or reduce; output in the run folder. Exits with flexuq's status.
flexuq_run() {
  local verb=$1 job=$2
  shift 2
  FLEXUQ_VERB=$verb
  local out="$FLEXUQ_RUN/$FLEXUQ_STEM.h5" args=("$verb" "$job" "$@")
  if [ "$verb" = reduce ]; then
    # A stochastic reduce journals its points like a campaign: the same rank groups, resume and
    # requeue (a deterministic one writes no journal, so none of this applies to it).
    if [ -n "${FLEXUQ_GROUPS:-}${FLEXUQ_RANKS_PER_SAMPLE:-}" ]; then _flexuq_group_args args; fi
    _flexuq_journaled_setup args "$out" 2
  fi
  flexuq_srun "${args[@]}" --set "output=$out" -log_view ":$FLEXUQ_RUN/log_view.txt"
  if [ "$verb" = reduce ] && [ -f "$out.journal/state.txt" ] &&
    { [ "$FLEXUQ_RC" = 75 ] || { [ "$FLEXUQ_WARNED" = 1 ] && [ "$FLEXUQ_RC" -gt 128 ]; }; }; then
    _flexuq_journaled_exit "stochastic reduce" "$out"
  fi
  if [ "$FLEXUQ_RC" -ne 0 ] && { [ "$FLEXUQ_WARNED" = 1 ] || [ "$FLEXUQ_TERMINATED" = 1 ]; }; then
    flexuq_log "flexuq $verb was stopped by the time limit or scancel: it cannot checkpoint; resubmit with a longer --time"
  fi
  exit "$FLEXUQ_RC"
}

# flexuq_campaign JOB [ARGS...]: rank groups from the allocation, --resume when a journal exists,
# requeue after a clean checkpoint on the time-limit warning. Exits with flexuq's status.
flexuq_campaign() {
  local job=$1
  shift
  local out="$FLEXUQ_RUN/$FLEXUQ_STEM.h5"
  local args=(campaign "$job" "$@" --set "output=$out")
  _flexuq_group_args args
  _flexuq_journaled_setup args "$out" 1
  flexuq_srun "${args[@]}"
  [ "$FLEXUQ_RC" = 0 ] && flexuq_log "campaign complete: $out"
  _flexuq_journaled_exit campaign "$out"
}

# _flexuq_group_args ARRAY: add the rank groups of the allocation (FLEXUQ_GROUPS or
# FLEXUQ_RANKS_PER_SAMPLE) to the flexuq arguments in the array named ARRAY.
_flexuq_group_args() {
  local -n _a=$1
  local ntasks=${SLURM_NTASKS:-1} rps=""
  if [ -n "${FLEXUQ_GROUPS:-}" ]; then
    [ "$FLEXUQ_GROUPS" -ge 1 ] && [ $((ntasks % FLEXUQ_GROUPS)) -eq 0 ] ||
      flexuq_die "FLEXUQ_GROUPS=$FLEXUQ_GROUPS does not divide the $ntasks tasks of the allocation"
    rps=$((ntasks / FLEXUQ_GROUPS))
  elif [ -n "${FLEXUQ_RANKS_PER_SAMPLE:-}" ]; then
    [ "$FLEXUQ_RANKS_PER_SAMPLE" -ge 1 ] && [ $((ntasks % FLEXUQ_RANKS_PER_SAMPLE)) -eq 0 ] ||
      flexuq_die "FLEXUQ_RANKS_PER_SAMPLE=$FLEXUQ_RANKS_PER_SAMPLE does not divide the $ntasks tasks of the allocation"
    rps=$FLEXUQ_RANKS_PER_SAMPLE
  fi
  if [ -n "$rps" ]; then
    _a+=(--set "campaign.ranks_per_sample=$rps")
    flexuq_log "$ntasks task(s): $((ntasks / rps)) group(s) of $rps rank(s)"
  else
    flexuq_log "$ntasks task(s): groups of the job's campaign.ranks_per_sample (set FLEXUQ_GROUPS or FLEXUQ_RANKS_PER_SAMPLE to choose)"
  fi
}

# _flexuq_journaled_setup ARRAY OUT MODE: for a run that journals its samples in OUT.journal: add
# --resume to the flexuq arguments in the array named ARRAY when the run folder holds that journal
# (a requeued or resubmitted run), note the journal's size (a requeue needs progress) and set the
# checkpoint mode (FLEXUQ_CHECKPOINTS: 1 campaign, 2 reduce) with its ready file.
_flexuq_journaled_setup() {
  local -n _r=$1
  local out=$2
  FLEXUQ_JOURNAL=$out.journal
  FLEXUQ_JOURNAL_BYTES0=$(_flexuq_journal_bytes "$FLEXUQ_JOURNAL")
  FLEXUQ_CHECKPOINTS=$3 FLEXUQ_READY_FILE=$out.journal/state.txt
  if [ -f "$out.journal/state.txt" ]; then
    _r+=(--resume)
    flexuq_log "journal $out.journal found (restart ${SLURM_RESTART_COUNT:-0}): resuming"
  elif [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then
    flexuq_log "restart ${SLURM_RESTART_COUNT} but no journal in $out.journal: starting afresh"
  fi
}

# _flexuq_journaled_exit WHAT OUT: after a journaled run (campaign, stochastic reduce): requeue it
# after a clean checkpoint on the time-limit warning (status 75), or after a kill at the limit;
# exits with flexuq's status otherwise.
_flexuq_journaled_exit() {
  local what=$1 out=$2
  case "$FLEXUQ_RC" in
  0) ;;
  75)
    flexuq_log "$what checkpointed: partial results in $out"
    [ "$FLEXUQ_REQUEUED" = 1 ] && exit 0
    if [ "$FLEXUQ_WARNED" = 1 ]; then
      _flexuq_requeue && exit 0
    else
      flexuq_log "not requeued (stopped by scancel or a signal other than the time-limit warning); continue with: FLEXUQ_RUN_DIR=$FLEXUQ_RUN sbatch ..."
    fi
    ;;
  *)
    [ "$FLEXUQ_REQUEUED" = 1 ] && exit 0
    if [ "$FLEXUQ_WARNED" = 1 ] && [ "$FLEXUQ_RC" -gt 128 ]; then
      # Killed at the limit before the samples in flight were done: the journal still holds every
      # finished sample.
      _flexuq_requeue && exit 0
    fi
    ;;
  esac
  exit "$FLEXUQ_RC"
}

# Where the checkout is (the batch script itself runs from a copy in slurmd's spool folder).
FLEXUQ_HOME=${FLEXUQ_HOME:-${SLURM_SUBMIT_DIR:-$PWD}}
FLEXUQ_WARNED=0 FLEXUQ_TERMINATED=0 FLEXUQ_REQUEUED=0 FLEXUQ_CHECKPOINTS=0 FLEXUQ_RC=0 FLEXUQ_STARTED=0
trap _flexuq_on_usr1 USR1
trap _flexuq_on_term TERM
