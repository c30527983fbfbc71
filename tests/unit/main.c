/* txc-unittest: the unit tests of the IR library, as one TAP stream. */
#include <stdarg.h>
#include <stdlib.h>

#include "tap.h"

int tap_n, tap_failed;

static void report(int cond, const char *file, int line, const char *fmt, va_list ap)
{
	tap_n++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	vprintf(fmt, ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
}

void tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(cond, file, line, fmt, ap);
	va_end(ap);
}

void tap_is_int(long long got, long long want, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(got == want, file, line, fmt, ap);
	va_end(ap);
	if (got != want)
		printf("#   got %lld, want %lld\n", got, want);
}

void tap_is_str(const char *got, const char *want, const char *file, int line, const char *fmt, ...)
{
	int same = got && want ? strcmp(got, want) == 0 : got == want;
	va_list ap;
	va_start(ap, fmt);
	report(same, file, line, fmt, ap);
	va_end(ap);
	if (!same)
		printf("#   got:  %s\n#   want: %s\n", got ? got : "(null)", want ? want : "(null)");
}

static Src *src_of(const char *text)
{
	Src *s = xalloc(sizeof *s);
	s->name = "t.tx";
	s->text = xstrdup(text);
	s->len = strlen(text);
	return s;
}

static Module *parse_to(const char *text, char **diags, bool verify, bool *verified)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	Diag d;
	diag_init(&d, f);
	Module *m = parse_module(src_of(text), &d);
	if (m && verify)
		*verified = verify_module(m, &d);
	fclose(f);
	if (diags)
		*diags = xstrdup(buf ? buf : "");
	free(buf);
	return m;
}

Module *parse_str(const char *text, char **diags)
{
	return parse_to(text, diags, false, NULL);
}

bool verify_str(const char *text, char **diags)
{
	return verified(text, diags) != NULL;
}

Module *verified(const char *text, char **diags)
{
	bool ok = false;
	Module *m = parse_to(text, diags, true, &ok);
	return ok ? m : NULL;
}

bool iters_are(const Layout *l, const int64_t (*want)[3], int n)
{
	if (l->nshard != n)
		return false;
	for (int i = 0; i < n; i++)
		if (l->shard[i].extent != want[i][0] || l->shard[i].stride != want[i][1] || l->shard[i].axis != want[i][2])
			return false;
	return true;
}

char *canon(const char *text)
{
	Module *m = parse_str(text, NULL);
	if (!m)
		return NULL;
	Buf b = {0};
	print_module(&b, m);
	return b.s ? b.s : xstrdup("");
}

int main(void)
{
	test_lex();
	test_print();
	test_eval();
	test_layout();
	test_algebra();
	test_arith();
	test_sema();
	test_util();
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
