/* txc-emu: runs a txc program (source or lowered) on the CPU and prints a
 * checksum of each parameter afterwards. Parameters start as seeded random
 * data (emu_fill_random) or as the contents of .npy files (--in), and can
 * be written out as .npy files (--out). */
#include <stdlib.h>
#include <string.h>

#include "emu.h"
#include "npy.h"

typedef struct FileArg { const char *name, *file; } FileArg;

typedef struct Args {
	FileArg *in, *out;
	int nin, nout;
	char **scalars;   /* --arg NAME=INTEGER */
	int nscalars;
} Args;

static const char *summary =
	"Runs a txc program on the CPU: every thread of every CTA, with shared memory, registers and\n"
	"barriers. Parameters start as seeded random data (or --in files); after the run, prints one\n"
	"line per parameter: its name and the 64-bit FNV-1a hash of its bytes (in hex).";

/* --in and --out may be repeated, which Cli cannot express: take them out
 * of argv before cli_parse sees it. */
static int take_file_args(Cli *c, int argc, char **argv, char **rest, Args *a)
{
	int n = 0;
	for (int i = 0; i < argc; i++) {
		char *s = argv[i];
		if (i == 0 || strcmp(s, "--") == 0) {
			rest[n++] = s;
			if (i)
				while (++i < argc)
					rest[n++] = argv[i];
			continue;
		}
		bool in = strncmp(s, "--in", 4) == 0 && (s[4] == 0 || s[4] == '=');
		bool out = strncmp(s, "--out", 5) == 0 && (s[5] == 0 || s[5] == '=');
		if (strncmp(s, "--arg", 5) == 0 && (s[5] == 0 || s[5] == '=')) {
			char *v = s[5] ? s + 6 : i + 1 < argc ? argv[++i] : NULL;
			if (!v)
				cli_usage_error(c, "option '--arg' needs a value (NAME=INTEGER)");
			vpush(a->scalars, a->nscalars, v);
			continue;
		}
		if (!in && !out) {
			rest[n++] = s;
			/* the value of an option that takes one is not an option */
			const char *opts[] = { "--kernel", "--seed", "--max-steps", "-o" };
			for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
				if (strcmp(s, opts[k]) == 0 && i + 1 < argc)
					rest[n++] = argv[++i];
			continue;
		}
		const char *opt = in ? "--in" : "--out", *v = strchr(s, '=');
		v = v ? v + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!v)
			cli_usage_error(c, "option '%s' needs a value (NAME=FILE.npy)", opt);
		const char *eq = strchr(v, '=');
		if (!eq || eq == v || !eq[1])
			cli_usage_error(c, "option '%s' takes NAME=FILE.npy, not '%s'", opt, v);
		FileArg f = { xstrndup(v, (size_t)(eq - v)), eq + 1 };
		if (in)
			vpush(a->in, a->nin, f);
		else
			vpush(a->out, a->nout, f);
	}
	rest[n] = NULL;
	return n;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return false;
	*out = strtoull(s, &end, 0);
	return !*end;
}

static Buffer *param_named(Func *f, const char *name)
{
	for (int i = 0; i < f->nparams; i++) {
		Buffer *b = f->params[i];
		if (strcmp(b->name, name) == 0 || (b->param && strcmp(b->param->name, name) == 0))
			return b;
	}
	return NULL;
}

static const char *param_names(Func *f)
{
	Buf b = { 0 };
	bputs(&b, "");
	for (int i = 0; i < f->nparams; i++)
		bprintf(&b, "%s%s", i ? ", " : "", f->params[i]->name);
	return f->nparams ? b.s : "none";
}

static int run(Cli *c, Args *a, const char *kernel, uint64_t seed, bool dump, EmuOptions *opt, const char *tmem_out)
{
	Module *m = load_module(c->prog, c->input, TG_ANY, true);
	if (!m)
		return 1;
	Diag d;
	diag_init(&d, stderr);
	Func *f = find_kernel(c->prog, m, kernel);
	if (!f)
		return 1;
	for (int i = 0; i < a->nin + a->nout; i++) {
		FileArg *fa = i < a->nin ? &a->in[i] : &a->out[i - a->nin];
		if (!param_named(f, fa->name)) {
			fprintf(stderr, "%s: error: kernel '%s' has no parameter '%s' (its parameters: %s)\n", c->prog, f->name,
			        fa->name, param_names(f));
			return 1;
		}
	}
	int64_t *scalars = xalloc(sizeof(int64_t) * (size_t)(f->nscalars + 1));
	const char *why = emu_scalar_args(f, a->scalars, a->nscalars, scalars);
	if (!why)
		why = emu_bind_extents(f, scalars);
	if (why)
		cli_usage_error(c, "%s", why);
	opt->scalars = scalars;
	int np = f->nparams;
	void **params = calloc((size_t)(np ? np : 1), sizeof(void *));
	int rc = params ? 0 : 1;
	for (int i = 0; i < np && !rc; i++) {
		Buffer *b = f->params[i];
		int64_t bytes = emu_param_bytes(b);
		if (bytes < 0 || bytes > ((int64_t)1 << 31)) {
			fprintf(stderr, "%s: error: parameter '%s' has more than 2 GiB; too large to emulate\n", c->prog,
			        b->name);
			rc = 1;
			break;
		}
		if (!(params[i] = malloc(bytes ? (size_t)bytes : 1))) {
			fprintf(stderr, "%s: error: cannot allocate parameter '%s' (%lld bytes)\n", c->prog, b->name,
			        (long long)bytes);
			rc = 1;
			break;
		}
		emu_fill_random(b, params[i], seed);
		for (int k = 0; k < a->nin; k++) {
			if (param_named(f, a->in[k].name) != b)
				continue;
			int64_t *shape = xalloc(sizeof(int64_t) * (size_t)(b->ndim + 1));
			int nd = emu_param_shape(b, shape);
			char *err;
			if (!npy_read(a->in[k].file, b->dtype, shape, nd, params[i], (size_t)bytes, &err)) {
				fprintf(stderr, "%s: error: --in %s: %s\n", c->prog, a->in[k].name, err);
				rc = 1;
			}
		}
	}
	bool taken = false;
	if (tmem_out) {
		opt->tmem_out = xalloc(sizeof(uint32_t) * 128 * 512);
		opt->tmem_taken = &taken;
	}
	if (!rc && !emu_run(m, f, params, &d, opt))
		rc = 1;
	if (!rc && tmem_out) {
		int64_t shape[2] = { 128, 512 };
		char *err;
		if (!taken) {
			fprintf(stderr, "%s: error: --tmem-out: CTA 0 freed no tensor memory (the file holds the columns as "
			        "each tcgen05.dealloc freed them)\n", c->prog);
			rc = 1;
		} else if (!npy_write(tmem_out, DT_UINT32, shape, 2, opt->tmem_out, &err)) {
			fprintf(stderr, "%s: error: --tmem-out: %s\n", c->prog, err);
			rc = 1;
		}
	}
	for (int k = 0; k < a->nout && !rc; k++) {
		Buffer *b = param_named(f, a->out[k].name);
		int i = 0;
		while (f->params[i] != b)
			i++;
		int64_t *shape = xalloc(sizeof(int64_t) * (size_t)(b->ndim + 1));
		int nd = emu_param_shape(b, shape);
		char *err;
		if (!npy_write(a->out[k].file, b->dtype, shape, nd, params[i], &err)) {
			fprintf(stderr, "%s: error: --out %s: %s\n", c->prog, a->out[k].name, err);
			rc = 1;
		}
	}
	if (!rc) {
		Buf out = { 0 };
		bputs(&out, "");
		for (int i = 0; i < np; i++) {
			Buffer *b = f->params[i];
			int64_t bytes = emu_param_bytes(b);
			uint64_t h = emu_fnv1a(params[i], (size_t)bytes);
			if (dump) {
				int64_t *shape = xalloc(sizeof(int64_t) * (size_t)(b->ndim + 1));
				int nd = emu_param_shape(b, shape);
				bprintf(&out, "%s %s (", b->name, dtypes[b->dtype].name);
				for (int k = 0; k < nd; k++)
					bprintf(&out, "%s%lld", k ? ", " : "", (long long)shape[k]);
				bprintf(&out, "%s) %lld %016llx\n", nd == 1 ? "," : "", (long long)buffer_storage(b),
				        (unsigned long long)h);
			} else {
				bprintf(&out, "%s %016llx\n", b->name, (unsigned long long)h);
			}
		}
		if (!write_file(c->prog, c->output, out.s, out.n))
			rc = 1;
	}
	for (int i = 0; params && i < np; i++)
		free(params[i]);
	free(params);
	return rc;
}

int main(int argc, char **argv)
{
	const char *kernel = NULL, *seed_s = NULL, *steps_s = NULL, *unused = NULL, *tmem_out = NULL, *sched_s = NULL;
	bool dump = false, trace = false, unchecked = false, no_race = false;
	Opt opts[] = {
		{ "--kernel", "NAME", "run kernel NAME (default: the first kernel of the file)", &kernel, NULL },
		{ "--seed", "N", "seed of the random parameter data (default 1)", &seed_s, NULL },
		{ "--in", "NAME=FILE", "start parameter NAME from a .npy file instead (repeatable)", &unused, NULL },
		{ "--out", "NAME=FILE", "write parameter NAME to a .npy file after the run (repeatable; bfloat16 and "
		  "float8 as their raw bits, <u2 and |u1)", &unused, NULL },
		{ "--arg", "NAME=INTEGER", "the value of scalar kernel parameter NAME (`n: T.int32` in the signature); "
		  "each one is needed (repeatable)", &unused, NULL },
		{ "--dump", NULL, "print name, dtype, shape, elements and hash of each parameter", NULL, &dump },
		{ "--trace", NULL, "print each statement as it runs, per CTA, to standard error", NULL, &trace },
		{ "--max-steps", "N", "stop after N statement executions, summed over threads (default 10^9)", &steps_s,
		  NULL },
		{ "--unchecked-async", NULL, "do not stop at a read of shared memory an asynchronous copy has not written yet "
		  "(a missing wait), a write of memory one still owns, or a tcgen05.cp / mma read of a store not fenced (a "
		  "missing fence.proxy.async): run on, the destination holding poison (0xAB)",
		  NULL, &unchecked },
		{ "--no-race-check", NULL, "do not check shared memory for races (two threads' conflicting accesses that "
		  "no barrier, mbarrier phase or wait orders; on by default)", NULL, &no_race },
		{ "--schedule", "ORDER", "the order of the threads running each statement: lockstep (thread order, the "
		  "default), reverse, or random[:SEED] (and an if's else-branch may run first): results that depend on "
		  "lockstep then differ", &sched_s, NULL },
		{ "--tmem-out", "FILE", "write the tensor memory of CTA 0 to a .npy file (uint32, 128 lanes x 512 columns): "
		  "each column as the last tcgen05.dealloc that freed it found it (zero where none did)", &tmem_out, NULL },
		{ 0 },
	};
	Cli c = { .prog = "txc-emu", .opts = opts, .summary = summary };
	Args a = { 0 };
	char **rest = xalloc(sizeof(char *) * (size_t)(argc + 1));
	int n = take_file_args(&c, argc, argv, rest, &a);
	cli_parse(&c, n, rest);
	uint64_t seed = 1, steps = 0;
	if (seed_s && !parse_u64(seed_s, &seed))
		cli_usage_error(&c, "--seed takes a non-negative integer, not '%s'", seed_s);
	if (steps_s && (!parse_u64(steps_s, &steps) || steps == 0 || steps > INT64_MAX))
		cli_usage_error(&c, "--max-steps takes a positive integer, not '%s'", steps_s);
	EmuOptions opt = { .trace = trace, .max_steps = (int64_t)steps, .trace_out = stderr, .unchecked_async = unchecked,
		           .no_race_check = no_race };
	if (sched_s && !emu_sched_parse(sched_s, &opt.schedule, &opt.sched_seed))
		cli_usage_error(&c, "--schedule takes lockstep, reverse, random or random:SEED, not '%s'", sched_s);
	return run(&c, &a, kernel, seed, dump, &opt, tmem_out);
}
