// SPDX-License-Identifier: MIT
#include "flexuq/core/Signals.hpp"

#include "flexuq/core/Error.hpp"

#include <csignal>
#include <cstdio>
#include <cstring>

namespace flexuq::signals {

namespace {

volatile std::sig_atomic_t g_stop = 0;   // the signal number, 0 = none
volatile std::sig_atomic_t g_active = 0; // a guard is installed
bool g_stopped_early = false;

struct sigaction g_old_usr1, g_old_term;

extern "C" void on_stop_signal(int sig) {
  if (g_stop == 0) g_stop = sig; // the first one names the cause
}

void install(int sig, struct sigaction* old) {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART; // MPI and file I/O keep going; the flag is polled between units of work
  if (::sigaction(sig, &sa, old) != 0) throw Error(std::string("cannot install a handler for ") + signal_name(sig));
}

} // namespace

StopOnSignal::StopOnSignal() {
  if (g_active) throw Error("signals::StopOnSignal is not nestable");
  install(SIGUSR1, &g_old_usr1);
  install(SIGTERM, &g_old_term);
  g_active = 1;
}

StopOnSignal::~StopOnSignal() {
  ::sigaction(SIGUSR1, &g_old_usr1, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
  g_active = 0;
}

int stop_requested() { return static_cast<int>(g_stop); }
void request_stop(int signal_number) { g_stop = signal_number; }
void clear_stop() {
  g_stop = 0;
  g_stopped_early = false;
}

void mark_stopped_early() { g_stopped_early = true; }
bool stopped_early() { return g_stopped_early; }

const char* signal_name(int signal_number) {
  switch (signal_number) {
  case 0: return "a stop signal to another rank";
  case SIGUSR1: return "SIGUSR1";
  case SIGUSR2: return "SIGUSR2";
  case SIGTERM: return "SIGTERM";
  case SIGINT: return "SIGINT";
  default: {
    static thread_local char buf[32];
    std::snprintf(buf, sizeof buf, "signal %d", signal_number);
    return buf;
  }
  }
}

} // namespace flexuq::signals
