/* The command line and main loop every txc program shares. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

static void usage(const Cli *c, FILE *out)
{
	fprintf(out, "usage: %s [options] [FILE]\n\n%s\n\n", c->prog, c->summary);
	fprintf(out, "Reads FILE (or standard input when FILE is absent or '-').\n\noptions:\n");
	fprintf(out, "  %-22s %s\n", "-o FILE", "write the output to FILE (default: standard output)");
	for (const Opt *o = c->opts; o && o->name; o++) {
		char *left = o->arg ? xprintf("%s %s", o->name, o->arg) : xstrdup(o->name);
		fprintf(out, "  %-22s %s\n", left, o->help);
	}
	fprintf(out, "  %-22s %s\n", "--locations", "mark source lines in the printed IR (#@ FILE:LINE), for the next pass");
	fprintf(out, "  %-22s %s\n", "--help", "show this help and exit");
	fprintf(out, "\nexit status: 0 success, 1 bad input, 2 bad usage\n");
}

void cli_usage_error(const Cli *c, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: error: ", c->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry '%s --help'\n", c->prog);
	exit(2);
}

void cli_parse(Cli *c, int argc, char **argv)
{
	progname = c->prog;
	bool inputs_only = false;
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (inputs_only || a[0] != '-' || strcmp(a, "-") == 0) {
			if (c->input)
				cli_usage_error(c, "more than one input file ('%s' and '%s')", c->input, a);
			c->input = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			inputs_only = true;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(c, stdout);
			exit(0);
		}
		if (strcmp(a, "--locations") == 0) {
			c->locations = true;
			continue;
		}
		if (strcmp(a, "-o") == 0 || strncmp(a, "-o", 2) == 0) {
			const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v)
				cli_usage_error(c, "option '-o' needs a file name");
			c->output = v;
			continue;
		}
		const Opt *o = c->opts;
		size_t n = strcspn(a, "=");
		for (; o && o->name; o++)
			if (strlen(o->name) == n && strncmp(o->name, a, n) == 0)
				break;
		if (!o || !o->name)
			cli_usage_error(c, "unknown option '%s'", a);
		if (!o->arg) {
			if (a[n] == '=')
				cli_usage_error(c, "option '%s' takes no value", o->name);
			*o->flag = true;
			continue;
		}
		const char *v = a[n] == '=' ? a + n + 1 : (i + 1 < argc ? argv[++i] : NULL);
		if (!v)
			cli_usage_error(c, "option '%s' needs a value (%s)", o->name, o->arg);
		*o->value = v;
	}
}

Module *load_module(const char *prog, const char *file, int target, bool verify)
{
	Src *src = xalloc(sizeof *src);
	if (!read_file(prog, file, src))
		return NULL;
	Diag d;
	diag_init(&d, stderr);
	Module *m = parse_module(src, &d);
	if (!m)
		return NULL;
	m->target = target;
	return !verify || verify_module(m, &d) ? m : NULL;
}

const char *module_file(const Module *m)
{
	if (strcmp(m->src->name, "<stdin>") == 0)
		for (int i = 0; i < m->nbody; i++)
			if (m->body[i]->pos.place && m->body[i]->pos.place->file)
				return m->body[i]->pos.place->file;
	return m->file ? m->file : m->src->name;
}

Func *find_kernel(const char *prog, const Module *m, const char *name)
{
	Buf names = {0};
	bputs(&names, "");
	for (int i = 0; i < m->nbody; i++) {
		Stmt *s = m->body[i];
		if (s->kind != S_FUNC || !s->func)
			continue;
		if (!name || strcmp(s->func->name, name) == 0)
			return s->func;
		bprintf(&names, "%s%s", names.n ? ", " : "", s->func->name);
	}
	if (!name)
		fprintf(stderr, "%s: error: '%s' has no kernel: write one with @T.prim_func\n", prog, module_file(m));
	else
		fprintf(stderr, "%s: error: '%s' has no kernel named '%s'%s%s%s\n", prog, module_file(m), name,
		        names.n ? " (it has: " : "", names.n ? names.s : "", names.n ? ")" : "");
	return NULL;
}

int run_pass(Cli *c, int target, bool (*pass)(Module *m, Diag *d))
{
	Module *m = load_module(c->prog, c->input, target, true);
	if (!m)
		return 1;
	Diag d;
	diag_init(&d, stderr);
	if (pass) {
		if (!pass(m, &d) || d.errors)
			return 1;
		/* The pass checked: its output verified again, an internal
		 * error if it does not. With --locations the output goes to
		 * the next pass, which verifies it as it reads it; verifying
		 * it here too took a quarter of each pass's time. A pass that
		 * writes statements is verified always: verifying rewrites
		 * them into the canonical text that it prints. */
		if ((c->new_stmts || !c->locations) && !verify_module(m, &d))
			die("%s produced IR that does not verify", c->prog);
	}
	Buf out = {0};
	if (c->locations)
		print_module_locations(&out, m);
	else
		print_module(&out, m);
	return write_file(c->prog, c->output, out.s ? out.s : "", out.n) ? 0 : 1;
}
