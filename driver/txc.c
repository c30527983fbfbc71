/* txc: runs the passes on a program: by default in one process (the pass
 * and backend functions linked in, passes/chain.h: the program parsed
 * once, the Module handed from pass to pass), with --pipe as the pass
 * programs joined by pipes. Both give the same bytes; a run whose passes
 * have anything to say (an error, a warning, --explain) is run as the
 * pipeline, whose messages point at the IR text each pass read. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ir.h"
#include "chain.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MAXSTAGES 16

struct stage {
	const char *pass, *prog;
	const char *args[4];
};

static const struct stage builtin[] = {
	{"parse", "txc-parse", {NULL}},
	{"align", "txc-align", {NULL}},
	{"vectorize", "txc-vectorize", {NULL}},
	{"partition", "txc-partition", {NULL}},
	{"dispatch", "txc-dispatch", {NULL}},
	{"lower", "txc-lower", {NULL}},
	{"cuda", "txc-cuda", {NULL}},
};
_Static_assert(LEN(builtin) <= MAXSTAGES, "MAXSTAGES is too small");

/* A process of the pipeline: a pass program, or the tee copying its output. */
struct proc {
	pid_t pid;
	size_t stage;
	bool copier, killed, done;
	int status;
	double start, wall, cpu; /* --time-passes: seconds */
};

static struct stage stages[MAXSTAGES];
static size_t nstages, nrun;
static char *pipelinebuf, *paths[MAXSTAGES], *dumps[MAXSTAGES];
static Output dumpfiles[MAXSTAGES];
/* Each stage's diagnostics wait in a file: once a stage fails, what the
 * stages after it say about their truncated input is noise. */
static int errfds[MAXSTAGES];
static size_t ndumps;
static struct proc procs[2 * MAXSTAGES];
static size_t nprocs;

static const char *infile, *outpath, *dumpdir;
/* After the passes: nvcc turns the CUDA into PTX or a cubin. Both files are
 * in a directory of our own (workdir); the result is copied to finalpath. */
static const char *arch = "sm_90a", *emit, *finalpath;
/* The backend: "ptx" (txc-ptx, then ptxas for a cubin: the default for
 * --emit=ptx and cubin) or "cuda" (txc-cuda, then nvcc). */
static const char *backend;
static bool useptx(void) { return backend && !strcmp(backend, "ptx"); }
static void shquote(const char *s);
static char *archopt, *targetopt, *workdir, *cutmp, *nvccout;
static bool explain;
static Output outfile, objfile;
static int outfd = 1;
static bool verbose;
static bool timepasses;
/* --pipe: the pipeline of processes; --verify-each (or TXC_VERIFY=1): in
 * one process, verify the IR after every pass, as the programs do. */
static bool pipemode, verifyeach;
/* The in-process chain ran (and its times are in itimes). */
static bool inproc;
static double itimes[MAXSTAGES][2];
static size_t imem[MAXSTAGES]; /* the arena bytes each in-process stage took */
static double nvccwall = -1, nvcccpu, t0; /* --time-passes: nvcc's or ptxas's */
static double now(void);
static double childcpu(void);

static const int caught[] = {SIGHUP, SIGINT, SIGTERM};
static bool iscaught[LEN(caught)];
static sigset_t sigs, oldmask;
static volatile sig_atomic_t interrupted;

static void
errf(const char *fmt, ...)
{
	va_list ap;

	fputs("txc: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define usageerr(...) (errf(__VA_ARGS__), fputs("try 'txc --help'\n", stderr), exit(2))

static char *
strfmt(const char *fmt, ...)
{
	va_list ap;
	int len;
	char *s;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0 || !(s = malloc(len + 1))) {
		errf("out of memory");
		exit(1);
	}
	va_start(ap, fmt);
	vsnprintf(s, len + 1, fmt, ap);
	va_end(ap);
	return s;
}

static void
usage(void)
{
	printf("usage: txc [options] [FILE]\n"
	       "Run the passes on FILE (default: standard input).\n\n"
	       "  -o FILE            write the output to FILE (default: standard output)\n"
	       "  --emit=KIND        ir (after txc-lower), cu (CUDA C, the default), ptx or cubin;\n"
	       "                     -o FILE.ptx or FILE.cubin implies it\n"
	       "  --backend=NAME     for ptx and cubin: ptx (the default: txc-ptx writes the PTX,\n"
	       "                     ptxas the cubin; cuda under TXC_PIPELINE) or cuda (txc-cuda\n"
	       "                     writes CUDA C, nvcc the rest)\n"
	       "  --arch=ARCH        sm_80, sm_90, sm_90a (default) or sm_100a\n"
	       "  --explain          print each tile op's candidate variants and verdicts\n"
	       "  --stop-after=PASS  run the passes up to and including PASS\n"
	       "  --dump-dir=DIR     also write the output of each pass to DIR/NN-PASS.tx\n"
	       "  -v                 print the equivalent shell pipeline to standard error\n"
	       "  --time-passes      print each stage's wall and CPU time (in one process, and the\n"
	       "                     MiB it allocated) to standard error\n"
	       "  --pipe             run the pass programs as processes joined by pipes (the\n"
	       "                     default runs them in this process; the output is the same)\n"
	       "  --verify-each      in one process, verify the IR after every pass (an internal\n"
	       "                     error if it does not verify; TXC_VERIFY=1 does the same)\n"
	       "  --help             print this help\n\n"
	       "passes:\n");
	for (size_t i = 0; i < nstages; ++i)
		printf("  %02zu %-12s %s\n", i + 1, stages[i].pass, stages[i].prog);
	printf("\nenvironment:\n"
	       "  TXC_BIN       directory of the pass programs (default: that of txc)\n"
	       "  TXC_PIPELINE  PASS=PROGRAM,... replaces the passes above, for\n"
	       "                testing and debugging (implies --pipe)\n"
	       "  TXC_VERIFY    1: as --verify-each\n");
}

static void
loadpipeline(void)
{
	const char *env = getenv("TXC_PIPELINE");

	if (!env || !*env) {
		memcpy(stages, builtin, sizeof(builtin));
		nstages = LEN(builtin);
		return;
	}
	pipelinebuf = strfmt("%s", env);
	for (char *item = strtok(pipelinebuf, ","); item; item = strtok(NULL, ",")) {
		char *eq = strchr(item, '=');

		if (nstages == MAXSTAGES)
			usageerr("TXC_PIPELINE has more than %d passes", MAXSTAGES);
		if (!eq || eq == item || !eq[1])
			usageerr("bad TXC_PIPELINE entry '%s': expected PASS=PROGRAM", item);
		*eq = '\0';
		stages[nstages++] = (struct stage){.pass = item, .prog = eq + 1};
	}
	if (nstages == 0)
		usageerr("TXC_PIPELINE has no passes");
}

static size_t
findpass(const char *name)
{
	for (size_t i = 0; i < nstages; ++i) {
		if (strcmp(stages[i].pass, name) == 0)
			return i;
	}
	fprintf(stderr, "txc: error: unknown pass '%s' for --stop-after; the passes are:", name);
	for (size_t i = 0; i < nstages; ++i)
		fprintf(stderr, " %s", stages[i].pass);
	fputs("\ntry 'txc --help'\n", stderr);
	exit(2);
}

/* Matches "NAME=VALUE" or "NAME VALUE" at argv[*i]; returns VALUE or NULL. */
static const char *
optval(char **argv, int *i, const char *name)
{
	size_t len = strlen(name);

	if (strncmp(argv[*i], name, len) != 0)
		return NULL;
	if (argv[*i][len] == '=')
		return argv[*i] + len + 1;
	if (argv[*i][len] != '\0')
		return NULL;
	if (!argv[*i + 1])
		usageerr("option '%s' needs an argument", name);
	return argv[++*i];
}

static void
parseargs(int argc, char *argv[])
{
	const char *stopafter = NULL, *val;

	for (int i = 1; i < argc; ++i) {
		const char *arg = argv[i];

		if (arg[0] != '-' || strcmp(arg, "-") == 0) {
			if (infile)
				usageerr("more than one input file: '%s' and '%s'", infile, arg);
			infile = arg;
		} else if (strcmp(arg, "--help") == 0) {
			usage();
			exit(0);
		} else if (strcmp(arg, "-v") == 0) {
			verbose = true;
		} else if (strcmp(arg, "--time-passes") == 0) {
			timepasses = true;
		} else if (strcmp(arg, "--pipe") == 0) {
			pipemode = true;
		} else if (strcmp(arg, "--verify-each") == 0) {
			verifyeach = true;
		} else if ((val = optval(argv, &i, "-o"))) {
			outpath = strcmp(val, "-") == 0 ? NULL : val;
		} else if ((val = optval(argv, &i, "--stop-after"))) {
			stopafter = val;
		} else if ((val = optval(argv, &i, "--dump-dir"))) {
			dumpdir = val;
		} else if ((val = optval(argv, &i, "--arch"))) {
			arch = val;
		} else if ((val = optval(argv, &i, "--emit"))) {
			emit = val;
		} else if ((val = optval(argv, &i, "--backend"))) {
			backend = val;
		} else if (strcmp(arg, "--explain") == 0) {
			explain = true;
		} else {
			usageerr("unknown option '%s'", arg);
		}
	}
	static const char *const archs[] = {"sm_80", "sm_90", "sm_90a", "sm_100a"};
	size_t a = 0;
	while (a < LEN(archs) && strcmp(archs[a], arch) != 0)
		++a;
	if (a == LEN(archs))
		usageerr("unknown --arch '%s' (expected sm_80, sm_90, sm_90a or sm_100a)", arch);
	const char *dot = outpath ? strrchr(outpath, '.') : NULL;
	if (!emit)
		emit = dot && strcmp(dot, ".ptx") == 0 ? "ptx" : dot && strcmp(dot, ".cubin") == 0 ? "cubin" :
		       dot && strcmp(dot, ".tx") == 0 ? "ir" : "cu";
	if (strcmp(emit, "ir") && strcmp(emit, "cu") && strcmp(emit, "ptx") && strcmp(emit, "cubin"))
		usageerr("unknown --emit '%s' (expected ir, cu, ptx or cubin)", emit);
	if (backend && strcmp(backend, "ptx") && strcmp(backend, "cuda"))
		usageerr("unknown --backend '%s' (expected ptx or cuda)", backend);
	/* TXC_PIPELINE names the programs itself: its last one is taken for
	 * txc-cuda unless --backend=ptx says otherwise */
	if (!backend)
		backend = (!strcmp(emit, "ptx") || !strcmp(emit, "cubin")) && !(getenv("TXC_PIPELINE") && *getenv("TXC_PIPELINE")) ?
		          "ptx" : "cuda";
	if (useptx() && !strcmp(emit, "cu"))
		usageerr("--backend=ptx writes PTX, not CUDA C: use --emit=ptx or --emit=cubin");
	/* the last stage writes PTX: txc-ptx in place of txc-cuda */
	if (useptx() && (!getenv("TXC_PIPELINE") || !*getenv("TXC_PIPELINE")) && !strcmp(stages[nstages - 1].prog, "txc-cuda"))
		stages[nstages - 1] = (struct stage){.pass = "ptx", .prog = "txc-ptx"};
	if (!strcmp(emit, "ir") && !stopafter && !getenv("TXC_PIPELINE"))
		stopafter = "lower";
	nrun = stopafter ? findpass(stopafter) + 1 : nstages;
	if (!getenv("TXC_PIPELINE") || !*getenv("TXC_PIPELINE")) {
		/* the target reaches the parser (which refuses newer intrinsics) and the backend */
		targetopt = strfmt("--target=%s", arch);
		archopt = strfmt("--arch=%s", arch);
		stages[0].args[0] = targetopt;
		stages[nstages - 1].args[0] = archopt;
		/* and the variants' choice (stmatrix needs sm_90) */
		stages[findpass("dispatch")].args[0] = targetopt;
		stages[findpass("lower")].args[0] = targetopt;
		if (explain)
			stages[findpass("dispatch")].args[1] = "--explain";
		/* each pass marks the user's lines in the IR it prints, so the
		 * next one reports errors there */
		for (size_t i = 0; i + 1 < nrun; ++i)
			stages[i].args[!stages[i].args[0] ? 0 : !stages[i].args[1] ? 1 : 2] = "--locations";
	}
	if ((!strcmp(emit, "ptx") || !strcmp(emit, "cubin"))) {
		if (stopafter)
			usageerr("--emit=%s runs every pass; it cannot stop after '%s'", emit, stopafter);
		/* txc-ptx's PTX is the output itself; the rest goes through a tool */
		if (useptx() && !strcmp(emit, "ptx"))
			return;
		if (!outpath)
			usageerr("--emit=%s needs an output file (-o FILE)", emit);
		finalpath = outpath;
	}
}

/* Where the passes write the CUDA that nvcc reads. */
static bool
makeworkdir(void)
{
	const char *tmpdir = getenv("TMPDIR");

	workdir = strfmt("%s/txc-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(workdir)) {
		errf("cannot create a directory '%s': %s", workdir, strerror(errno));
		free(workdir);
		workdir = NULL;
		return false;
	}
	outpath = cutmp = strfmt("%s/kernel.%s", workdir, useptx() ? "ptx" : "cu");
	nvccout = strfmt("%s/kernel.%s", workdir, emit);
	return true;
}

/* Copies nvcc's output to the output file. */
static bool
copyout(void)
{
	char buf[65536];
	ssize_t n;
	int fd = open(nvccout, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		errf("cannot read '%s': %s", nvccout, strerror(errno));
		return false;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			errf("cannot read '%s': %s", nvccout, strerror(errno));
			break;
		}
		if (!output_write(&objfile, buf, n)) {
			errf("%s", objfile.err);
			break;
		}
	}
	close(fd);
	return n == 0;
}

/* nvcc -gencode=arch=compute_90a,code=sm_90a -cubin -o OUT FILE.cu (or -ptx),
 * or with the PTX backend ptxas -arch=sm_90a -o OUT FILE.ptx; then OUT
 * copied to the output file. */
static int
runnvcc(void)
{
	const char *cuda = getenv("CUDA_HOME");
	const char *tool = useptx() ? "ptxas" : "nvcc";
	char *nvcc = strfmt("%s/bin/%s", cuda && *cuda ? cuda : "/usr/local/cuda", tool);
	const char *num = arch + 3;
	char *gencode = useptx() ? strfmt("-arch=%s", arch) :
	                !strcmp(emit, "ptx") ? strfmt("-gencode=arch=compute_%s,code=compute_%s", num, num) :
	                                       strfmt("-gencode=arch=compute_%s,code=%s", num, arch);
	const char *argv[] = {access(nvcc, X_OK) == 0 ? nvcc : tool, gencode, !strcmp(emit, "ptx") ? "-ptx" : "-cubin",
	                      "-o", nvccout, cutmp, NULL};
	if (useptx()) /* ptxas -arch=sm_90a -o OUT FILE.ptx */
		argv[2] = "-o", argv[3] = nvccout, argv[4] = cutmp, argv[5] = NULL;
	int rc = 1, status;

	if (verbose) {
		for (const char **a = argv; *a; ++a) {
			fputs(a > argv ? " " : "", stderr);
			shquote(*a);
		}
		fputc('\n', stderr);
	}
	double start = now(), cpu0 = childcpu();
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		errf("cannot run '%s': %s", argv[0], strerror(errno));
		_exit(1);
	}
	bool waited = pid > 0 && waitpid(pid, &status, 0) == pid;
	if (waited) {
		nvccwall = now() - start;
		nvcccpu = childcpu() - cpu0;
	}
	if (waited && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		rc = copyout() ? 0 : 1;
	else if (pid > 0)
		errf("%s failed on the %s that %s wrote (kept in '%s')", tool, useptx() ? "PTX" : "CUDA",
		     useptx() ? "txc-ptx" : "txc-cuda", cutmp);
	unlink(nvccout);
	if (rc == 0)
		unlink(cutmp);
	free(nvcc);
	free(gencode);
	return rc;
}

static void
stageargv(const char **argv, size_t i)
{
	size_t n = 0;

	argv[n++] = paths[i];
	for (size_t j = 0; j < LEN(stages[i].args) && stages[i].args[j]; ++j)
		argv[n++] = stages[i].args[j];
	if (i == 0 && infile)
		argv[n++] = infile;
	argv[n] = NULL;
}

static void
shquote(const char *s)
{
	const char *safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+:,./=-";

	if (*s && s[strspn(s, safe)] == '\0') {
		fputs(s, stderr);
		return;
	}
	fputc('\'', stderr);
	for (; *s; ++s) {
		if (*s == '\'')
			fputs("'\\''", stderr);
		else
			fputc(*s, stderr);
	}
	fputc('\'', stderr);
}

static void
printpipeline(void)
{
	const char *argv[LEN(stages[0].args) + 3];

	for (size_t i = 0; i < nrun; ++i) {
		stageargv(argv, i);
		for (const char **a = argv; *a; ++a) {
			fputs(a > argv ? " " : i > 0 ? " | " : "", stderr);
			shquote(*a);
		}
		if (dumpdir) {
			fputs(" | tee ", stderr);
			shquote(dumps[i]);
		}
	}
	if (outpath) {
		fputs(" > ", stderr);
		shquote(outpath);
	}
	fputc('\n', stderr);
}

static bool openfiles(void);

/* Where the programs and the dumps are. */
static bool
setpaths(void)
{
	const char *bindir = getenv("TXC_BIN");
	char exe[4096];

	if (!bindir || !*bindir) {
		ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (len < 0) {
			errf("cannot find the pass programs (set TXC_BIN): /proc/self/exe: %s", strerror(errno));
			return false;
		}
		exe[len] = '\0';
		*strrchr(exe, '/') = '\0';
		bindir = exe;
	}
	for (size_t i = 0; i < nrun; ++i) {
		paths[i] = strfmt("%s/%s", bindir, stages[i].prog);
		if (dumpdir)
			dumps[i] = strfmt("%s/%02zu-%s.tx", dumpdir, i + 1, stages[i].pass);
	}
	return true;
}

/* Checks the programs and opens the dump and output files. */
static bool
prepare(void)
{
	for (size_t i = 0; i < nrun; ++i) {
		if (access(paths[i], X_OK) < 0) {
			errf("cannot run '%s': %s", paths[i], strerror(errno));
			return false;
		}
	}
	for (size_t i = 0; i < nrun; ++i) {
		char name[] = "/tmp/txc-stderr.XXXXXX";
		errfds[i] = mkstemp(name);
		if (errfds[i] < 0) {
			errf("cannot create a temporary file: %s", strerror(errno));
			return false;
		}
		unlink(name);
		fcntl(errfds[i], F_SETFD, FD_CLOEXEC);
	}
	return openfiles();
}

/* The output files, opened for the pipeline or for the in-process chain's
 * text: nvcc's or ptxas's, each dump, the output. */
static bool
openfiles(void)
{
	if (finalpath && !output_open(&objfile, finalpath)) {
		errf("%s", objfile.err);
		return false;
	}
	if (finalpath && !makeworkdir())
		return false;
	if (verbose)
		printpipeline();
	if (dumpdir && mkdir(dumpdir, 0777) < 0 && errno != EEXIST) {
		errf("cannot create '%s': %s", dumpdir, strerror(errno));
		return false;
	}
	for (; dumpdir && ndumps < nrun; ++ndumps) {
		if (!output_open(&dumpfiles[ndumps], dumps[ndumps])) {
			errf("%s", dumpfiles[ndumps].err);
			output_close(&dumpfiles[ndumps], false);
			return false;
		}
	}
	if (outpath && !output_open(&outfile, outpath)) {
		errf("%s", outfile.err);
		return false;
	}
	if (outpath)
		outfd = outfile.fd;
	return true;
}

/* Downstream first: a tee that exited 0 had then read to the end before
 * its pass was stopped, so the pass closed its output on its own. */
static void
killall(void)
{
	for (size_t i = nprocs; i-- > 0;) {
		if (!procs[i].done) {
			kill(procs[i].pid, SIGTERM);
			procs[i].killed = true;
		}
	}
}

static void
onsignal(int sig)
{
	interrupted = sig;
	killall();
}

static bool
writeall(int fd, const char *buf, size_t len)
{
	ssize_t n;

	for (; len > 0; buf += n, len -= n) {
		n = write(fd, buf, len);
		if (n < 0 && errno != EINTR)
			return false;
		if (n < 0)
			n = 0;
	}
	return true;
}

/* The tee after stage i: copies its output to its dump and to out. */
static _Noreturn void
copy(size_t i, int in, int out, const char *outname)
{
	static char buf[65536];
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			errf("cannot read the output of pass '%s': %s", stages[i].pass, strerror(errno));
			_exit(1);
		}
		if (!writeall(dumpfiles[i].fd, buf, n)) {
			errf("cannot write '%s': %s", dumps[i], strerror(errno));
			_exit(1);
		}
		/* A reader that stops early is not our failure; keep filling the dump. */
		if (out >= 0 && !writeall(out, buf, n)) {
			if (errno != EPIPE) {
				errf("cannot write '%s': %s", outname, strerror(errno));
				_exit(1);
			}
			close(out);
			out = -1;
		}
	}
	_exit(0);
}

static _Noreturn void
execstage(size_t i, int in, int out)
{
	const char *argv[LEN(stages[0].args) + 3];

	if (in != 0) {
		dup2(in, 0);
		close(in);
	}
	if (out != 1) {
		dup2(out, 1);
		close(out);
	}
	if (errfds[i] > 2)
		dup2(errfds[i], 2);
	stageargv(argv, i);
	execv(paths[i], (char *const *)argv);
	errf("cannot run '%s': %s", paths[i], strerror(errno));
	_exit(1);
}

/* --time-passes: a monotonic clock, and the CPU seconds (user and system)
 * of the children reaped so far (RUSAGE_CHILDREN: the difference around
 * one wait is that child's). */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double
childcpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* Each stage's wall time (start to exit: the stages run at once, so they
 * overlap) and CPU time, in milliseconds, and the driver's whole time. */
static void
printtimes(void)
{
	double cpu = 0;

	if (inproc)
		fprintf(stderr, "txc: time per stage in ms (the passes in this process, one after another), "
		        "and the memory each took in MiB\n  %-12s %9s %9s %9s\n", "stage", "wall", "cpu", "MiB");
	else
		fprintf(stderr, "txc: time per stage in ms (the passes run at once, joined by pipes: wall is each one's "
		        "start to exit)\n  %-12s %9s %9s\n", "stage", "wall", "cpu");
	for (size_t i = 0; inproc && i < nrun; ++i) {
		fprintf(stderr, "  %-12s %9.2f %9.2f %9.2f\n", stages[i].pass, itimes[i][0] * 1e3, itimes[i][1] * 1e3,
		        (double)imem[i] / (1 << 20));
		cpu += itimes[i][1];
	}
	for (size_t i = 0; i < nprocs; ++i) {
		const struct proc *p = &procs[i];
		if (p->copier)
			continue;
		fprintf(stderr, "  %-12s %9.2f %9.2f\n", stages[p->stage].pass, p->wall * 1e3, p->cpu * 1e3);
		cpu += p->cpu;
	}
	if (nvccwall >= 0) {
		fprintf(stderr, "  %-12s %9.2f %9.2f\n", useptx() ? "ptxas" : "nvcc", nvccwall * 1e3, nvcccpu * 1e3);
		cpu += nvcccpu;
	}
	fprintf(stderr, "  %-12s %9.2f %9.2f\n", "total", (now() - t0) * 1e3, cpu * 1e3);
}

/* Starts the processes in pipeline order. At each fork the driver holds at
 * most three pipe ends: the child's input, its output, and the read end of
 * its output, which the child closes. */
static bool
spawn(void)
{
	size_t total = dumpdir ? 2 * nrun : nrun;
	int in = 0;

	for (size_t k = 0; k < total; ++k) {
		struct proc *p = &procs[nprocs];
		bool last = k + 1 == total;
		int fd[2] = {-1, outfd};

		p->stage = dumpdir ? k / 2 : k;
		p->copier = dumpdir && k % 2;
		if (!last && pipe(fd) < 0) {
			errf("pipe: %s", strerror(errno));
			break;
		}
		p->start = now();
		p->pid = fork();
		if (p->pid < 0) {
			errf("fork: %s", strerror(errno));
			if (!last) {
				close(fd[0]);
				close(fd[1]);
			}
			break;
		}
		if (p->pid == 0) {
			for (size_t i = 0; i < LEN(caught); ++i) {
				if (iscaught[i])
					signal(caught[i], SIG_DFL);
			}
			signal(SIGPIPE, p->copier ? SIG_IGN : SIG_DFL);
			sigprocmask(SIG_SETMASK, &oldmask, NULL);
			if (!last)
				close(fd[0]);
			if (p->copier)
				copy(p->stage, in, fd[1], !last ? "pipe" : outpath ? outpath : "standard output");
			execstage(p->stage, in, fd[1]);
		}
		++nprocs;
		if (in != 0)
			close(in);
		if (!last)
			close(fd[1]);
		in = fd[0];
	}
	if (nprocs == total)
		return true;
	if (in > 0)
		close(in);
	return false;
}

static bool
exitedok(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Processes that died of our SIGTERM or of a reader gone (SIGPIPE) did not
 * fail on their own. */
static bool
failed(const struct proc *p)
{
	int st = p->status;

	if (WIFSIGNALED(st))
		return WTERMSIG(st) != SIGPIPE && !(p->killed && WTERMSIG(st) == SIGTERM);
	return !exitedok(st);
}

/* Waits for every process; the first failure stops the others. */
static void
reap(void)
{
	bool stopping = false;
	int status;
	pid_t pid;

	for (size_t left = nprocs; left > 0;) {
		double cpu0 = childcpu();
		pid = wait(&status);
		double end = now(), cpu = childcpu() - cpu0;
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			errf("wait: %s", strerror(errno));
			return;
		}
		for (size_t i = 0; i < nprocs; ++i) {
			if (procs[i].pid != pid)
				continue;
			procs[i].done = true;
			procs[i].status = status;
			procs[i].wall = end - procs[i].start;
			procs[i].cpu = cpu;
			--left;
			if (!stopping && failed(&procs[i])) {
				stopping = true;
				killall();
			}
		}
	}
}

/* The failure most upstream is the cause of the others. */
/* Passes on what the stages said, up to and including the first that failed. */
static void
flusherrors(size_t upto)
{
	char buf[65536];
	ssize_t n;

	for (size_t i = 0; i < nrun && i <= upto; ++i) {
		if (errfds[i] <= 2)
			continue;
		lseek(errfds[i], 0, SEEK_SET);
		while ((n = read(errfds[i], buf, sizeof(buf))) > 0)
			if (!writeall(2, buf, (size_t)n))
				break;
		close(errfds[i]);
		errfds[i] = -1;
	}
}

static int
verdict(void)
{
	for (size_t i = 0; i < nprocs; ++i) {
		struct proc *p = &procs[i];
		int st = p->status;

		if (!failed(p))
			continue;
		flusherrors(p->stage);
		if (WIFEXITED(st))
			return WEXITSTATUS(st);
		errf("%s '%s' (%s) killed by signal %d", p->copier ? "tee after stage" : "stage",
		     stages[p->stage].pass, stages[p->stage].prog, WTERMSIG(st));
		return 1;
	}
	flusherrors(nrun);
	return 0;
}

static void
catchsignals(void)
{
	struct sigaction sa = {.sa_handler = onsignal}, old;

	sigemptyset(&sigs);
	for (size_t i = 0; i < LEN(caught); ++i)
		sigaddset(&sigs, caught[i]);
	sa.sa_mask = sigs;
	for (size_t i = 0; i < LEN(caught); ++i) {
		sigaction(caught[i], NULL, &old);
		iscaught[i] = old.sa_handler != SIG_IGN;
		if (iscaught[i])
			sigaction(caught[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
}

static int
run(void)
{
	bool ok;

	/* Signals wait until every pid is recorded, so the handler can stop them all. */
	sigprocmask(SIG_BLOCK, &sigs, &oldmask);
	ok = !interrupted && spawn();
	if (!ok)
		killall();
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	reap();
	if (ok && !interrupted)
		return verdict();
	flusherrors(nrun);
	return 1;
}

/* Closes an output file, keeping it or not; a failure to keep it fails the run. */
static int
closeout(Output *o, bool keep, int rc)
{
	if (!output_close(o, keep) && keep) {
		errf("%s", o->err);
		return 1;
	}
	return rc;
}

/* Keeps the output if all went well, and the complete dumps: those whose
 * tee read to the end and whose pass and earlier passes did not fail. An
 * unfinished dump is removed, so that no dump of an earlier run is left
 * among those of this one. */
static int
finish(int rc)
{
	size_t nkeep = 0;

	if (inproc)
		nkeep = ndumps;
	while (!inproc && dumpdir && 2 * nkeep + 1 < nprocs && !failed(&procs[2 * nkeep]) &&
	       exitedok(procs[2 * nkeep + 1].status))
		++nkeep;
	for (size_t i = 0; i < ndumps; ++i) {
		rc = closeout(&dumpfiles[i], i < nkeep, rc);
		if (i >= nkeep)
			unlink(dumps[i]);
	}
	if (outfile.name)
		rc = closeout(&outfile, rc == 0, rc);
	for (size_t i = 0; i < nrun; ++i) {
		free(paths[i]);
		free(dumps[i]);
	}
	free(pipelinebuf);
	return rc;
}

/* ---- the chain in one process -------------------------------------------- */

/* The input's text. Standard input is kept in an unlinked file put back as
 * fd 0, so that the pipeline can read it again when the chain falls back
 * to it. False: nothing read (the pipeline says why). */
static bool
readinput(Src *src)
{
	bool std = !infile || strcmp(infile, "-") == 0;
	int fd = std ? 0 : open(infile, O_RDONLY | O_CLOEXEC);
	Buf b = {0};
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return false;
	/* read into the buffer itself, sized once for a file (a long
	 * kernel's text was copied three times as the buffer doubled) */
	if (!std && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < MAX_INPUT)
		broom(&b, (size_t)st.st_size + 1);
	for (;;) {
		if (b.cap - b.n < 2) /* no room, or only the NUL's */
			broom(&b, 65536);
		if ((n = read(fd, b.s + b.n, b.cap - b.n - 1)) == 0 || b.n > MAX_INPUT)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		b.n += (size_t)n;
	}
	if (!std)
		close(fd);
	if (std) {
		char name[] = "/tmp/txc-stdin.XXXXXX";
		int keep = mkstemp(name);
		if (keep < 0)
			return errf("cannot create a temporary file: %s", strerror(errno)), exit(1), false;
		unlink(name);
		if ((b.n && !writeall(keep, b.s, b.n)) || lseek(keep, 0, SEEK_SET) < 0 || dup2(keep, 0) < 0)
			return errf("cannot keep the standard input: %s", strerror(errno)), exit(1), false;
		close(keep);
	}
	if (n != 0 || b.n > MAX_INPUT)
		return false;
	src_set(src, &b, std ? "<stdin>" : infile);
	return true;
}

static double
selfcpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static bool
haskernel(const Module *m)
{
	for (int i = 0; i < m->nbody; i++)
		if (m->body[i]->kind == S_FUNC && m->body[i]->func)
			return true;
	return false;
}

/* The source a backend's text names when it reads the pipeline's IR:
 * the file of the last location comment before a module-level statement,
 * as the pass before it prints them. */
static const char *
srcname(const Module *m)
{
	const char *name = "<stdin>";

	for (int i = 0; i < m->nbody; i++) {
		const Stmt *s = m->body[i];
		if (s->pos.line > 0 && s->pos.place)
			name = pos_name(s->pos);
	}
	return name;
}

/* Runs the stages in this process: parse once, then each pass's function
 * on the Module, then the backend's. What each stage would print (the
 * next one's input, a dump) is printed only where it is wanted: the
 * dumps, and the last stage's output.
 *
 * Verification: the parse verifies the program (what txc-parse does).
 * The passes before lower change only the plans= and dispatch= keywords of
 * tile ops. The next pass reads the plans back as the last one wrote them
 * (plans_in_memory: kept by the call, written out as expressions only
 * where the IR is printed or verified, and after txc-lower for an op it
 * leaves), and dispatch= as set_kw wrote it; verifying would rewrite
 * nothing in them. So their output is not verified again. txc-lower's
 * output is: verifying puts the statements it made in canonical form,
 * binds their names and annotates them, which the backend and the
 * printer read; with
 * prove_accesses set and the backend's target when a backend follows, as
 * the backend's own reading would (it proves every access in bounds and
 * aligned), but without desugaring again (sema.c, desugar_stmt). Under
 * --verify-each (TXC_VERIFY=1, the tests) every pass's output is
 * verified, a failure an internal error, as in the programs.
 *
 * Returns the exit status, or -1 when the pipeline must run instead: the
 * input could not be read, or a stage failed or had something to say
 * (its messages are the pipeline's, whose positions are in the IR text
 * each program read). Writes nothing before it knows. */
static int
inprocess(void)
{
	static Buf text[MAXSTAGES];
	int tg = target_lookup(arch);
	variant_target = tg;
	bool backend_runs = false;
	char *said = NULL;
	size_t nsaid = 0;
	FILE *msgs = open_memstream(&said, &nsaid);
	Src *src = xalloc(sizeof *src);
	Module *m = NULL;
	bool ok = msgs && readinput(src);

	for (size_t i = 0; ok && i < nrun; ++i)
		backend_runs |= !strcmp(stages[i].pass, "cuda") || !strcmp(stages[i].pass, "ptx");
	plans_in_memory = true; /* written out below wherever the IR is read */
	for (size_t i = 0; ok && i < nrun && !interrupted; ++i) {
		const char *pass = stages[i].pass;
		bool last = i + 1 == nrun, emits = false;
		double w0 = now(), c0 = selfcpu();
		size_t m0 = arena_used();
		Diag d;

		diag_init(&d, msgs);
		progname = stages[i].prog;
		if (!strcmp(pass, "parse")) {
			m = parse_module(src, &d);
			if (m) {
				m->target = tg;
				ok = verify_module(m, &d);
				/* the passes read the IR for any target (TG_ANY),
				 * the backend for its own */
				m->target = TG_ANY;
			}
			ok = ok && m;
		} else if (!strcmp(pass, "align")) {
			ok = txc_align(m, &d);
		} else if (!strcmp(pass, "vectorize")) {
			ok = txc_vectorize(m, &d);
		} else if (!strcmp(pass, "partition")) {
			ok = txc_partition(m, &d);
		} else if (!strcmp(pass, "dispatch")) {
			ok = txc_dispatch(m, &d, false);
		} else if (!strcmp(pass, "lower")) {
			ok = txc_lower(m, &d) && !d.errors;
			plans_flush(); /* the ops it left keep theirs */
			if (ok && verifyeach) {
				/* as txc-lower run alone checks its output */
				if (!verify_module(m, &d))
					die("txc-lower produced IR that does not verify");
			}
			prove_accesses = backend_runs;
			desugared = true; /* the parse's verify_module did it */
			m->target = backend_runs ? tg : TG_ANY;
			ok = ok && verify_module(m, &d);
			prove_accesses = desugared = false;
		} else {
			/* the backend: it rejects a module without a kernel, as the
			 * program does, but naming the file (the program, at the end
			 * of the pipeline, reads IR without a location to name it by;
			 * with dumps to write, the pipeline writes them and says it) */
			if (!haskernel(m) && !dumpdir) {
				find_kernel(stages[i].prog, m, NULL);
				fclose(msgs);
				free(said);
				return 1;
			}
			emits = true;
			prove_accesses = true;
			if (verifyeach && !verify_module(m, &d))
				die("%s was given IR that does not verify", stages[i].prog);
			ok = haskernel(m) && !d.errors &&
			     (!strcmp(pass, "cuda") ? txc_cuda_emit : txc_ptx_emit)(m, tg, arch, srcname(m), &d, &text[i]);
			prove_accesses = false;
		}
		ok = ok && !d.errors;
		if (ok && !emits && (verifyeach || last || dumpdir))
			plans_flush();
		if (ok && verifyeach && !emits && strcmp(pass, "lower") && strcmp(pass, "parse") && !verify_module(m, &d))
			die("%s produced IR that does not verify", stages[i].prog);
		fflush(msgs);
		ok = ok && nsaid == 0;
		/* what the program would print: with locations for the next pass */
		if (ok && !emits && (last || dumpdir)) {
			if (last)
				print_module(&text[i], m);
			else
				print_module_locations(&text[i], m);
		}
		itimes[i][0] = now() - w0;
		itimes[i][1] = selfcpu() - c0;
		imem[i] = arena_used() - m0;
	}
	progname = "txc";
	if (msgs)
		fclose(msgs);
	free(said);
	if (!ok || interrupted)
		return interrupted ? 1 : -1;
	inproc = true;
	if (!openfiles())
		return 1;
	int rc = 0;
	for (size_t i = 0; i < ndumps && rc == 0; ++i)
		if (!buf_write(&dumpfiles[i], &text[i])) {
			errf("%s", dumpfiles[i].err);
			rc = 1;
		}
	/* the text in its pieces (txc-ptx keeps a kernel's) */
	for (const Buf *out = &text[nrun - 1]; out && rc == 0; out = out->next)
		if (out->n && !writeall(outfd, out->s, out->n)) {
			errf("cannot write '%s': %s", outpath ? outpath : "standard output", strerror(errno));
			rc = 1;
		}
	return interrupted ? 1 : rc;
}

int
main(int argc, char *argv[])
{
	int rc;

	t0 = now();
	loadpipeline();
	parseargs(argc, argv);
	catchsignals();
	verifyeach |= getenv("TXC_VERIFY") && !strcmp(getenv("TXC_VERIFY"), "1");
	rc = -1;
	if (!setpaths())
		rc = 1;
	else if (!pipemode && !explain && !(getenv("TXC_PIPELINE") && *getenv("TXC_PIPELINE")))
		rc = inprocess();
	rc = rc >= 0 ? finish(rc) : finish(prepare() ? run() : 1);
	if (rc == 0 && finalpath && !interrupted)
		rc = runnvcc();
	if (objfile.name)
		rc = closeout(&objfile, rc == 0 && !interrupted, rc);
	if (timepasses && !interrupted)
		printtimes();
	if (workdir)
		rmdir(workdir);
	free(archopt);
	free(targetopt);
	free(workdir);
	free(cutmp);
	free(nvccout);
	if (interrupted) {
		signal(interrupted, SIG_DFL);
		raise(interrupted);
	}
	return rc;
}
