/* The PTX dialect (ir/ptx.def): a call of T.ptx.<chain>(...) or
 * T.ptx["instruction"](...) is matched against the table and rewritten in
 * place into the txc builtin it means (callee, operands, keywords), before
 * sema checks it as it checks any call. The rewritten call prints in txc's
 * spelling, so a second run of sema finds a builtin and leaves it alone. */
#include <stdlib.h>
#include <string.h>

#include "sema.h"

#define IN_NONE (-1)

typedef struct Row {
	const char *pattern, *operands;
	int builtin;
	const char *map, *doc;
	bool alias;
} Row;

static const Row rows[] = {
#define PTX(pattern, operands, builtin, map, doc) { pattern, operands, builtin, map, doc, false },
#define ALIAS(path, operands, builtin, map, doc) { path, operands, builtin, map, doc, true },
#include "ptx.def"
#undef PTX
#undef ALIAS
};
enum { NROWS = sizeof rows / sizeof rows[0] };

/* ---- patterns ------------------------------------------------------------------ */

#define MAX_PARTS 16
#define MAX_TOKS 32
#define MAX_ALTS 12
_Static_assert(TC_NSHAPES <= MAX_ALTS, "the tcgen05 shapes are one part's alternatives");

/* One part of a pattern: alternatives, or pre{name=values}suf. */
typedef struct Part {
	bool opt;
	const char *alt[MAX_ALTS];
	int nalt;
	const char *pre, *suf, *name; /* name != NULL: a value */
} Part;

typedef struct Pattern {
	Part part[MAX_PARTS];
	int n;
} Pattern;

static int split(const char *s, char sep, const char **out, int max)
{
	int n = 0;
	while (n < max) {
		size_t k = strcspn(s, (char[]){ sep, 0 });
		out[n++] = xstrndup(s, k);
		if (!s[k])
			break;
		s += k + 1;
	}
	return n;
}

static const Pattern *pattern(int r)
{
	static Pattern *cache[NROWS];
	if (cache[r])
		return cache[r];
	Pattern *p = xalloc(sizeof *p);
	const char *words[MAX_PARTS];
	int n = split(rows[r].pattern, '.', words, MAX_PARTS);
	for (int i = 0; i < n; i++) {
		Part *q = &p->part[i];
		const char *w = words[i];
		size_t len = strlen(w);
		if (w[0] == '[' && w[len - 1] == ']') {
			q->opt = true;
			w = xstrndup(w + 1, len - 2);
		}
		const char *lb = strchr(w, '{');
		if (lb) {
			const char *eq = strchr(lb, '='), *rb = strchr(lb, '}');
			if (!eq || !rb || eq > rb)
				die("ptx.def: bad value in \"%s\"", rows[r].pattern);
			q->pre = xstrndup(w, (size_t)(lb - w));
			q->name = xstrndup(lb + 1, (size_t)(eq - lb - 1));
			q->suf = rb + 1;
			q->nalt = split(xstrndup(eq + 1, (size_t)(rb - eq - 1)), '|', q->alt, MAX_ALTS);
			if (q->nalt == 1 && !strcmp(q->alt[0], "@tcgen05")) {
				q->nalt = TC_NSHAPES;
				for (int k = 0; k < TC_NSHAPES; k++)
					q->alt[k] = tcgen05_shapes[k].name;
			}
		} else {
			q->nalt = split(w, '|', q->alt, MAX_ALTS);
		}
	}
	p->n = n;
	return cache[r] = p;
}

/* Whether token t is part q; the value it carries goes to *val. */
static bool part_match(const Part *q, const char *t, const char **val)
{
	size_t n = strlen(t);
	for (int i = 0; i < q->nalt; i++) {
		if (!q->name) {
			if (!strcmp(q->alt[i], t))
				return *val = t, true;
			continue;
		}
		size_t a = strlen(q->pre), b = strlen(q->alt[i]), c = strlen(q->suf);
		if (n == a + b + c && !strncmp(t, q->pre, a) && !strncmp(t + a, q->alt[i], b) && !strcmp(t + a + b, q->suf))
			return *val = q->alt[i], true;
	}
	return false;
}

/* The part as the table shows it: cta_group::(1|2), shared|shared::cta. */
static void part_str(Buf *b, const Part *q)
{
	if (q->name)
		bputs(b, q->pre);
	if (q->name && q->nalt > 1)
		bputc(b, '(');
	for (int i = 0; i < q->nalt; i++)
		bprintf(b, "%s%s", i ? "|" : "", q->alt[i]);
	if (q->name && q->nalt > 1)
		bputc(b, ')');
	if (q->name)
		bputs(b, q->suf);
}

static const char *pattern_str(int r)
{
	const Pattern *p = pattern(r);
	Buf b = {0};
	for (int i = 0; i < p->n; i++) {
		bputs(&b, p->part[i].opt ? "[." : i ? "." : "");
		part_str(&b, &p->part[i]);
		if (p->part[i].opt)
			bputc(&b, ']');
	}
	return b.s;
}

/* Exact match of all tokens; val[i] is the token's value for part i (NULL:
 * an optional part left out). */
static bool match(const Pattern *p, int pi, const char **tok, int nt, int ti, const char **val)
{
	if (pi == p->n)
		return ti == nt;
	if (ti < nt && part_match(&p->part[pi], tok[ti], &val[pi]) && match(p, pi + 1, tok, nt, ti + 1, val))
		return true;
	val[pi] = NULL;
	return p->part[pi].opt && match(p, pi + 1, tok, nt, ti, val);
}

/* How far the tokens can be matched: the furthest token index, and the
 * parts that could come next there (a bit per part; bit n: the end). */
static void reach(const Pattern *p, int pi, const char **tok, int nt, int ti, int *best, uint32_t *next)
{
	if (ti > *best) {
		*best = ti;
		*next = 0;
	}
	if (ti == *best)
		*next |= 1u << pi;
	if (pi == p->n || ti > nt)
		return;
	const char *v;
	if (ti < nt && part_match(&p->part[pi], tok[ti], &v))
		reach(p, pi + 1, tok, nt, ti + 1, best, next);
	if (p->part[pi].opt)
		reach(p, pi + 1, tok, nt, ti, best, next);
}

/* ---- the instruction ---------------------------------------------------------- */

/* "mbarrier.init.shared.b64" from the attribute chain below T.ptx: `__` is
 * `::`, a trailing `_` goes. */
static const char *chain_instruction(const char *path)
{
	Buf b = {0};
	bputs(&b, "");
	const char *words[MAX_TOKS + 1];
	int n = split(path, '.', words, MAX_TOKS + 1);
	for (int i = 0; i < n; i++) {
		const char *w = words[i];
		size_t len = strlen(w);
		if (len > 1 && w[len - 1] == '_' && w[len - 2] != '_')
			len--;
		if (i)
			bputc(&b, '.');
		for (size_t k = 0; k < len; k++) {
			if (w[k] == '_' && k + 1 < len && w[k + 1] == '_') {
				bputs(&b, "::");
				k++;
			} else {
				bputc(&b, w[k]);
			}
		}
	}
	return b.s;
}

static int edit_distance(const char *a, const char *b)
{
	size_t n = strlen(b);
	if (strlen(a) > 200 || n > 200)
		return 1 << 20;
	int d[201];
	for (size_t j = 0; j <= n; j++)
		d[j] = (int)j;
	for (size_t i = 1; a[i - 1]; i++) {
		int diag = d[0];
		d[0] = (int)i;
		for (size_t j = 1; j <= n; j++) {
			int up = d[j];
			int best = diag + (a[i - 1] != b[j - 1]);
			if (d[j] + 1 < best)
				best = d[j] + 1;
			if (d[j - 1] + 1 < best)
				best = d[j - 1] + 1;
			d[j] = best;
			diag = up;
		}
	}
	return d[n];
}

/* The row's instruction with each part's first form and no optional part. */
static const char *row_example(int r)
{
	const Pattern *p = pattern(r);
	Buf b = {0};
	for (int i = 0; i < p->n; i++) {
		const Part *q = &p->part[i];
		if (q->opt && q->name)
			continue;
		bprintf(&b, "%s%s%s%s", b.n ? "." : "", q->name ? q->pre : "", q->alt[0], q->name ? q->suf : "");
	}
	return b.s;
}

/* The operand count a row takes: min, max (-1: no limit). */
static void operand_count(int r, int *min, int *max)
{
	const char *ops[MAX_OPERANDS];
	bool rep = false;
	*min = *max = 0;
	int n = *rows[r].operands ? split(rows[r].operands, ',', ops, MAX_OPERANDS) : 0;
	for (int i = 0; i < n; i++) {
		const char *o = ops[i];
		size_t len = strlen(o);
		(*max)++;
		if (len && o[len - 1] == '?')
			continue;
		(*min)++;
		rep |= len > 3 && !strcmp(o + len - 3, "...");
	}
	if (rep)
		*max = -1;
}

/* ---- rewriting ----------------------------------------------------------------- */

/* An operand of kind 'i' written T.uint32(512): the constant itself. */
static Expr *unwrap_int(Sema *S, Expr *x)
{
	if (x->kind != E_CALL || x->nargs != 1 || x->nkws)
		return x;
	/* quietly: what is wrong with it is reported when it is checked */
	Diag *d = S->d, quiet = { .max_errors = -1 };
	S->d = &quiet;
	Value *f = eval(S, x->a);
	if (f && !IS_ERR(f) && f->kind == V_DTYPE && dtypes[f->dtype].kind != DK_FLOAT &&
	    dtypes[f->dtype].kind != DK_HANDLE) {
		Value *v = eval(S, x->args[0]);
		if (v && !IS_ERR(v) && v->kind == V_INT)
			x = x->args[0];
	}
	S->d = d;
	return x;
}

static Expr *callee(const char *dotted, Pos pos)
{
	Expr *f = NULL;
	const char *words[8];
	int n = split(dotted, '.', words, 8);
	for (int i = 0; i < n; i++) {
		if (!f) {
			f = new_name(pos, words[i]);
		} else {
			Expr *a = new_expr(E_ATTR, pos);
			a->a = f;
			a->str = words[i];
			f = a;
		}
		f->depth = i + 1;
	}
	return f;
}

static Expr *lit_str(Pos pos, const char *s)
{
	Expr *e = new_expr(E_STR, pos);
	e->str = s;
	e->depth = 1;
	return e;
}

/* Where an error about the instruction goes: its string in
 * T.ptx["..."](...), else the call. */
static Pos at(const Expr *call)
{
	return call->a->kind == E_INDEX && call->a->nargs == 1 ? call->a->args[0]->pos : call->pos;
}

/* The operand index $N names (negative: from the end). */
static int opnd(const char *s, int n) { int k = atoi(s); return k < 0 ? n + k : k; }

/* Rewrites call (instruction `what`, row r, values val) into its builtin. */
static bool rewrite(Sema *S, Expr *call, int r, const char *what, const char **val)
{
	const Row *row = &rows[r];
	const Intrin *in = &intrins[row->builtin];
	const char *user = xprintf(row->alias ? "%s" : "the PTX instruction \"%s\"", what);
	int min, max;
	operand_count(r, &min, &max);
	if (call->nargs > MAX_OPERANDS) {
		error_at(S->d, call->args[MAX_OPERANDS]->pos, "too many arguments (at most %d)", MAX_OPERANDS);
		return false;
	}
	if (max == 0 && call->nargs) {
		error_at(S->d, call->pos, "%s takes no operands, not %d", user, call->nargs);
		return false;
	}
	if (call->nargs < min || (max >= 0 && call->nargs > max)) {
		error_at(S->d, call->pos, "%s takes %s%d operand%s (%s), not %d%s%s", user,
		         max < 0 ? "at least " : max > min ? xprintf("%d to ", min) : "", max > min ? max : min,
		         (max > min ? max : min) == 1 ? "" : "s", row->operands, call->nargs,
		         *row->doc && !row->alias ? "; " : "", row->alias ? "" : row->doc);
		return false;
	}
	if (call->nkws) {
		error_at(S->d, call->kws[0].pos, "%s takes no keyword arguments", user);
		return false;
	}
	if (S->m->target != TG_ANY && !target_has(S->m->target, in->target)) {
		error_at(S->d, at(call), "%s needs %s; the target is %s", user, target_names[in->target],
		         target_names[S->m->target]);
		return false;
	}
	const Pattern *p = row->alias ? NULL : pattern(r);
	Expr **args = NULL;
	int nargs = 0;
	Kw *kws = NULL;
	int nkws = 0;
	const char *items[MAX_PARTS * 2];
	int nitems = *row->map ? split(row->map, ' ', items, MAX_PARTS * 2) : 0;
	for (int i = 0; i < nitems; i++) {
		const char *it = items[i], *kw = NULL, *eq = strchr(it, '=');
		if (eq) {
			kw = xstrndup(it, (size_t)(eq - it));
			it = eq + 1;
		}
		Expr *one[MAX_OPERANDS];
		int n = 0;
		if (it[0] == '$') {
			const char *dots = strstr(it, "..");
			int lo = opnd(it + 1, call->nargs), hi = dots ? opnd(dots + 2, call->nargs) : lo;
			for (int k = lo; k <= hi && k < call->nargs; k++)
				one[n++] = call->args[k];
		} else if (it[0] == '@') {
			Expr *t = call->args[opnd(it + 1, call->nargs)];
			Value *f = t->kind == E_CALL ? eval(S, t->a) : NULL;
			if (IS_ERR(f))
				return false;
			if (f && f->kind == V_FUNC && f->intrin == IN_TMEM_ADDR && t->nargs == 3 && !t->nkws) {
				for (int k = 0; k < 3; k++)
					one[n++] = t->args[k];
			} else {
				one[n++] = t;
				one[n++] = new_int(t->pos, 0);
				one[n++] = new_int(t->pos, 0);
			}
		} else if (it[0] == '{') {
			bool flag = it[strlen(it) - 2] == '?';
			const char *name = xstrndup(it + 1, strlen(it) - 2 - flag);
			const char *v = NULL;
			for (int k = 0; k < p->n; k++)
				if (p->part[k].name && !strcmp(p->part[k].name, name))
					v = val[k];
			/* at the instruction, where sema's errors about them point */
			if (flag) {
				one[n] = new_expr(v ? E_TRUE : E_FALSE, at(call));
				one[n++]->depth = 1;
			} else if (v && v[strspn(v, "0123456789")] == 0) {
				one[n] = new_int(at(call), atoll(v));
				one[n++]->depth = 1;
			} else {
				one[n++] = lit_str(at(call), v ? v : "");
			}
		} else {
			one[n] = new_expr(!strcmp(it, "True") ? E_TRUE : E_FALSE, call->pos);
			one[n++]->depth = 1;
		}
		if (kw) {
			if (n != 1)
				die("ptx.def: keyword %s of \"%s\" is not one operand", kw, row->pattern);
			/* the keyword's kind in intrin.def: an integer is unwrapped */
			const char *k = strstr(in->kws, xprintf("%s:", kw));
			Expr *x = k && k[strlen(kw) + 1] == 'i' ? unwrap_int(S, one[0]) : one[0];
			vpush(kws, nkws, ((Kw){ kw, x, x->pos }));
			continue;
		}
		for (int k = 0; k < n; k++) {
			/* the positional kind in intrin.def */
			int pos = 0;
			char kind = 'x';
			for (const char *a = in->args; *a; a++) {
				if (*a == '|' || *a == '*')
					continue;
				if (pos++ == nargs) {
					kind = *a;
					break;
				}
			}
			vpush(args, nargs, kind == 'i' ? unwrap_int(S, one[k]) : one[k]);
		}
	}
	call->a = callee(in->path, call->a->pos);
	call->args = args;
	call->nargs = nargs;
	call->kws = kws;
	call->nkws = nkws;
	return true;
}

/* "the nearest" for an unknown instruction; for a chain also among txc's
 * own builtins below T.ptx. */
static void unknown(Sema *S, Expr *call, const char *what, bool chain)
{
	int best = -1, bd = 1 << 30;
	/* among the rows of its mnemonic, when there are any */
	size_t m = strcspn(what, ".");
	bool mnem = false;
	for (int r = 0; r < NROWS; r++)
		mnem |= !rows[r].alias && rows[r].builtin != IN_NONE && !strncmp(rows[r].pattern, what, m) &&
		        rows[r].pattern[m] == '.';
	for (int r = 0; r < NROWS; r++) {
		if (rows[r].alias || rows[r].builtin == IN_NONE ||
		    (mnem && (strncmp(rows[r].pattern, what, m) || rows[r].pattern[m] != '.')))
			continue;
		int d = edit_distance(what, row_example(r));
		if (d < bd)
			bd = d, best = r;
	}
	const char *nearest = xprintf("\"%s\"", row_example(best));
	for (int i = 0; chain && i < IN_COUNT; i++) {
		const char *p = intrins[i].path + 6;
		bool same = !strncmp(intrins[i].path, "T.ptx.", 6) && !strncmp(p, what, m) && (p[m] == '.' || !p[m]);
		int d = same ? edit_distance(what, p) : bd;
		if (d < bd)
			bd = d, nearest = xprintf("txc's %s", intrins[i].path);
	}
	error_at(S->d, at(call), "unknown PTX instruction \"%s\"; the nearest txc knows is %s "
	         "(`txc-parse --%s` lists them)", what, nearest, nearest[0] == '"' ? "ptx" : "intrinsics");
}

static bool instruction(Sema *S, Expr *call, const char *what, bool chain)
{
	const char *tok[MAX_TOKS];
	int nt = split(what, '.', tok, MAX_TOKS);
	bool empty = false;
	for (int i = 0; i < nt; i++)
		empty |= !*tok[i];
	if (empty || nt == MAX_TOKS) {
		unknown(S, call, what, chain);
		return false;
	}
	const char *val[MAX_PARTS];
	for (int r = 0; r < NROWS; r++)
		if (!rows[r].alias && rows[r].builtin != IN_NONE && match(pattern(r), 0, tok, nt, 0, val))
			return rewrite(S, call, r, what, val);
	/* the known instructions that take most of it */
	int best = 0, nbest = 0, first = -1;
	uint32_t next[NROWS] = {0};
	int got[NROWS];
	for (int r = 0; r < NROWS; r++) {
		got[r] = -1;
		if (rows[r].alias || rows[r].builtin == IN_NONE)
			continue;
		reach(pattern(r), 0, tok, nt, 0, &got[r], &next[r]);
		if (got[r] > best)
			best = got[r], nbest = 0;
		if (got[r] == best && best > 0 && !nbest++)
			first = r;
	}
	/* refused: a row that names more of it */
	for (int r = 0; r < NROWS; r++) {
		if (rows[r].builtin != IN_NONE)
			continue;
		const char *pre[MAX_TOKS];
		int np = split(rows[r].pattern, '.', pre, MAX_TOKS), k = 0;
		while (k < np && k < nt && !strcmp(pre[k], tok[k]))
			k++;
		if (k == np && np > best) {
			error_at(S->d, at(call), "not supported yet: the PTX instruction \"%s\" (%s%s%s)", what, rows[r].pattern,
			         *rows[r].doc ? ": " : "", *rows[r].doc ? rows[r].doc : "txc does not emit it");
			return false;
		}
	}
	if (best < 2 && !(best == 1 && nbest == 1)) {
		unknown(S, call, what, chain);
		return false;
	}
	/* what could come where it went wrong, from every row that got as far */
	Buf allowed = {0};
	int nallowed = 0;
	const char *seen[64];
	for (int r = first; r < NROWS; r++) {
		if (got[r] != best)
			continue;
		const Pattern *p = pattern(r);
		for (int pi = 0; pi <= p->n; pi++) {
			if (!(next[r] >> pi & 1))
				continue;
			for (int k = pi; k <= p->n; k++) {
				const Part *q = &p->part[k];
				for (int a = 0; a < (k < p->n && !q->name ? q->nalt : 1); a++) {
					Buf one = {0};
					if (k == p->n)
						bputs(&one, "the end of the instruction");
					else if (q->name)
						bputc(&one, '.'), part_str(&one, q);
					else
						bprintf(&one, ".%s", q->alt[a]);
					bool dup = false;
					for (int s = 0; s < nallowed; s++)
						dup |= !strcmp(seen[s], one.s);
					if (!dup && nallowed < 64)
						seen[nallowed++] = one.s;
				}
				if (k == p->n || !p->part[k].opt)
					break;
			}
		}
	}
	for (int s = 0; s < nallowed; s++)
		bprintf(&allowed, "%s%s", s == 0 ? "" : s == nallowed - 1 ? " or " : ", ", seen[s]);
	const char *known = nbest == 1 ? xprintf(" (%s)", pattern_str(first)) : "";
	if (best == nt)
		error_at(S->d, at(call), "the PTX instruction \"%s\" is incomplete: txc expects %s after .%s%s", what,
		         allowed.s, tok[nt - 1], known);
	else
		error_at(S->d, at(call), "the PTX instruction \"%s\": txc does not emit .%s there; it takes %s%s", what,
		         tok[best], allowed.s, known);
	return false;
}

bool ptx_is_alias(const char *path)
{
	for (int r = 0; r < NROWS; r++)
		if (rows[r].alias && !strcmp(rows[r].pattern, path))
			return true;
	return false;
}

/* A name or a chain of attributes of one (T.cuda.copy_bytes): eval reads
 * its value without rewriting anything, so evaluating it again gives the
 * same value. */
static bool name_chain(const Expr *f)
{
	while (f->kind == E_ATTR)
		f = f->a;
	return f->kind == E_NAME;
}

bool ptx_rewrite(Sema *S, Expr *call, Value **fn)
{
	Expr *f = call->a;
	*fn = NULL;
	if (f->kind == E_INDEX) {
		Value *ns = eval(S, f->a);
		if (IS_ERR(ns))
			return false;
		if (!ns || ns->kind != V_NAMESPACE || strcmp(ns->s, "T.ptx") != 0)
			return true;
		if (f->nargs != 1 || f->args[0]->kind == E_SLICE) {
			error_at(S->d, f->pos, "%s[...] takes one PTX instruction, as a string", expr_str(f->a));
			return false;
		}
		Value *v = eval_const(S, f->args[0], "a PTX instruction");
		if (IS_ERR(v))
			return false;
		if (v->kind != V_STR) {
			error_at(S->d, f->args[0]->pos, "a PTX instruction is a string such as \"tcgen05.wait::ld.sync.aligned\", "
			         "not %s", value_kind_name(v));
			return false;
		}
		return instruction(S, call, v->s, false);
	}
	Value *v = eval(S, f);
	if (IS_ERR(v))
		return false;
	if (!v || v->kind != V_NAMESPACE) {
		if (name_chain(f))
			*fn = v;
		return true;
	}
	if (!strncmp(v->s, "T.ptx.", 6))
		return instruction(S, call, chain_instruction(v->s + 6), true);
	for (int r = 0; r < NROWS; r++)
		if (rows[r].alias && !strcmp(rows[r].pattern, v->s))
			return rewrite(S, call, r, xprintf("%s()", expr_str(f)), NULL);
	return true;
}

/* ---- the table for doc/txir.md (txc-parse --ptx) -------------------------------- */

/* The builtin call a row becomes, with the PTX operands' names. */
static const char *row_call(int r)
{
	const Row *row = &rows[r];
	const char *ops[MAX_OPERANDS];
	int nops = *row->operands ? split(row->operands, ',', ops, MAX_OPERANDS) : 0;
	bool rep[MAX_OPERANDS];
	for (int i = 0; i < nops; i++) {
		const char *o = ops[i] + strspn(ops[i], " [");
		rep[i] = strstr(o, "...") != NULL;
		ops[i] = xstrndup(o, strcspn(o, "]?."));
	}
	const char *items[MAX_PARTS * 2];
	int n = *row->map ? split(row->map, ' ', items, MAX_PARTS * 2) : 0;
	Buf b = {0};
	const char *path = intrins[row->builtin].path;
	bprintf(&b, "%s(", strncmp(path, "layout.", 7) ? path : path + 7);
	for (int i = 0, k = 0; i < n; i++) {
		const char *it = items[i], *eq = strchr(it, '=');
		Buf one = {0};
		if (eq) {
			bprintf(&one, "%.*s=", (int)(eq - it), it);
			it = eq + 1;
		}
		if (it[0] == '$' || it[0] == '@') {
			const char *dots = strstr(it, "..");
			int lo = opnd(it + 1, nops), hi = dots ? opnd(dots + 2, nops) : lo;
			if (dots && lo > hi)
				continue; /* an optional operand */
			if (dots && lo == hi && !rep[lo])
				bprintf(&one, "%s?", ops[lo]);
			else
				bprintf(&one, "%s%s", ops[lo], rep[lo] ? "..." : "");
			if (it[0] == '@')
				bputs(&one, " (base, row, col)");
		} else {
			bputs(&one, it);
		}
		bprintf(&b, "%s%s", k++ ? ", " : "", one.s);
	}
	bputc(&b, ')');
	return b.s;
}

/* A table cell: `|` escaped. */
static const char *cell(const char *s)
{
	Buf b = {0};
	bputs(&b, "");
	for (; *s; s++)
		*s == '|' ? bputs(&b, "\\|") : bputc(&b, *s);
	return b.s;
}

void print_ptx(Buf *b)
{
	bputs(b, "| PTX instruction | PTX operands | txc builtin | target | note |\n|---|---|---|---|---|\n");
	for (int r = 0; r < NROWS; r++) {
		const Row *row = &rows[r];
		if (row->builtin == IN_NONE)
			bprintf(b, "| `%s...` | | not supported yet | | %s |\n", row->pattern, row->doc);
		else
			bprintf(b, "| `%s` | %s | `%s` | %s | %s |\n", row->alias ? row->pattern : cell(pattern_str(r)),
			        *row->operands ? xprintf("`%s`", row->operands) : "—", row_call(r),
			        target_names[intrins[row->builtin].target], row->doc);
	}
}
