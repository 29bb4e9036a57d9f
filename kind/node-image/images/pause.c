/*
 * The sandbox ("pause") container of every Pod in the locally built kind node: it holds the Pod's namespaces and
 * does nothing else. As PID 1 of the Pod it must reap zombies (SIGCHLD) and exit promptly on SIGINT/SIGTERM,
 * which is all the upstream pause program does too.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int signal) {
  (void)signal;
  _exit(0);
}

static void reap(int signal) {
  (void)signal;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

static void on(int signal, void (*handler)(int)) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  action.sa_flags = SA_NOCLDSTOP;
  if (sigaction(signal, &action, NULL) < 0) {
    perror("pause: sigaction");
    exit(1);
  }
}

int main(void) {
  if (getpid() != 1) fprintf(stderr, "pause: not PID 1; zombies of other processes are not mine to reap\n");
  on(SIGINT, stop);
  on(SIGTERM, stop);
  on(SIGCHLD, reap);
  for (;;) pause();
}
