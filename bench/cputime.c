/* bench/cputime N PROG [ARGS...] [:: N PROG [ARGS...]]...: runs each PROG
 * N times (its standard output to /dev/null) and prints, one line a
 * command, the least and the median CPU time of one run in milliseconds,
 * user + system, as wait4 reports them: "MIN MEDIAN". The sum is the
 * scheduler's exact run time; the split between user and system is
 * sampled (on a VM, in ticks), so only the sum is printed.
 *
 * Several commands (joined by "::") are run in turns, spread over the
 * same stretch of time: each next run is of the command furthest behind
 * its count (done / N least). A host whose other tenants come and go then
 * slows each command alike, where runs of one command after the other's
 * would let a noisy second fall on one of them alone. A run that fails
 * stops it (exit 1). */
#define _DEFAULT_SOURCE /* wait4 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct Cmd {
	char **argv; /* PROG ARGS..., NULL-terminated */
	int n, done;
	double *ms;
} Cmd;

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One run of c: its CPU time, or a negative number when it failed. */
static double run(const Cmd *c)
{
	pid_t p = fork();
	if (p < 0) {
		perror("cputime: fork");
		return -1;
	}
	if (p == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execv(c->argv[0], c->argv);
		perror(c->argv[0]);
		_exit(127);
	}
	int st;
	struct rusage r;
	if (wait4(p, &st, 0, &r) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "cputime: %s failed\n", c->argv[0]);
		return -1;
	}
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 +
	       (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

int main(int argc, char **argv)
{
	Cmd *cmds = calloc((size_t)argc, sizeof *cmds);
	int ncmds = 0;
	if (!cmds)
		return 1;
	/* N PROG [ARGS...], the groups split at "::" (made the ends of argv's pieces) */
	for (int i = 1; i < argc;) {
		char *end;
		long n = strtol(argv[i], &end, 10);
		if (*argv[i] == '\0' || *end != '\0' || n < 1 || n > 1000000 || i + 1 >= argc || !strcmp(argv[i + 1], "::")) {
			fprintf(stderr, "usage: cputime N PROG [ARGS...] [:: N PROG [ARGS...]]...\n");
			return 2;
		}
		Cmd *c = &cmds[ncmds++];
		c->n = (int)n;
		c->argv = &argv[i + 1];
		c->ms = malloc(sizeof *c->ms * (size_t)n);
		if (!c->ms)
			return 1;
		i += 2;
		while (i < argc && strcmp(argv[i], "::"))
			i++;
		if (i < argc)
			argv[i++] = NULL; /* the end of this command's argv */
	}
	if (ncmds == 0) {
		fprintf(stderr, "usage: cputime N PROG [ARGS...] [:: N PROG [ARGS...]]...\n");
		return 2;
	}
	for (;;) {
		Cmd *next = NULL;
		for (int k = 0; k < ncmds; k++) {
			Cmd *c = &cmds[k];
			/* done / n least: c->done * next->n < next->done * c->n */
			if (c->done < c->n && (!next || (long long)c->done * next->n < (long long)next->done * c->n))
				next = c;
		}
		if (!next)
			break;
		double t = run(next);
		if (t < 0)
			return 1;
		next->ms[next->done++] = t;
	}
	for (int k = 0; k < ncmds; k++) {
		Cmd *c = &cmds[k];
		qsort(c->ms, (size_t)c->n, sizeof *c->ms, by_value);
		printf("%.3f %.3f\n", c->ms[0], c->ms[c->n / 2]);
		free(c->ms);
	}
	free(cmds);
	return 0;
}
