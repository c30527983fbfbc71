/* TVMScript's Python subset over compile-time constants: dicts, `*` and
 * `**` splats, comprehensions, f-strings, slicing with a step, and the
 * builtins tuple, list, len, max, min, int, str, getattr, enumerate, zip
 * and range (doc/txir.md, section 4). In a kernel, sema rewrites each of
 * them into the plain text it stands for (desugar), so that every later
 * program sees explicit arguments, keywords and literals. */
#include <stdlib.h>
#include <string.h>

#include "sema.h"

/* The most elements a constant sequence, or steps a comprehension, may
 * have. */
#define MAX_CONST_ELTS (1 << 20)

static Value *vtuple(int n, bool list)
{
	Value *v = vnew(V_TUPLE);
	v->nelts = n;
	v->elts = xalloc(sizeof(Value *) * (size_t)(n + 1));
	v->list = list;
	return v;
}

static Value *vstr(const char *s)
{
	Value *v = vnew(V_STR);
	v->s = s;
	return v;
}

static bool is_const(const Value *v)
{
	return v && !IS_ERR(v) && v->kind != V_VAR;
}

/* ---- equality, order, text -------------------------------------------------- */

/* 1 when a == b, 0 when not, -1 when telling took more than *budget
 * steps. */
static int value_eq_in(const Value *a, const Value *b, long *budget)
{
	if (a == b)
		return 1;
	if (--*budget < 0)
		return -1;
	bool na = a->kind == V_INT || a->kind == V_BOOL || a->kind == V_FLOAT;
	bool nb = b->kind == V_INT || b->kind == V_BOOL || b->kind == V_FLOAT;
	if (na && nb) {
		if (a->kind != V_FLOAT && b->kind != V_FLOAT)
			return a->i == b->i;
		double x = a->kind == V_FLOAT ? a->f : (double)a->i, y = b->kind == V_FLOAT ? b->f : (double)b->i;
		return x == y;
	}
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case V_STR: return strcmp(a->s, b->s) == 0;
	case V_NONE: return 1;
	case V_TUPLE:
		if (a->nelts != b->nelts || a->list != b->list)
			return 0;
		for (int i = 0; i < a->nelts; i++) {
			int r = value_eq_in(a->elts[i], b->elts[i], budget);
			if (r != 1)
				return r;
		}
		return 1;
	default:
		return 0;
	}
}

/* Equality as Python has it, for constants; -1 when too large to tell. */
int value_equal(const Value *a, const Value *b)
{
	long budget = MAX_CONST_ELTS;
	return value_eq_in(a, b, &budget);
}

static bool value_eq(const Value *a, const Value *b)
{
	return value_equal(a, b) == 1;
}

static bool hashable(const Value *v)
{
	switch (v->kind) {
	case V_INT: case V_BOOL: case V_FLOAT: case V_STR: case V_NONE:
		return true;
	case V_TUPLE:
		if (v->list)
			return false;
		for (int i = 0; i < v->nelts; i++)
			if (!hashable(v->elts[i]))
				return false;
		return true;
	default:
		return false;
	}
}

static void float_text(Buf *b, double f)
{
	char s[64];
	int p = 1;
	for (; p < 17; p++) {
		snprintf(s, sizeof s, "%.*g", p, f);
		if (strtod(s, NULL) == f)
			break;
	}
	snprintf(s, sizeof s, "%.*g", p, f);
	bputs(b, s);
	if (!strpbrk(s, ".eEn"))
		bputs(b, ".0");
}

/* str(v) (repr false) or repr(v), as Python writes them; false when v has
 * no text txc can write. */
static bool value_text(Buf *b, const Value *v, bool repr)
{
	if (b->n > MAX_CONST_ELTS)
		return false; /* too long: the caller says so */
	switch (v->kind) {
	case V_INT: bprintf(b, "%lld", (long long)v->i); return true;
	case V_BOOL: bputs(b, v->i ? "True" : "False"); return true;
	case V_NONE: bputs(b, "None"); return true;
	case V_FLOAT: float_text(b, v->f); return true;
	case V_DTYPE: bputs(b, dtypes[v->dtype].name); return true;
	case V_STR:
		if (!repr) {
			bputs(b, v->s);
			return true;
		}
		{
			char q = strchr(v->s, '\'') && !strchr(v->s, '"') ? '"' : '\'';
			bputc(b, q);
			for (const char *s = v->s; *s; s++) {
				unsigned char c = (unsigned char)*s;
				if (c == q || c == '\\')
					bprintf(b, "\\%c", c);
				else if (c == '\n')
					bputs(b, "\\n");
				else if (c == '\t')
					bputs(b, "\\t");
				else if (c == '\r')
					bputs(b, "\\r");
				else if (c < 32 || c == 127)
					bprintf(b, "\\x%02x", c);
				else
					bputc(b, c);
			}
			bputc(b, q);
		}
		return true;
	case V_TUPLE:
		bputc(b, v->list ? '[' : '(');
		for (int i = 0; i < v->nelts; i++) {
			if (i)
				bputs(b, ", ");
			if (!value_text(b, v->elts[i], true))
				return false;
		}
		if (v->nelts == 1 && !v->list)
			bputc(b, ',');
		bputc(b, v->list ? ']' : ')');
		return true;
	case V_DICT:
		bputc(b, '{');
		for (int i = 0; i < v->nelts; i++) {
			if (i)
				bputs(b, ", ");
			if (!value_text(b, v->elts[i], true))
				return false;
			bputs(b, ": ");
			if (!value_text(b, v->vals[i], true))
				return false;
		}
		bputc(b, '}');
		return true;
	case V_SLICE:
		bputs(b, "slice(");
		for (int i = 0; i < 3; i++) {
			if (i)
				bputs(b, ", ");
			if (!v->elts[i])
				bputs(b, "None");
			else if (!value_text(b, v->elts[i], true))
				return false;
		}
		bputc(b, ')');
		return true;
	default:
		return false;
	}
}

/* ---- sequences ------------------------------------------------------------------ */

/* The items of a constant sequence: a tuple or list, the characters of a
 * string, the keys of a dict. */
static bool items_of(Sema *S, Value *v, Pos p, Value ***out, int *n)
{
	switch (v->kind) {
	case V_TUPLE: case V_DICT:
		*out = v->elts;
		*n = v->nelts;
		return true;
	case V_STR: {
		int len = (int)strlen(v->s);
		*out = xalloc(sizeof(Value *) * (size_t)(len + 1));
		for (int i = 0; i < len; i++)
			(*out)[i] = vstr(xstrndup(v->s + i, 1));
		*n = len;
		return true;
	}
	default:
		fail(S, p, "cannot iterate over %s", value_kind_name(v));
		return false;
	}
}

/* The constant sequence an expression gives; NULL after an error. */
static Value *const_seq(Sema *S, Expr *e, const char *what)
{
	Value *v = eval(S, e);
	if (IS_ERR(v))
		return NULL;
	if (!is_const(v)) {
		fail(S, e->pos, "%s must be a compile-time constant, not a runtime value", what);
		return NULL;
	}
	if (v->kind != V_TUPLE && v->kind != V_STR && v->kind != V_DICT) {
		fail(S, e->pos, "%s must be a tuple, list, string or dict, not %s", what, value_kind_name(v));
		return NULL;
	}
	return v;
}

/* (a, *b, c) and [a, *b, c]: NULL when an item is a runtime value. */
Value *eval_items(Sema *S, Expr **args, int n, bool list)
{
	Value **v = NULL;
	int nv = 0;
	for (int i = 0; i < n; i++) {
		Expr *x = args[i];
		if (x->kind != E_STAR) {
			Value *a = eval(S, x);
			if (!a || IS_ERR(a))
				return a;
			vpush(v, nv, a);
			continue;
		}
		if (x->op != 1)
			return fail(S, x->pos, "'**' unpacks a dict into a call's keywords or a dict");
		Value *s = eval(S, x->a);
		if (!s || IS_ERR(s) || s->kind == V_VAR)
			return s && s->kind == V_VAR ? NULL : s;
		Value **it;
		int m;
		if (!items_of(S, s, x->a->pos, &it, &m))
			return &verr;
		if (nv + m > MAX_CONST_ELTS)
			return fail(S, x->pos, "a constant sequence has at most %d elements", MAX_CONST_ELTS);
		for (int k = 0; k < m; k++)
			vpush(v, nv, it[k]);
	}
	Value *t = vtuple(nv, list);
	if (nv)
		memcpy(t->elts, v, sizeof(Value *) * (size_t)nv);
	return t;
}

static void dict_put(Value *d, Value *k, Value *v)
{
	for (int i = 0; i < d->nelts; i++)
		if (value_eq(d->elts[i], k)) {
			d->vals[i] = v;
			return;
		}
	int n = d->nelts;
	vpush(d->elts, d->nelts, k);
	vpush(d->vals, n, v);
}

Value *eval_dict(Sema *S, Expr *e)
{
	Value *d = vnew(V_DICT);
	for (int i = 0; i < e->nargs; i++) {
		Expr *x = e->args[i];
		if (x->kind == E_STAR) {
			Value *o = eval_const(S, x->a, "a dict unpacked with '**'");
			if (IS_ERR(o))
				return o;
			if (o->kind != V_DICT)
				return fail(S, x->a->pos, "'**' unpacks a dict, not %s", value_kind_name(o));
			for (int k = 0; k < o->nelts; k++)
				dict_put(d, o->elts[k], o->vals[k]);
			continue;
		}
		Value *k = eval_const(S, x->a, "a dict key");
		if (IS_ERR(k))
			return k;
		if (!hashable(k))
			return fail(S, x->a->pos, "a dict key is a number, a string, a boolean, None or a tuple of them, not %s",
			            value_kind_name(k));
		Value *v = eval(S, x->b);
		if (!v || IS_ERR(v) || v->kind == V_VAR)
			return v && v->kind == V_VAR ? NULL : v;
		dict_put(d, k, v);
	}
	return d;
}

/* ---- comprehensions ------------------------------------------------------------- */

typedef struct Comp {
	Expr *e;
	long steps;
	/* the values, or with exprs the expressions, made so far */
	Value **vals;
	int nvals;
	Value *dict;
	bool exprs;
	Expr **out;
	int nout;
	/* the names the clauses bind now, for substitution */
	const char **names;
	Value **bound;
	int nbound;
	bool runtime; /* an element is not a constant */
} Comp;

static bool bind_target(Sema *S, Comp *c, Expr *t, Value *v)
{
	if (t->kind == E_NAME) {
		bind_name(S, t->str, v, t->pos);
		vpush(c->names, c->nbound, t->str);
		c->nbound--;
		vpush(c->bound, c->nbound, v);
		return true;
	}
	if (t->kind == E_TUPLE || t->kind == E_LIST) {
		if (v->kind != V_TUPLE || v->nelts != t->nargs) {
			fail(S, t->pos, "cannot unpack %s into %d names",
			     v->kind == V_TUPLE ? xprintf("%d values", v->nelts) : value_kind_name(v), t->nargs);
			return false;
		}
		for (int i = 0; i < t->nargs; i++)
			if (!bind_target(S, c, t->args[i], v->elts[i]))
				return false;
		return true;
	}
	fail(S, t->pos, "a comprehension binds names, not '%s'", expr_str(t));
	return false;
}

static Expr *subst(Sema *S, Comp *c, Expr *e);

static bool comp_clause(Sema *S, Comp *c, int k)
{
	if (k == c->e->nargs) {
		Expr *elt = c->e->a;
		if (c->exprs) {
			Expr *x = subst(S, c, elt);
			if (!x)
				return false;
			vpush(c->out, c->nout, x);
			return true;
		}
		if (c->e->op == COMP_DICT) {
			Value *key = eval_const(S, elt->a, "a dict key");
			if (IS_ERR(key))
				return false;
			if (!hashable(key)) {
				fail(S, elt->a->pos, "a dict key is a number, a string, a boolean, None or a tuple of them, not %s",
				     value_kind_name(key));
				return false;
			}
			Value *v = eval(S, elt->b);
			if (IS_ERR(v))
				return false;
			if (!is_const(v))
				c->runtime = true;
			else
				dict_put(c->dict, key, v);
			return true;
		}
		Value *v = eval(S, elt);
		if (IS_ERR(v))
			return false;
		if (!is_const(v))
			c->runtime = true;
		else
			vpush(c->vals, c->nvals, v);
		return true;
	}
	Expr *cl = c->e->args[k];
	Value *seq = const_seq(S, cl->b, "the sequence of a comprehension");
	if (!seq)
		return false;
	Value **it;
	int n;
	if (!items_of(S, seq, cl->b->pos, &it, &n))
		return false;
	for (int i = 0; i < n; i++) {
		if (++c->steps > MAX_CONST_ELTS) {
			fail(S, c->e->pos, "a comprehension takes at most %d steps", MAX_CONST_ELTS);
			return false;
		}
		int mark = c->nbound;
		push_env(S, false);
		bool ok = bind_target(S, c, cl->a, it[i]);
		bool take = true;
		for (int j = 0; ok && take && j < cl->nargs; j++) {
			Value *t = eval_const(S, cl->args[j], "the condition of a comprehension");
			if (IS_ERR(t))
				ok = false;
			else if (t->kind != V_BOOL && t->kind != V_INT)
				ok = !fail(S, cl->args[j]->pos, "the condition of a comprehension must be a boolean, not %s",
				           value_kind_name(t));
			else
				take = t->i != 0;
		}
		if (ok && take)
			ok = comp_clause(S, c, k + 1);
		pop_env(S);
		c->nbound = mark;
		if (!ok)
			return false;
	}
	return true;
}

Value *eval_comp(Sema *S, Expr *e)
{
	Comp c = { .e = e };
	if (e->op == COMP_DICT)
		c.dict = vnew(V_DICT);
	if (!comp_clause(S, &c, 0))
		return &verr;
	if (c.runtime)
		return NULL;
	if (c.dict)
		return c.dict;
	Value *t = vtuple(c.nvals, e->op == COMP_LIST);
	if (c.nvals)
		memcpy(t->elts, c.vals, sizeof(Value *) * (size_t)c.nvals);
	return t;
}

/* ---- f-strings ------------------------------------------------------------------ */

/* A format spec [[fill]align][sign][#][0][width][type], over integers
 * (types d x X o b) and strings (type s). */
static bool format_spec(Sema *S, Pos p, Value *v, const char *spec, Buf *out)
{
	const char *s = spec;
	char fill = ' ', align = 0, sign = '-', type = 0;
	bool alt = false;
	long width = 0;
	if (s[0] && strchr("<>^=", s[1])) {
		fill = s[0];
		align = s[1];
		s += 2;
	} else if (s[0] && strchr("<>^=", s[0])) {
		align = *s++;
	}
	if (*s && strchr("+- ", *s))
		sign = *s++;
	if (*s == '#')
		alt = true, s++;
	if (*s == '0') {
		if (!align)
			fill = '0', align = '=';
		s++;
	}
	while (*s >= '0' && *s <= '9' && width < 10000)
		width = width * 10 + (*s++ - '0');
	if (*s && strchr("dxXobs", *s))
		type = *s++;
	bool is_int = v->kind == V_INT || v->kind == V_BOOL;
	if (*s || (type == 's' && v->kind != V_STR) || (type && type != 's' && !is_int) ||
	    (v->kind != V_STR && !is_int) || (v->kind == V_STR && (sign != '-' || alt || align == '='))) {
		fail(S, p, "not supported yet: the format spec ':%s' for %s (txc formats integers with fill, alignment, "
		     "sign, '#', '0', width and type d, x, X, o or b, and strings with fill, alignment, width and type s)",
		     spec, value_kind_name(v));
		return false;
	}
	Buf body = {0}, pre = {0};
	bputc(&body, 0);
	body.n = 0;
	bputc(&pre, 0);
	pre.n = 0;
	if (v->kind == V_STR) {
		bputs(&body, v->s);
		if (!align)
			align = '<';
	} else {
		int64_t x = v->i;
		uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
		if (x < 0)
			bputc(&pre, '-');
		else if (sign != '-')
			bputc(&pre, sign);
		int base = type == 'x' || type == 'X' ? 16 : type == 'o' ? 8 : type == 'b' ? 2 : 10;
		if (alt && base != 10)
			bprintf(&pre, "0%c", type);
		char digits[70];
		int n = 0;
		do {
			int d = (int)(u % (uint64_t)base);
			digits[n++] = (char)(d < 10 ? '0' + d : (type == 'X' ? 'A' : 'a') + d - 10);
			u /= (uint64_t)base;
		} while (u);
		while (n)
			bputc(&body, digits[--n]);
		if (!align)
			align = '>';
	}
	long len = (long)(pre.n + body.n), pad = width > len ? width - len : 0;
	long left = align == '<' ? 0 : align == '^' ? pad / 2 : pad;
	if (align == '=')
		bputs(out, pre.s);
	for (long i = 0; i < left; i++)
		bputc(out, fill);
	if (align != '=')
		bputs(out, pre.s);
	bputs(out, body.s);
	for (long i = left; i < pad; i++)
		bputc(out, fill);
	return true;
}

Value *eval_fstr(Sema *S, Expr *e)
{
	Buf b = {0};
	bputc(&b, 0);
	b.n = 0;
	for (int i = 0; i < e->nargs; i++) {
		Expr *x = e->args[i];
		if (x->kind == E_STR) {
			bputs(&b, x->str);
			continue;
		}
		Value *v = eval(S, x->a);
		if (IS_ERR(v))
			return v;
		if (!is_const(v))
			return fail(S, x->a->pos, "an f-string formats compile-time constants; '%s' is a runtime value",
			            expr_str(x->a));
		if (x->op == 'a')
			return fail(S, x->pos, "not supported yet: the conversion '!a' in an f-string; use '!r'");
		if (x->op == 'r' || x->op == 's') {
			Buf t = {0};
			bputc(&t, 0);
	t.n = 0;
			if (!value_text(&t, v, x->op == 'r'))
				return t.n > MAX_CONST_ELTS ? fail(S, x->a->pos, "a constant string has at most %d bytes", MAX_CONST_ELTS) :
				       fail(S, x->a->pos, "an f-string formats numbers, strings, booleans, None, tuples, lists, dicts and slices, not %s",
				            value_kind_name(v));
			v = vstr(t.s);
		}
		if (x->str && *x->str) {
			if (!format_spec(S, x->pos, v, x->str, &b))
				return &verr;
		} else if (!value_text(&b, v, false)) {
			return b.n > MAX_CONST_ELTS ? fail(S, x->a->pos, "a constant string has at most %d bytes", MAX_CONST_ELTS) :
			       fail(S, x->a->pos, "an f-string formats numbers, strings, booleans, None, tuples, lists, dicts and slices, not %s",
			            value_kind_name(v));
		}
		if (b.n > MAX_CONST_ELTS)
			return fail(S, e->pos, "a constant string has at most %d bytes", MAX_CONST_ELTS);
	}
	return vstr(b.s);
}

/* ---- subscripts of constants ------------------------------------------------------ */

static bool slice_bound(Sema *S, Expr *x, const char *what, int64_t *out, bool *given)
{
	*given = false;
	if (!x)
		return true;
	Value *v = eval_const(S, x, what);
	if (IS_ERR(v))
		return false;
	if (v->kind == V_NONE)
		return true;
	if (v->kind != V_INT && v->kind != V_BOOL) {
		fail(S, x->pos, "%s must be an integer, not %s", what, value_kind_name(v));
		return false;
	}
	*out = v->i;
	*given = true;
	return true;
}

/* t[i], t[lo:hi:step] of a constant tuple, list or string; d[key]. */
Value *index_const(Sema *S, Expr *e, Value *a)
{
	if (e->nargs != 1)
		return fail(S, e->pos, "%s takes one index", value_kind_name(a));
	Expr *x = e->args[0];
	if (a->kind == V_DICT) {
		Value *k = eval_const(S, x, "a dict key");
		if (IS_ERR(k))
			return k;
		for (int i = 0; i < a->nelts; i++)
			if (value_eq(a->elts[i], k))
				return a->vals[i];
		Buf t = {0};
		bputc(&t, 0);
	t.n = 0;
		value_text(&t, k, true);
		return fail(S, x->pos, "key %s is not in the dict", t.s);
	}
	Value **it;
	int n;
	if (!items_of(S, a, e->pos, &it, &n))
		return &verr;
	if (x->kind != E_SLICE) {
		int64_t i;
		if (!eval_int(S, x, a->kind == V_STR ? "a string index" : "a tuple index", &i))
			return &verr;
		if (i < -n || i >= n)
			return fail(S, x->pos, "%s index %lld out of range for %s of %d",
			            a->kind == V_STR ? "string" : a->list ? "list" : "tuple", (long long)i,
			            a->kind == V_STR ? "a string" : a->list ? "a list" : "a tuple", n);
		return it[i < 0 ? i + n : i];
	}
	int64_t lo = 0, hi = 0, step = 1;
	bool glo, ghi, gstep;
	if (!slice_bound(S, x->c, "a slice step", &step, &gstep) || !slice_bound(S, x->a, "a slice bound", &lo, &glo) ||
	    !slice_bound(S, x->b, "a slice bound", &hi, &ghi))
		return &verr;
	if (step == 0)
		return fail(S, x->c->pos, "slice step cannot be zero");
	/* Python's rules: negative bounds count from the end, then clamp */
	int64_t first, last;
	if (step > 0) {
		first = !glo ? 0 : lo < 0 ? (lo + n < 0 ? 0 : lo + n) : (lo > n ? n : lo);
		last = !ghi ? n : hi < 0 ? (hi + n < 0 ? 0 : hi + n) : (hi > n ? n : hi);
	} else {
		first = !glo ? n - 1 : lo < 0 ? (lo + n < 0 ? -1 : lo + n) : (lo >= n ? n - 1 : lo);
		last = !ghi ? -1 : hi < 0 ? (hi + n < 0 ? -1 : hi + n) : (hi >= n ? n - 1 : hi);
	}
	Value **v = NULL;
	int nv = 0;
	for (int64_t i = first; step > 0 ? i < last : i > last;) {
		vpush(v, nv, it[i]);
		if (__builtin_add_overflow(i, step, &i))
			break;
	}
	if (a->kind == V_STR) {
		Buf t = {0};
		bputc(&t, 0);
	t.n = 0;
		for (int i = 0; i < nv; i++)
			bputs(&t, v[i]->s);
		return vstr(t.s);
	}
	Value *t = vtuple(nv, a->list);
	if (nv)
		memcpy(t->elts, v, sizeof(Value *) * (size_t)nv);
	return t;
}

/* ---- builtins ------------------------------------------------------------------- */

static Value *minmax(Sema *S, Expr *e, Value **args, int n, bool max)
{
	const char *name = max ? "max" : "min";
	Value **it = args;
	int m = n;
	if (n == 1 && !items_of(S, args[0], e->args[0]->pos, &it, &m))
		return &verr;
	if (m == 0)
		return fail(S, e->pos, "%s() of an empty sequence", name);
	Value *best = NULL;
	for (int i = 0; i < m; i++) {
		Value *v = it[i];
		bool num = v->kind == V_INT || v->kind == V_BOOL || v->kind == V_FLOAT;
		if (!num && v->kind != V_STR)
			return fail(S, e->pos, "%s() compares numbers or strings, not %s", name, value_kind_name(v));
		if (!best) {
			best = v;
			continue;
		}
		bool bnum = best->kind != V_STR;
		if (num != bnum)
			return fail(S, e->pos, "%s() cannot compare a number with a string", name);
		int c;
		if (!num) {
			c = strcmp(v->s, best->s);
		} else if (v->kind != V_FLOAT && best->kind != V_FLOAT) {
			c = v->i < best->i ? -1 : v->i > best->i;
		} else {
			double x = v->kind == V_FLOAT ? v->f : (double)v->i, y = best->kind == V_FLOAT ? best->f : (double)best->i;
			c = x < y ? -1 : x > y;
		}
		if (max ? c > 0 : c < 0)
			best = v;
	}
	return best;
}

static Value *py_int(Sema *S, Expr *e, Value **args, int n)
{
	if (n == 0)
		return vint(0);
	Value *v = args[0];
	if (n == 1 && (v->kind == V_INT || v->kind == V_BOOL))
		return vint(v->i);
	if (n == 1 && v->kind == V_FLOAT) {
		if (!(v->f > -9.3e18 && v->f < 9.2e18))
			return fail(S, e->args[0]->pos, "int() of %g does not fit in 64 bits", v->f);
		return vint((int64_t)v->f);
	}
	if (v->kind != V_STR)
		return fail(S, e->args[0]->pos, n == 2 ? "int() with a base converts a string, not %s"
		                                       : "int() converts a number or a string, not %s", value_kind_name(v));
	int64_t base = 10;
	if (n == 2) {
		if (args[1]->kind != V_INT)
			return fail(S, e->args[1]->pos, "the base of int() must be an integer, not %s", value_kind_name(args[1]));
		base = args[1]->i;
		if (base != 0 && (base < 2 || base > 36))
			return fail(S, e->args[1]->pos, "int() base must be >= 2 and <= 36, or 0 (not %lld)", (long long)base);
	}
	/* Python's literal: spaces around, a sign, digits with single '_'
	 * between them, a 0x/0o/0b prefix with base 0 or its own base */
	const char *s = v->s;
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	bool neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	int64_t b = base;
	if (s[0] == '0' && s[1] && strchr("xXoObB", s[1])) {
		int pb = strchr("xX", s[1]) ? 16 : strchr("oO", s[1]) ? 8 : 2;
		if (base == 0 || base == pb) {
			b = pb;
			s += 2;
			if (*s == '_')
				s++;
		}
	}
	if (b == 0) {
		b = 10;
		if (s[0] == '0' && s[strspn(s, "0_")] && !strchr(" \t\n", s[strspn(s, "0_")]))
			b = -1; /* leading zeros with base 0 */
	}
	uint64_t r = 0;
	int digits = 0;
	bool ok = b > 0;
	for (; ok && *s && !strchr(" \t\n", *s); s++) {
		if (*s == '_' && digits && s[1] && s[1] != '_')
			continue;
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'z' ? *s - 'a' + 10 :
		        *s >= 'A' && *s <= 'Z' ? *s - 'A' + 10 : 99;
		if (d >= b || r > (UINT64_MAX - (uint64_t)d) / (uint64_t)b) {
			ok = d < b ? !fail(S, e->pos, "int('%s') does not fit in 64 bits", v->s) : false;
			if (d < b)
				return &verr;
			break;
		}
		r = r * (uint64_t)b + (uint64_t)d;
		digits++;
	}
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (!ok || *s || !digits)
		return fail(S, e->args[0]->pos, "invalid literal for int() with base %lld: '%s'", (long long)base, v->s);
	if (r > (uint64_t)INT64_MAX + neg)
		return fail(S, e->pos, "int('%s') does not fit in 64 bits", v->s);
	return vint(neg ? (int64_t)(0 - r) : (int64_t)r);
}

/* dict(), dict(mapping), dict(pairs), each with key=value keywords
 * after: a constant dict. */
/* functools.reduce(f, items[, start]) of a helper function or a lambda
 * f: f(f(start, items[0]), items[1]) ..., each call expanded as a call
 * written with the values as constants. */
static Value *reduce_call(Sema *S, Expr *e, Value **args, int n)
{
	Value **it;
	int m, k = 0;
	if (!items_of(S, args[1], e->args[1]->pos, &it, &m))
		return &verr;
	if (m == 0 && n < 3)
		return fail(S, e->pos, "functools.reduce() of an empty sequence with no initial value");
	Value *acc = n == 3 ? args[2] : it[k++];
	for (; k < m; k++) {
		Expr *x = value_expr(S, acc, e->pos, false), *y = value_expr(S, it[k], e->pos, false);
		if (!x || !y)
			return &verr;
		Expr *call = new_call(e->args[0]->pos, expr_copy(e->args[0]));
		call_add_arg(call, x);
		call_add_arg(call, y);
		acc = helper_eval(S, call, args[0]);
		if (IS_ERR(acc))
			return acc;
		if (!acc || !is_const(acc))
			return fail(S, e->args[0]->pos, "functools.reduce()'s function gave a value known only when the kernel "
			            "runs");
	}
	return acc;
}

static Value *py_dict(Sema *S, Expr *e)
{
	if (e->nargs > 1)
		return fail(S, e->args[1]->pos, "dict() takes at most 1 positional argument but %d were given", e->nargs);
	Value *d = vnew(V_DICT);
	if (e->nargs) {
		Value *a = eval_const(S, e->args[0], "the argument of dict()");
		if (IS_ERR(a))
			return a;
		if (a->kind == V_DICT) {
			for (int k = 0; k < a->nelts; k++)
				dict_put(d, a->elts[k], a->vals[k]);
		} else {
			Value **it;
			int m;
			if (!items_of(S, a, e->args[0]->pos, &it, &m))
				return &verr;
			for (int k = 0; k < m; k++) {
				if (it[k]->kind != V_TUPLE || it[k]->nelts != 2)
					return fail(S, e->args[0]->pos, "dict() takes a dict or a sequence of (key, value) pairs; "
					            "item %d is %s", k, it[k]->kind == V_TUPLE ? xprintf("a sequence of %d", it[k]->nelts) :
					            value_kind_name(it[k]));
				if (!hashable(it[k]->elts[0]))
					return fail(S, e->args[0]->pos, "a dict key is a number, a string, a boolean, None or a tuple "
					            "of them, not %s", value_kind_name(it[k]->elts[0]));
				dict_put(d, it[k]->elts[0], it[k]->elts[1]);
			}
		}
	}
	for (int i = 0; i < e->nkws; i++) {
		if (!strcmp(e->kws[i].name, KW_SPLAT))
			return fail(S, e->kws[i].pos, "not supported yet: '**' in dict(); write dict(a, key=...) or {**a, **b}");
		Value *v = eval_const(S, e->kws[i].value, "a value of dict()");
		if (IS_ERR(v))
			return v;
		dict_put(d, vstr(e->kws[i].name), v);
	}
	return d;
}

/* A builtin of Python over constants; NULL when an operand is a runtime
 * value. */
Value *py_call(Sema *S, Expr *e, int id)
{
	const char *name = intrins[id].path;
	if (strncmp(name, "py.", 3) == 0)
		name += 3;
	if (id == IN_PY_DICT)
		return py_dict(S, e);
	if (e->nkws)
		return fail(S, e->kws[0].pos, "%s() takes no keyword arguments here", name);
	int n = e->nargs;
	Value **args = xalloc(sizeof(Value *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		args[i] = eval(S, e->args[i]);
		if (IS_ERR(args[i]))
			return args[i];
		if (!is_const(args[i])) {
			if (id == IN_RANGE)
				return NULL; /* a loop's range, with runtime bounds */
			return fail(S, e->args[i]->pos, "%s() is evaluated at compile time; '%s' is a runtime value%s", name,
			            expr_str(e->args[i]), id == IN_PY_MAX || id == IN_PY_MIN ?
			            xprintf(" (T.%s(a, b) is the runtime %s)", name, name) :
			            id == IN_PY_INT ? " (T.cast(x, \"int32\") converts one at run time)" : "");
		}
	}
	const char *want = intrins[id].args;
	int req = (int)strcspn(want, "|*"), max = strchr(want, '*') ? 1 << 30 : (int)strlen(want) - (strchr(want, '|') != NULL);
	if (n < req || n > max)
		return fail(S, e->pos, "%s() takes %s argument%s but %d %s given", name,
		            req == max ? xprintf("%d", req) : n < req ? xprintf("at least %d", req) : xprintf("at most %d", max),
		            (n < req ? req : max) == 1 ? "" : "s", n, n == 1 ? "was" : "were");
	Value **it;
	int m;
	switch (id) {
	case IN_RANGE: {
		int64_t b[3] = { 0, 0, 1 };
		for (int i = 0; i < n; i++) {
			if (args[i]->kind != V_INT)
				return fail(S, e->args[i]->pos, "range() takes integers, not %s", value_kind_name(args[i]));
			b[n == 1 ? 1 : i] = args[i]->i;
		}
		if (b[2] == 0)
			return fail(S, e->args[2]->pos, "range() step must not be zero");
		Value **v = NULL;
		int nv = 0;
		for (int64_t i = b[0]; b[2] > 0 ? i < b[1] : i > b[1]; i += b[2]) {
			if (nv >= MAX_CONST_ELTS)
				return fail(S, e->pos, "a constant sequence has at most %d elements", MAX_CONST_ELTS);
			vpush(v, nv, vint(i));
			if ((b[2] > 0 && i > INT64_MAX - b[2]) || (b[2] < 0 && i < INT64_MIN - b[2]))
				break;
		}
		Value *t = vtuple(nv, false);
		if (nv)
			memcpy(t->elts, v, sizeof(Value *) * (size_t)nv);
		return t;
	}
	case IN_PY_LEN:
		if (!items_of(S, args[0], e->args[0]->pos, &it, &m))
			return &verr;
		return vint(m);
	case IN_PY_DATATYPE: {
		int dt = args[0]->kind == V_DTYPE ? args[0]->dtype : args[0]->kind == V_STR ? dtype_lookup(args[0]->s) : 0;
		if (!dt)
			return fail(S, e->args[0]->pos, "%s() takes a dtype such as \"float16\", not %s", name,
			            args[0]->kind == V_STR ? xprintf("\"%s\"", args[0]->s) : value_kind_name(args[0]));
		Value *v = vnew(V_DTYPE);
		v->dtype = dt;
		return v;
	}
	case IN_OP_MUL: case IN_OP_ADD: case IN_FT_REDUCE: {
		/* operator.mul(a, b); functools.reduce(op, items[, start]) */
		bool red = id == IN_FT_REDUCE;
		if (red && args[0]->kind == V_PYFUNC) /* a helper or a lambda: called on each pair */
			return reduce_call(S, e, args, n);
		int op = red ? (args[0]->kind == V_FUNC ? args[0]->intrin : -1) : id;
		if (op != IN_OP_MUL && op != IN_OP_ADD)
			return fail(S, e->args[0]->pos, "%s() takes operator.mul, operator.add, a helper function or a lambda "
			            "here", name);
		Value *pair[2] = { args[0], args[1] };
		if (red) {
			if (!items_of(S, args[1], e->args[1]->pos, &it, &m))
				return &verr;
		} else {
			it = pair, m = 2;
		}
		if (red && m == 0 && n < 3)
			return fail(S, e->pos, "%s() of an empty sequence with no initial value", name);
		int64_t r;
		int k = 0;
		Value *first = red && n == 3 ? args[2] : it[k++];
		if (first->kind != V_INT)
			return fail(S, e->pos, "%s() takes integers, not %s", name, value_kind_name(first));
		r = first->i;
		for (; k < m; k++) {
			if (it[k]->kind != V_INT)
				return fail(S, e->pos, "%s() takes integers, not %s", name, value_kind_name(it[k]));
			if (op == IN_OP_MUL ? !mul_ok(r, it[k]->i, &r) : !add_ok(r, it[k]->i, &r))
				return fail(S, e->pos, "%s() overflows 64 bits", name);
		}
		return vint(r);
	}
	case IN_SWIZZLE_MODE:
		if (args[0]->kind != V_INT || args[0]->i < 0 || args[0]->i > 3)
			return fail(S, e->args[0]->pos, "SwizzleMode() takes 0 (none), 1 (32B), 2 (64B) or 3 (128B)");
		return args[0];
	case IN_MATH_PROD: case IN_MATH_GCD: {
		if (id == IN_MATH_PROD && !items_of(S, args[0], e->args[0]->pos, &it, &m))
			return &verr;
		if (id == IN_MATH_GCD)
			it = args, m = n;
		int64_t r = id == IN_MATH_PROD ? 1 : 0;
		for (int i = 0; i < m; i++) {
			Pos p = e->args[id == IN_MATH_PROD ? 0 : i]->pos;
			if (it[i]->kind != V_INT)
				return fail(S, p, "%s() takes integers, not %s", name, value_kind_name(it[i]));
			if (id == IN_MATH_PROD && !mul_ok(r, it[i]->i, &r))
				return fail(S, p, "%s() overflows 64 bits", name);
			if (id == IN_MATH_GCD) {
				if (it[i]->i == INT64_MIN)
					return fail(S, p, "%s() of %lld overflows 64 bits", name, (long long)it[i]->i);
				int64_t a = r, b = it[i]->i < 0 ? -it[i]->i : it[i]->i;
				while (b) {
					int64_t t = a % b;
					a = b;
					b = t;
				}
				r = a;
			}
		}
		return vint(r);
	}
	case IN_MATH_CEIL: case IN_MATH_FLOOR: {
		if (args[0]->kind == V_INT)
			return vint(args[0]->i);
		if (args[0]->kind != V_FLOAT)
			return fail(S, e->args[0]->pos, "%s() takes a number, not %s", name, value_kind_name(args[0]));
		double x = args[0]->f;
		if (!(x >= -9.2e18 && x <= 9.2e18))
			return fail(S, e->args[0]->pos, "%s() of %g is not a 64-bit integer", name, x);
		int64_t t = (int64_t)x; /* toward zero, then to the side asked (no libm) */
		t += id == IN_MATH_CEIL ? (double)t < x : -((double)t > x);
		return vint(t);
	}
	case IN_PY_TUPLE: case IN_PY_LIST: {
		if (n == 0)
			return vtuple(0, id == IN_PY_LIST);
		if (!items_of(S, args[0], e->args[0]->pos, &it, &m))
			return &verr;
		Value *t = vtuple(m, id == IN_PY_LIST);
		if (m)
			memcpy(t->elts, it, sizeof(Value *) * (size_t)m);
		return t;
	}
	case IN_PY_MAX: case IN_PY_MIN:
		return minmax(S, e, args, n, id == IN_PY_MAX);
	case IN_PY_INT:
		return py_int(S, e, args, n);
	case IN_PY_STR: {
		Buf t = {0};
		bputc(&t, 0);
	t.n = 0;
		if (n && !value_text(&t, args[0], false))
			return fail(S, e->args[0]->pos, t.n > MAX_CONST_ELTS ? "a constant string has at most 1048576 bytes" :
			            "str() of %s", value_kind_name(args[0]));
		return vstr(t.s);
	}
	case IN_PY_GETATTR: {
		if (args[1]->kind != V_STR)
			return fail(S, e->args[1]->pos, "getattr() takes the attribute's name as a string, not %s",
			            value_kind_name(args[1]));
		Expr *a = new_expr(E_ATTR, e->args[1]->pos);
		a->a = e->args[0];
		a->str = args[1]->s;
		return eval(S, a);
	}
	case IN_PY_ENUMERATE: {
		if (!items_of(S, args[0], e->args[0]->pos, &it, &m))
			return &verr;
		int64_t start = 0;
		if (n == 2) {
			if (args[1]->kind != V_INT)
				return fail(S, e->args[1]->pos, "enumerate() starts at an integer, not %s", value_kind_name(args[1]));
			start = args[1]->i;
		}
		Value *t = vtuple(m, false);
		for (int i = 0; i < m; i++) {
			Value *p = vtuple(2, false);
			p->elts[0] = vint(start + i);
			p->elts[1] = it[i];
			t->elts[i] = p;
		}
		return t;
	}
	case IN_PY_ZIP: {
		int len = n ? MAX_CONST_ELTS : 0;
		Value ***seqs = xalloc(sizeof(Value **) * (size_t)(n + 1));
		for (int i = 0; i < n; i++) {
			if (!items_of(S, args[i], e->args[i]->pos, &seqs[i], &m))
				return &verr;
			if (m < len)
				len = m;
		}
		Value *t = vtuple(len, false);
		for (int k = 0; k < len; k++) {
			Value *p = vtuple(n, false);
			for (int i = 0; i < n; i++)
				p->elts[i] = seqs[i][k];
			t->elts[k] = p;
		}
		return t;
	}
	}
	die("py_call: builtin %d", id);
}

bool is_py_builtin(int id)
{
	return id == IN_PY_LEN || id == IN_PY_TUPLE || id == IN_PY_LIST || id == IN_PY_MAX || id == IN_PY_MIN ||
	       id == IN_PY_INT || id == IN_PY_STR || id == IN_PY_GETATTR || id == IN_PY_ENUMERATE || id == IN_PY_ZIP ||
	       id == IN_PY_DATATYPE || id == IN_MATH_PROD || id == IN_MATH_GCD || id == IN_MATH_CEIL || id == IN_MATH_FLOOR ||
	       id == IN_PY_DICT || id == IN_SWIZZLE_MODE || id == IN_FT_REDUCE || id == IN_OP_MUL || id == IN_OP_ADD;
}

/* ---- names from modules txc does not know ------------------------------------------------- */

Value *opaque_use(Sema *S, Expr *e, const Value *v)
{
	const char *what = expr_str(e);
	Pos p = expr_start(e); /* under all of np.float16 */
	if (p.line == e->pos.line && e->pos.off + e->pos.len > p.off)
		p.len = e->pos.off + e->pos.len - p.off;
	if (v->i)
		return fail(S, p, "'%s' comes from '%s', which has no name '%s' that txc knows; `txc-parse --intrinsics` "
		            "lists what it knows", what, v->s, v->name);
	return fail(S, p, "'%s' comes from module '%s', which txc does not know; txc gives a meaning to tvm.script "
	            "(T, Tx), tvm.tirx.layout and Python's builtins over constants", what, v->s);
}

/* ---- written out as text ------------------------------------------------------------------ */

static Expr *neg(Pos p, Expr *x)
{
	Expr *e = new_expr(E_UN, p);
	e->op = OP_NEG;
	e->a = x;
	return e;
}

static Expr *value_expr_in(Sema *S, Value *v, Pos p, bool subscript, long *budget);

/* A constant as the expression that means it (in a subscript, a slice is
 * lo:hi:step); NULL after an error. */
Expr *value_expr(Sema *S, Value *v, Pos p, bool subscript)
{
	long budget = MAX_CONST_ELTS;
	return value_expr_in(S, v, p, subscript, &budget);
}

static Expr *value_expr_in(Sema *S, Value *v, Pos p, bool subscript, long *budget)
{
	Expr *e;
	if (--*budget < 0) {
		if (*budget == -1)
			fail(S, p, "this constant is too large to write into the program (more than %d parts)", MAX_CONST_ELTS);
		return NULL;
	}
	switch (v->kind) {
	case V_INT: case V_BOOL:
		if (v->kind == V_BOOL)
			return new_expr(v->i ? E_TRUE : E_FALSE, p);
		if (v->i == INT64_MIN)
			return new_int(p, v->i); /* printed as it is */
		return v->i < 0 ? neg(p, new_int(p, -v->i)) : new_int(p, v->i);
	case V_FLOAT:
		if (v->f != v->f) {
			fail(S, p, "a NaN cannot be written into the program");
			return NULL;
		}
		e = new_expr(E_FLOAT, p);
		e->fval = v->f < 0 ? -v->f : v->f;
		return v->f < 0 || (v->f == 0 && 1 / v->f < 0) ? neg(p, e) : e;
	case V_STR: case V_DTYPE:
		e = new_expr(E_STR, p);
		e->str = v->kind == V_STR ? v->s : dtypes[v->dtype].name;
		return e;
	case V_NONE:
		return new_expr(E_NONE, p);
	case V_TUPLE:
		e = new_expr(v->list ? E_LIST : E_TUPLE, p);
		e->paren = true;
		for (int i = 0; i < v->nelts; i++) {
			Expr *x = value_expr_in(S, v->elts[i], p, false, budget);
			if (!x)
				return NULL;
			vpush(e->args, e->nargs, x);
		}
		return e;
	case V_DICT:
		e = new_expr(E_DICT, p);
		for (int i = 0; i < v->nelts; i++) {
			Expr *pair = new_expr(E_PAIR, p);
			pair->a = value_expr_in(S, v->elts[i], p, false, budget);
			pair->b = value_expr_in(S, v->vals[i], p, false, budget);
			if (!pair->a || !pair->b)
				return NULL;
			vpush(e->args, e->nargs, pair);
		}
		return e;
	case V_SLICE: {
		Expr *part[3] = { NULL, NULL, NULL };
		for (int i = 0; i < 3; i++)
			if (v->elts[i] && !(part[i] = value_expr_in(S, v->elts[i], p, false, budget)))
				return NULL;
		if (subscript) {
			e = new_expr(E_SLICE, p);
			e->a = part[0], e->b = part[1], e->c = part[2];
			return e;
		}
		Sym *s = lookup(S, "slice");
		if (!s || s->val->kind != V_FUNC || s->val->intrin != IN_SLICE) {
			fail(S, p, "a slice constant is written slice(lo, hi) here, but 'slice' names something else");
			return NULL;
		}
		e = new_call(p, new_name(p, "slice"));
		for (int i = 0; i < 3; i++)
			call_add_arg(e, part[i] ? part[i] : new_expr(E_NONE, p));
		return e;
	}
	case V_LAYOUT:
		if (!v->i)
			return layout_expr(v->layout);
		break;
	case V_BUFFER:
		return new_name(p, v->buffer->name);
	default:
		break;
	}
	fail(S, p, "%s cannot be written into the program here", value_kind_name(v));
	return NULL;
}

/* ---- the rewriting of kernels ---------------------------------------------------------------- */

static Expr *subst(Sema *S, Comp *c, Expr *e)
{
	if (!e)
		return NULL;
	if (e->kind == E_NAME) {
		for (int i = c->nbound - 1; i >= 0; i--)
			if (strcmp(c->names[i], e->str) == 0)
				return value_expr(S, c->bound[i], e->pos, false);
		return e;
	}
	Expr *x = new_expr(e->kind, e->pos);
	*x = *e;
	x->val = NULL;
	if ((e->a && !(x->a = subst(S, c, e->a))) || (e->b && !(x->b = subst(S, c, e->b))) ||
	    (e->c && !(x->c = subst(S, c, e->c))))
		return NULL;
	if (e->nargs) {
		x->args = xalloc(sizeof(Expr *) * (size_t)e->nargs);
		for (int i = 0; i < e->nargs; i++)
			if (!(x->args[i] = subst(S, c, e->args[i])))
				return NULL;
	}
	if (e->nkws) {
		x->kws = xalloc(sizeof(Kw) * (size_t)e->nkws);
		for (int i = 0; i < e->nkws; i++) {
			x->kws[i] = e->kws[i];
			if (!(x->kws[i].value = subst(S, c, e->kws[i].value)))
				return NULL;
		}
	}
	return x;
}

/* The items of `*x` as expressions, into out. */
static bool splat(Sema *S, Expr *x, bool subscript, Expr ***out, int *n)
{
	Expr *in = x->a;
	if (in->kind == E_TUPLE || in->kind == E_LIST) {
		for (int i = 0; i < in->nargs; i++) {
			Expr *y = in->args[i];
			if (y->kind == E_STAR) {
				if (!splat(S, y, subscript, out, n))
					return false;
			} else {
				vpush(*out, *n, y);
			}
		}
		return true;
	}
	if (in->kind == E_COMP && in->op != COMP_DICT) {
		/* each element written out with the names' values; a constant
		 * one as its value (in a subscript, a slice as lo:hi) */
		Comp c = { .e = in, .exprs = true };
		if (!comp_clause(S, &c, 0))
			return false;
		for (int i = 0; i < c.nout; i++) {
			Expr *y = c.out[i];
			Value *v = eval(S, y);
			if (IS_ERR(v))
				return false;
			if (is_const(v) && !(y = value_expr(S, v, y->pos, subscript)))
				return false;
			vpush(*out, *n, y);
		}
		return true;
	}
	Value *v = eval(S, in);
	if (IS_ERR(v))
		return false;
	if (!is_const(v)) {
		fail(S, in->pos, "'*' unpacks a compile-time constant sequence; '%s' is a runtime value", expr_str(in));
		return false;
	}
	Value **it;
	int m;
	if (!items_of(S, v, in->pos, &it, &m))
		return false;
	for (int i = 0; i < m; i++) {
		Expr *y = value_expr(S, it[i], in->pos, subscript);
		if (!y)
			return false;
		vpush(*out, *n, y);
	}
	return true;
}

static bool has_star(Expr **v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i]->kind == E_STAR)
			return true;
	return false;
}

/* Items with `*x` spread out. */
static bool spread(Sema *S, Expr ***v, int *n, bool subscript)
{
	if (!has_star(*v, *n))
		return true;
	Expr **out = NULL;
	int nout = 0;
	for (int i = 0; i < *n; i++) {
		Expr *x = (*v)[i];
		if (x->kind != E_STAR) {
			vpush(out, nout, x);
			continue;
		}
		if (x->op != 1) {
			fail(S, x->pos, "'**' unpacks a dict into a call's keywords or a dict");
			return false;
		}
		if (!splat(S, x, subscript, &out, &nout))
			return false;
	}
	*v = out;
	*n = nout;
	return true;
}

/* Whether a call has a `**d` keyword. */
static bool has_kw_splat(const Expr *call)
{
	for (int i = 0; i < call->nkws; i++)
		if (call->kws[i].name[0] == '*' && strcmp(call->kws[i].name, KW_SPLAT) == 0)
			return true;
	return false;
}

/* f(*a, **d): the arguments and keywords written out. */
bool expand_call(Sema *S, Expr *call)
{
	if (!has_star(call->args, call->nargs) && !has_kw_splat(call))
		return true; /* (most calls) */
	if (!spread(S, &call->args, &call->nargs, false))
		return false;
	if (!has_kw_splat(call))
		return true;
	Kw *old = call->kws;
	int n = call->nkws;
	call->kws = NULL;
	call->nkws = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(old[i].name, KW_SPLAT) != 0) {
			if (call_kw(call, old[i].name)) {
				fail(S, old[i].pos, "%s() got multiple values for keyword argument '%s'", expr_str(call->a), old[i].name);
				return false;
			}
			call_add_kw(call, old[i].name, old[i].value, old[i].pos);
			continue;
		}
		Value *d = eval(S, old[i].value);
		if (IS_ERR(d))
			return false;
		if (d && d->kind == V_DICT && d->macro) { /* T.meta_var({...}) in a kernel: its items */
			for (int k = 0; k < d->macro->nargs; k++) {
				Expr *it = d->macro->args[k];
				if (call_kw(call, it->a->str)) {
					fail(S, old[i].value->pos, "%s() got multiple values for keyword argument '%s'",
					     expr_str(call->a), it->a->str);
					return false;
				}
				call_add_kw(call, it->a->str, expr_copy(it->b), old[i].value->pos);
			}
			continue;
		}
		if (!is_const(d) || d->kind != V_DICT) {
			fail(S, old[i].value->pos, "'**' in a call unpacks a compile-time constant dict, not %s",
			     d ? value_kind_name(d) : "a runtime value");
			return false;
		}
		for (int k = 0; k < d->nelts; k++) {
			if (d->elts[k]->kind != V_STR) {
				fail(S, old[i].value->pos, "the keys of a dict unpacked into keywords are strings, not %s",
				     value_kind_name(d->elts[k]));
				return false;
			}
			const char *name = d->elts[k]->s;
			bool ident = (*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') || *name == '_';
			for (const char *c = name; *c && ident; c++)
				ident = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' || (*c >= '0' && *c <= '9');
			if (!ident) {
				fail(S, old[i].value->pos, "the key \"%s\" of '%s' is not a keyword name", name,
				     expr_str(old[i].value));
				return false;
			}
			if (call_kw(call, name)) {
				fail(S, old[i].value->pos, "%s() got multiple values for keyword argument '%s'", expr_str(call->a), name);
				return false;
			}
			Expr *x = value_expr(S, d->vals[k], old[i].value->pos, false);
			if (!x)
				return false;
			call_add_kw(call, name, x, old[i].pos);
		}
	}
	return true;
}

/* A literal or a name: nothing to rewrite (not entered: most operands are). */
static inline bool is_leaf(const Expr *e)
{
	switch (e->kind) {
	case E_INT: case E_FLOAT: case E_STR: case E_TRUE: case E_FALSE: case E_NONE: case E_NAME:
		return true;
	default:
		return false;
	}
}

static bool desugar_list(Sema *S, Expr **v, int n)
{
	for (int i = 0; i < n; i++)
		if (!is_leaf(v[i]) && !desugar(S, &v[i]))
			return false;
	return true;
}

/* Rewrites, in place, the Python of a kernel's expression into the text
 * it means: splats spread, getattr(X, "n") as X.n, builtins over
 * constants, comprehensions and f-strings as their values. False after
 * an error. */
/* TVM's T.ceildiv(a, b), b a positive constant: (a + b - 1) // b, the
 * arithmetic the proofs and the launcher already follow. */
static bool ceildiv(Sema *S, Expr **slot)
{
	Expr *e = *slot;
	if (e->nargs != 2 || e->nkws) {
		fail(S, e->pos, "T.ceildiv() takes two operands, a and b: (a + b - 1) // b");
		return false;
	}
	if (!desugar(S, &e->args[0]) || !desugar(S, &e->args[1]))
		return false;
	Value *b = eval_const(S, e->args[1], "the divisor of T.ceildiv()");
	if (IS_ERR(b))
		return false;
	if (b->kind != V_INT || b->i <= 0) {
		fail(S, e->args[1]->pos, "not supported yet: T.ceildiv() with a divisor that is not a positive integer "
		     "constant (%s); txc writes it (a + b - 1) // b", b->kind == V_INT ? xprintf("%lld", (long long)b->i) :
		     value_kind_name(b));
		return false;
	}
	Expr *sum = new_expr(E_BIN, e->pos), *div = new_expr(E_BIN, e->pos);
	sum->op = OP_ADD;
	sum->a = e->args[0];
	sum->b = ex_int(b->i - 1);
	sum->b->pos = e->args[1]->pos;
	div->op = OP_FLOORDIV;
	div->a = sum;
	div->b = e->args[1];
	*slot = div;
	return true;
}

/* TVM's T.floordiv(a, b) and T.floormod(a, b): txc's // and %, whose
 * rounding is Python's, floor, as theirs. */
static bool floordiv(Sema *S, Expr **slot, bool mod)
{
	Expr *e = *slot;
	if (e->nargs != 2 || e->nkws) {
		fail(S, e->pos, "T.%s() takes two operands, a and b: a %s b", mod ? "floormod" : "floordiv", mod ? "%" : "//");
		return false;
	}
	Expr *op = new_expr(E_BIN, e->pos);
	op->op = mod ? OP_MOD : OP_FLOORDIV;
	op->a = e->args[0];
	op->b = e->args[1];
	*slot = op;
	return desugar(S, slot);
}

/* Which of T.ceildiv, T.floordiv and T.floormod e calls: 1, 2, 3; 0 for
 * none (T the namespace, not a name the program bound). */
static int t_division(Sema *S, const Expr *e)
{
	if (e->a->kind != E_ATTR || (e->a->str[0] != 'c' && e->a->str[0] != 'f') || e->a->a->kind != E_NAME)
		return 0;
	int which = !strcmp(e->a->str, "ceildiv") ? 1 : !strcmp(e->a->str, "floordiv") ? 2 : !strcmp(e->a->str, "floormod") ? 3 : 0;
	if (!which)
		return 0;
	Sym *t = lookup(S, e->a->a->str);
	return t && t->val && !IS_ERR(t->val) && t->val->kind == V_NAMESPACE && strcmp(t->val->s, "T") == 0 ? which : 0;
}

/* T.ceildiv, T.floordiv or T.floormod where nothing desugars first (a
 * module-level constant): e rewritten in place into its operators. 1:
 * rewritten, 0: not such a call, -1: an error reported. */
int t_division_in_place(Sema *S, Expr *e)
{
	int which = e->kind == E_CALL ? t_division(S, e) : 0;
	if (!which)
		return 0;
	Expr *slot = e;
	bool ok = which == 1 ? ceildiv(S, &slot) : floordiv(S, &slot, which == 3);
	if (!ok)
		return -1;
	*e = *slot;
	return 1;
}

static bool desugar_node(Sema *S, Expr **slot) __attribute__((noinline)); /* kept out of desugar's frame */

bool desugar(Sema *S, Expr **slot)
{
	Expr *e = *slot;
	switch (e->kind) {
	case E_SLICE: case E_BIN: case E_UN: case E_CMP: case E_AND: case E_OR: case E_NOT: case E_COND:
	case E_ATTR: case E_PAIR:
		/* only their operands (here, not in desugar_node: most nodes are these) */
		return (!e->a || is_leaf(e->a) || desugar(S, &e->a)) && (!e->b || is_leaf(e->b) || desugar(S, &e->b)) &&
		       (!e->c || is_leaf(e->c) || desugar(S, &e->c));
	default:
		return is_leaf(e) || desugar_node(S, slot);
	}
}

static bool desugar_node(Sema *S, Expr **slot)
{
	Expr *e = *slot;
	Value *v;
	switch (e->kind) {
	case E_CALL:
		switch (t_division(S, e)) {
		case 1: return ceildiv(S, slot);
		case 2: return floordiv(S, slot, false);
		case 3: return floordiv(S, slot, true);
		}
		if (!desugar(S, &e->a))
			return false;
		if ((has_star(e->args, e->nargs) && !spread(S, &e->args, &e->nargs, false)) || !desugar_list(S, e->args, e->nargs))
			return false;
		if (!expand_call(S, e))
			return false;
		for (int i = 0; i < e->nkws; i++)
			if (!is_leaf(e->kws[i].value) && !desugar(S, &e->kws[i].value))
				return false;
		if (e->a->kind != E_NAME) {
			/* math.prod(...) is a builtin over constants; a member of a
			 * buffer (A.view, A.permute) is sema's */
			if (!S->opaque_bound)
				return true; /* no name is a module's that txc does not know */
			Expr *root = e->a;
			while (root->kind == E_ATTR)
				root = root->a;
			Sym *rs = root->kind == E_NAME ? lookup(S, root->str) : NULL;
			if (!rs || !rs->val || rs->val->kind != V_OPAQUE)
				return true;
		}
		v = eval(S, e->a);
		if (IS_ERR(v))
			return false;
		if (v && v->kind == V_PYFUNC)
			return helper_desugar(S, slot, v);
		if (!v || v->kind != V_FUNC || !is_py_builtin(v->intrin))
			return true;
		if (v->intrin == IN_PY_GETATTR && e->nargs == 2) {
			Value *name = eval_const(S, e->args[1], "the name getattr() takes");
			if (IS_ERR(name))
				return false;
			if (name->kind != V_STR) {
				fail(S, e->args[1]->pos, "getattr() takes the attribute's name as a string, not %s",
				     value_kind_name(name));
				return false;
			}
			Expr *a = new_expr(E_ATTR, e->args[1]->pos);
			a->a = e->args[0];
			a->str = name->s;
			if (IS_ERR(eval(S, a)))
				return false;
			*slot = a;
			return true;
		}
		if (v->intrin == IN_PY_DATATYPE)
			return true; /* a dtype with members (.bits): written as it is */
		v = py_call(S, e, v->intrin);
		if (IS_ERR(v))
			return false;
		break;
	case E_TUPLE: case E_LIST:
		if (!spread(S, &e->args, &e->nargs, false))
			return false;
		return desugar_list(S, e->args, e->nargs);
	case E_INDEX: {
		if (!desugar(S, &e->a))
			return false;
		/* A[(i, *s)] is A[i, *s] */
		if (e->nargs == 1 && e->args[0]->kind == E_TUPLE && has_star(e->args[0]->args, e->args[0]->nargs)) {
			e->nargs = e->args[0]->nargs;
			e->args = e->args[0]->args;
		}
		bool sugar = e->nargs == 1 && (e->args[0]->kind == E_CALL || e->args[0]->kind == E_COMP);
		if ((has_star(e->args, e->nargs) && !spread(S, &e->args, &e->nargs, true)) || !desugar_list(S, e->args, e->nargs))
			return false;
		if (sugar && e->args[0]->kind == E_TUPLE && e->args[0]->val == NULL) {
			/* a sequence built at compile time: one index per element */
			Value *t = eval(S, e->args[0]);
			if (IS_ERR(t))
				return false;
			if (is_const(t) && t->kind == V_TUPLE && t->nelts) {
				Expr **idx = xalloc(sizeof(Expr *) * (size_t)t->nelts);
				for (int i = 0; i < t->nelts; i++)
					if (!(idx[i] = value_expr(S, t->elts[i], e->args[0]->pos, true)))
						return false;
				e->args = idx;
				e->nargs = t->nelts;
			}
		}
		return true;
	}
	case E_STAR:
		fail(S, e->pos, e->op == 1 ? "'*' unpacks a sequence into a call, a tuple, a list or a subscript"
		                           : "'**' unpacks a dict into a call's keywords or a dict");
		return false;
	case E_COMP:
		v = eval(S, e);
		if (IS_ERR(v))
			return false;
		if (!v) {
			fail(S, e->pos, "a comprehension in a kernel makes a compile-time constant; this one has runtime "
			     "elements (spread it with '*' into a call, a tuple or a subscript)");
			return false;
		}
		break;
	case E_FSTR:
		v = eval(S, e);
		if (IS_ERR(v))
			return false;
		break;
	case E_DICT:
		for (int i = 0; i < e->nargs; i++) {
			Expr *x = e->args[i];
			if ((x->kind == E_PAIR && (!desugar(S, &x->a) || !desugar(S, &x->b))) ||
			    (x->kind == E_STAR && !desugar(S, &x->a)))
				return false;
		}
		return true;
	default: /* the operators and attributes are desugar's */
		return true;
	}
	Expr *x = value_expr(S, v, e->pos, false);
	if (!x)
		return false;
	*slot = x;
	return true;
}
