/* Building expressions in passes: names, calls and arithmetic that folds
 * constants and drops the neutral elements, so that lowered code reads
 * like code a person would write. */
#include <stdint.h>
#include <string.h>

#include "ir.h"

static Pos nopos;

/* new_int and new_name, one call shallower (passes make many) */
Expr *ex_int(int64_t v)
{
	Expr *e = new_expr(E_INT, nopos);
	e->ival = v;
	return e;
}

/* An integer node shared by value, for the places whose callers say why
 * nothing is written into it but what is the same at every use (a long
 * kernel's passes write a few numbers thousands of times). The table only
 * remembers: a slot another value takes makes the next one anew. */
Expr *ex_int_shared(int64_t v)
{
	static Expr *made[64];
	Expr **slot = &made[(uint64_t)v * 0x9E3779B97F4A7C15u >> 58];
	if (!*slot || (*slot)->ival != v)
		*slot = ex_int(v);
	return *slot;
}

Expr *ex_name(const char *name)
{
	Expr *e = new_expr(E_NAME, nopos);
	e->str = name;
	return e;
}
Expr *ex_str(const char *s)
{
	Expr *e = new_expr(E_STR, nopos);
	e->str = s;
	return e;
}

static bool is_int(const Expr *e, int64_t v) { return e->kind == E_INT && e->ival == v; }

static Expr *bin(int op, Expr *a, Expr *b)
{
	Expr *e = new_expr(E_BIN, nopos);
	e->op = op;
	e->a = a;
	e->b = b;
	return e;
}

Expr *ex_add(Expr *a, Expr *b)
{
	int64_t r;
	if (is_int(a, 0))
		return b;
	if (is_int(b, 0))
		return a;
	if (a->kind == E_INT && b->kind == E_INT && add_ok(a->ival, b->ival, &r))
		return ex_int(r);
	if (b->kind == E_BIN && b->op == OP_ADD) /* a + (x + y) -> a + x + y */
		return ex_add(ex_add(a, b->a), b->b);
	return bin(OP_ADD, a, b);
}

Expr *ex_mul(Expr *a, Expr *b)
{
	int64_t r;
	if (is_int(a, 0) || is_int(b, 0))
		return ex_int(0);
	if (is_int(a, 1))
		return b;
	if (is_int(b, 1))
		return a;
	if (a->kind == E_INT && b->kind == E_INT && mul_ok(a->ival, b->ival, &r))
		return ex_int(r);
	/* (x * c1) * c2 -> x * (c1 * c2) */
	if (b->kind == E_INT && a->kind == E_BIN && a->op == OP_MUL && a->b->kind == E_INT &&
	    mul_ok(a->b->ival, b->ival, &r))
		return bin(OP_MUL, a->a, ex_int(r));
	return bin(OP_MUL, a, b);
}

/* Python's floor division and modulo, for folding constants. */
static int64_t floordiv(int64_t a, int64_t d) { return a / d - ((a % d != 0) && ((a < 0) != (d < 0))); }

Expr *ex_div(Expr *a, int64_t d)
{
	if (d == 1)
		return a;
	if (a->kind == E_INT && d != 0)
		return ex_int(floordiv(a->ival, d));
	return bin(OP_FLOORDIV, a, ex_int(d));
}

Expr *ex_mod(Expr *a, int64_t d)
{
	if (d == 1)
		return ex_int(0);
	if (a->kind == E_INT && d != 0)
		return ex_int(a->ival - floordiv(a->ival, d) * d);
	return bin(OP_MOD, a, ex_int(d));
}

Expr *ex_op(int op, Expr *a, Expr *b) { return bin(op, a, b); }

/* The parts of a dotted name ("T.cuda.copy_bytes" -> T, cuda, copy_bytes),
 * split once per name: passes make the same few calls thousands of times.
 * A slot is found by the name's address and kept only if its text is
 * still the same (strcmp), so a reused buffer gets its own parts; the
 * parts are copies, never changed, which any number of calls share. */
enum { DOTTED_SLOTS = 64, DOTTED_PARTS = 8 };
static struct Dotted {
	const char *key;   /* the address last split into this slot */
	char *text;        /* a copy of its text then */
	const char *part[DOTTED_PARTS];
	int nparts;
} dotted[DOTTED_SLOTS];

static const struct Dotted *dotted_parts(const char *fn)
{
	struct Dotted *d = &dotted[((uintptr_t)fn >> 3) % DOTTED_SLOTS];
	if (d->key == fn && strcmp(d->text, fn) == 0)
		return d;
	struct Dotted t = { .key = fn, .text = xstrdup(fn) };
	for (const char *p = fn; *p;) {
		size_t k = strcspn(p, ".");
		if (t.nparts == DOTTED_PARTS)
			return NULL;
		t.part[t.nparts++] = xstrndup(p, k);
		p += k + (p[k] == '.');
	}
	*d = t;
	return d;
}

Expr *ex_call(const char *fn, int n, Expr **args)
{
	/* "T.cuda.copy_bytes" -> T.cuda.copy_bytes as names and attributes */
	Expr *f = NULL;
	const struct Dotted *d = dotted_parts(fn);
	const char *p = fn;
	for (int i = 0; d ? i < d->nparts : *p != 0; i++) {
		const char *part;
		if (d) {
			part = d->part[i];
		} else { /* more parts than a slot holds */
			size_t k = strcspn(p, ".");
			part = xstrndup(p, k);
			p += k + (p[k] == '.');
		}
		if (!f) {
			f = ex_name(part);
		} else {
			Expr *a = new_expr(E_ATTR, nopos);
			a->a = f;
			a->str = part;
			f = a;
		}
	}
	Expr *c = new_call(nopos, f);
	expr_set_args(c, args, n);
	return c;
}

Expr *ex_index(Expr *base, int n, Expr **idx)
{
	Expr *e = new_expr(E_INDEX, nopos);
	e->a = base;
	expr_set_args(e, idx, n);
	return e;
}

/* a ^ (((a >> (M + S)) & mask) << M): the swizzle of ComposeLayout on a
 * storage offset, as an expression. */
Expr *ex_swizzle(const Layout *l, Expr *a)
{
	if (!l->swizzled)
		return a;
	if (a->kind == E_INT)
		return ex_int(layout_swizzle(l, a->ival));
	Expr *hi = bin(OP_SHR, a, ex_int(l->swz_m + l->swz_s));
	Expr *bits = bin(OP_BITAND, hi, ex_int(((int64_t)1 << l->swz_b) - 1));
	Expr *x = l->swz_m ? bin(OP_SHL, bits, ex_int(l->swz_m)) : bits;
	return bin(OP_BITXOR, a, x);
}
