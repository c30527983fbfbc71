/* bench/cputime N PROG [ARGS...]: runs PROG N times in a row (its standard
 * output to /dev/null) and prints the least and the median CPU time of one
 * run in milliseconds, user + system, as wait4 reports them: "MIN MEDIAN".
 * The sum is the scheduler's exact run time; the split between user and
 * system is sampled (on a VM, in ticks), so only the sum is printed. A run
 * that fails stops it (exit 1). */
#define _DEFAULT_SOURCE /* wait4 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0;
	if (n < 1) {
		fprintf(stderr, "usage: cputime N PROG [ARGS...]\n");
		return 2;
	}
	double *ms = malloc(sizeof *ms * (size_t)n);
	if (!ms)
		return 1;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0) {
			perror("cputime: fork");
			return 1;
		}
		if (p == 0) {
			int fd = open("/dev/null", O_WRONLY);
			if (fd >= 0)
				dup2(fd, 1);
			execv(argv[2], argv + 2);
			perror(argv[2]);
			_exit(127);
		}
		int st;
		struct rusage r;
		if (wait4(p, &st, 0, &r) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "cputime: %s failed\n", argv[2]);
			return 1;
		}
		ms[i] = (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 +
		        (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
	}
	qsort(ms, (size_t)n, sizeof *ms, by_value);
	printf("%.3f %.3f\n", ms[0], ms[n / 2]);
	free(ms);
	return 0;
}
