/*
 * timeit.c - runs a command and writes what it cost to FILE: "WALL_NS
 * CPU_NS MAXRSS_KIB" (wall time, user and system time of the command and
 * its children, largest resident set), for bench/bench.sh. /usr/bin/time
 * prints CPU time to 10 ms, too coarse for a check of 10,000 lines.
 * The command's standard streams are its own; the exit status is the
 * command's (127 when it cannot be run).
 * Usage: timeit FILE CMD [ARG...]
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long ns(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000000LL + (long long)tv.tv_usec * 1000LL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: timeit FILE CMD [ARG...]\n");
		return 2;
	}
	FILE *out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 127;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid_t pid = fork();
	if (pid < 0) {
		perror("timeit: fork");
		return 127;
	}
	if (pid == 0) {
		fclose(out);
		execvp(argv[2], argv + 2);
		perror("timeit: exec");
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("timeit: wait4");
		return 127;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	long long wall = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
	fprintf(out, "%lld %lld %ld\n", wall, ns(ru.ru_utime) + ns(ru.ru_stime), ru.ru_maxrss);
	if (fclose(out) != 0) {
		perror(argv[1]);
		return 127;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
