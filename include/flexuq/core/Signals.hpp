// SPDX-License-Identifier: MIT
#pragma once
/// @file Signals.hpp
/// @brief A clean stop on SIGUSR1 / SIGTERM for work that can checkpoint (a sampling campaign).
///
/// A batch scheduler announces the end of a job with a signal: SLURM's `--signal=USR1@N` (or the
/// batch script forwarding `B:USR1`) N seconds before the time limit, SIGTERM at the limit itself,
/// KillWait seconds before SIGKILL. PETSc's own handler turns both into an abort. While a
/// StopOnSignal guard is alive they only raise a flag instead; the loop polls stop_requested()
/// between units of work, finishes the unit in flight, writes what it has and returns; the command
/// then exits with kExitResumable so the batch script knows it may requeue and `--resume`.
/// Other commands (modes, reduce) cannot checkpoint: they install no guard and keep PETSc's
/// handler (a signal ends them at once).

namespace flexuq::signals {

/// Exit status of a command that stopped early on a signal after a clean checkpoint: run it again
/// with `--resume` (sysexits.h EX_TEMPFAIL, "temporary failure, the user is invited to retry").
constexpr int kExitResumable = 75;

/// @brief While alive, SIGUSR1 and SIGTERM set the stop flag (async-signal-safe, SA_RESTART)
/// instead of running the previous handlers; the destructor restores them. Not nestable.
class StopOnSignal {
public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
};

/// The signal that asked this process to stop (SIGUSR1 or SIGTERM), 0 if none. Not collective:
/// each process sees its own signals; callers agree on a stop through their own communication.
int stop_requested();
/// Raise the flag as a signal would (tests; a command's own time budget).
void request_stop(int signal_number);
/// Clear the flag and the stopped-early mark (tests).
void clear_stop();

/// A command records that it stopped early and left a resumable checkpoint; main exits with
/// kExitResumable instead of 0. Not collective: the command calls it on every rank.
void mark_stopped_early();
bool stopped_early();

/// "SIGUSR1", "SIGTERM", or "signal N".
const char* signal_name(int signal_number);

} // namespace flexuq::signals
