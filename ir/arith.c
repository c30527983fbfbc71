/* Integer facts about index expressions, read off the expressions that
 * sema has annotated (each name knows its constant value or its Var): the
 * range of values, whether a difference is constant, and which numbers
 * provably divide a value. Later passes ask these to pick vector widths. */
#include <string.h>

#include "ir.h"

static inline __attribute__((always_inline)) bool range_step(const Expr *e, const Range *r, int64_t *lo, int64_t *hi);

/* The bounds of a literal or a name (a leaf). */
static inline bool leaf_range(const Expr *e, int64_t *lo, int64_t *hi)
{
	if (e->kind == E_INT) {
		*lo = *hi = e->ival;
		return true;
	}
	if (e->val && e->val->kind == V_INT) {
		*lo = *hi = e->val->i;
		return true;
	}
	if (e->var && e->var->hi > e->var->lo) {
		*lo = e->var->lo;
		*hi = e->var->hi - 1;
		return true;
	}
	return false;
}

/* The integer dtype of T.cast(x, "int32") (any integer dtype but
 * uint64) or of its constructor T.int32(x), T.uint32(x), ...: the value
 * itself where x's range fits the dtype (txc-lower narrows a region's
 * start of a 64-bit loop variable so; a uint32 loop's bound is
 * T.uint32(n)); DT_NONE for another expression. */
static int int_cast_dtype(const Expr *e)
{
	if (e->kind != E_CALL)
		return DT_NONE;
	int dt = DT_NONE;
	if (e->intrin == IN_CAST) {
		if (e->nargs != 2 || e->args[1]->kind != E_STR)
			return DT_NONE;
		dt = dtype_lookup(e->args[1]->str);
	} else { /* the dtype's constructor */
		call_builtin(e, NULL, &dt);
		if (e->nargs != 1 || e->nkws)
			return DT_NONE;
	}
	if (dt <= DT_NONE || dt >= DT_COUNT || (dtypes[dt].kind != DK_INT && dtypes[dt].kind != DK_UINT) ||
	    (dtypes[dt].kind == DK_UINT && dtypes[dt].bits == 64))
		return DT_NONE;
	return dt;
}

static bool int_cast(const Expr *e) { return int_cast_dtype(e) != DT_NONE; }

/* The smallest and the largest value of int_cast e's dtype. */
static void cast_bounds(const Expr *e, int64_t *lo, int64_t *hi)
{
	int dt = int_cast_dtype(e), bits = dtypes[dt].bits;
	if (dtypes[dt].kind == DK_UINT) {
		*lo = 0;
		*hi = (int64_t)((UINT64_C(1) << bits) - 1);
	} else {
		*hi = bits == 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
		*lo = -*hi - 1;
	}
}

/* Inclusive bounds of an integer expression from the ranges of launch ids
 * and loop variables; false when unknown. The operands' bounds first (only
 * those expr_range_step reads), then the step; an operand that is a leaf
 * is read here, without a call (most are). */
bool expr_range(const Expr *e, int64_t *lo, int64_t *hi)
{
	static const Range none[2];
	Range r[2];
	const Expr *x = NULL, *y = NULL;
	switch (e->kind) {
	case E_COND: x = e->b, y = e->c; break;
	case E_UN: if (e->op == OP_NEG) x = e->a; break;
	case E_BIN: x = e->a, y = e->b; break;
	case E_CALL:
		if ((e->intrin == IN_MIN || e->intrin == IN_MAX) && e->nargs == 2)
			x = e->args[0], y = e->args[1];
		else if (int_cast(e))
			x = e->args[0];
		break;
	default: return range_step(e, none, lo, hi); /* a leaf */
	}
	r[0] = r[1] = none[0];
	if (x && !(r[0].ok = x->kind == E_INT || x->kind == E_NAME ? leaf_range(x, &r[0].lo, &r[0].hi) :
	                     expr_range(x, &r[0].lo, &r[0].hi)))
		return false;
	if (y && !(r[1].ok = y->kind == E_INT || y->kind == E_NAME ? leaf_range(y, &r[1].lo, &r[1].hi) :
	                     expr_range(y, &r[1].lo, &r[1].hi)))
		return false;
	return range_step(e, r, lo, hi);
}

/* One node of expr_range: e's bounds from its operands' bounds r[0], r[1]
 * (E_BIN a and b, E_UN a, E_COND b and c, E_CALL its two arguments), so
 * that a caller that wants every node's bounds computes each once. */
bool expr_range_step(const Expr *e, const Range *r, int64_t *lo, int64_t *hi) { return range_step(e, r, lo, hi); }

/* range_step of a binary node (inlined into range_step and into
 * expr_range_multiple, which knows the node is one) */
static inline __attribute__((always_inline)) bool range_bin(const Expr *e, const Range *r, int64_t *lo, int64_t *hi)
{
	int64_t a0 = r[0].lo, a1 = r[0].hi, b0 = r[1].lo, b1 = r[1].hi;
	if (!r[0].ok || !r[1].ok)
		return false;
	switch (e->op) {
	case OP_ADD:
		return !__builtin_add_overflow(a0, b0, lo) && !__builtin_add_overflow(a1, b1, hi);
	case OP_SUB:
		return !__builtin_sub_overflow(a0, b1, lo) && !__builtin_sub_overflow(a1, b0, hi);
	case OP_MUL: {
		int64_t c[4];
		if (b0 == b1 || a0 == a1) { /* a constant factor (most are): two distinct products */
			int64_t x = b0 == b1 ? b0 : a0, u = b0 == b1 ? a0 : b0, v = b0 == b1 ? a1 : b1;
			if (__builtin_mul_overflow(u, x, &c[0]) || __builtin_mul_overflow(v, x, &c[1]))
				return false;
			*lo = c[0] < c[1] ? c[0] : c[1];
			*hi = c[0] < c[1] ? c[1] : c[0];
			return true;
		}
		if (__builtin_mul_overflow(a0, b0, &c[0]) || __builtin_mul_overflow(a0, b1, &c[1]) ||
		    __builtin_mul_overflow(a1, b0, &c[2]) || __builtin_mul_overflow(a1, b1, &c[3]))
			return false;
		*lo = *hi = c[0];
		for (int i = 1; i < 4; i++) {
			*lo = c[i] < *lo ? c[i] : *lo;
			*hi = c[i] > *hi ? c[i] : *hi;
		}
		return true;
	}
	case OP_FLOORDIV:
		if (b0 <= 0 || a0 < 0)
			return false;
		*lo = a0 / b1;
		*hi = a1 / b0;
		return true;
	case OP_MOD:
		if (b0 <= 0 || a0 < 0)
			return false;
		if (b0 != b1) { /* a run-time divisor: below it, and never above a */
			*lo = 0;
			*hi = a1 < b1 - 1 ? a1 : b1 - 1;
			return true;
		}
		*lo = a1 - a0 + 1 >= b0 || a0 % b0 > a1 % b0 ? 0 : a0 % b0;
		*hi = a1 - a0 + 1 >= b0 || a0 % b0 > a1 % b0 ? b0 - 1 : a1 % b0;
		return true;
	case OP_SHL:
		if (b0 != b1 || b0 < 0 || b0 > 62 || a0 < 0 || a1 > (INT64_MAX >> b0))
			return false;
		*lo = a0 << b0;
		*hi = a1 << b0;
		return true;
	case OP_SHR:
		if (b0 != b1 || b0 < 0 || b0 > 63 || a0 < 0)
			return false;
		*lo = a0 >> b0;
		*hi = a1 >> b0;
		return true;
	}
	/* bitwise, of non-negative values */
	if (a0 < 0 || b0 < 0)
		return false;
	switch (e->op) {
	case OP_BITAND:
		*lo = 0;
		*hi = a1 < b1 ? a1 : b1;
		return true;
	case OP_BITOR: case OP_BITXOR: {
		/* only the bits below the smaller operand's top bit change
		 * in the larger one: a ^ b and a | b stay in its block */
		int64_t big0 = a1 >= b1 ? a0 : b0, big1 = a1 >= b1 ? a1 : b1, small = a1 >= b1 ? b1 : a1;
		int64_t mask = 0;
		while (mask < small)
			mask = mask * 2 + 1;
		*lo = e->op == OP_BITOR ? big0 : big0 & ~mask;
		*hi = big1 | mask;
		return true;
	}
	}
	return false;
}

/* (inlined into expr_range, which sema asks at every access) */
static inline bool range_step(const Expr *e, const Range *r, int64_t *lo, int64_t *hi)
{
	int64_t a0 = r[0].lo, a1 = r[0].hi, b0 = r[1].lo, b1 = r[1].hi;
	switch (e->kind) {
	case E_INT: case E_NAME:
		return leaf_range(e, lo, hi);
	case E_COND: /* b if a else c: either */
		if (!r[0].ok || !r[1].ok)
			return false;
		*lo = a0 < b0 ? a0 : b0;
		*hi = a1 > b1 ? a1 : b1;
		return true;
	case E_UN:
		if (e->op != OP_NEG || !r[0].ok || a0 == INT64_MIN)
			return false;
		*lo = -a1;
		*hi = -a0;
		return true;
	case E_BIN:
		return range_bin(e, r, lo, hi);
	case E_CALL: /* T.min, T.max; T.cast to int32 or int64 of a value it keeps */
		if (int_cast(e)) {
			int64_t bot, top;
			cast_bounds(e, &bot, &top);
			if (!r[0].ok || a0 < bot || a1 > top)
				return false;
			*lo = a0;
			*hi = a1;
			return true;
		}
		if ((e->intrin != IN_MIN && e->intrin != IN_MAX) || e->nargs != 2 || !r[0].ok || !r[1].ok)
			return false;
		*lo = (e->intrin == IN_MIN) == (a0 < b0) ? a0 : b0;
		*hi = (e->intrin == IN_MIN) == (a1 < b1) ? a1 : b1;
		return true;
	default:
		return false;
	}
}

/* A polynomial in the atoms of an index expression (names and opaque
 * subexpressions), enough to see that `hi - lo` of a slice is a constant. */
typedef struct Term { int64_t coef; const char *key; } Term;
typedef struct Poly { Term *t; int n; bool ok; } Poly;

static void poly_add_term(Poly *p, int64_t c, const char *key)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->t[i].key, key) == 0) {
			if (!add_ok(p->t[i].coef, c, &p->t[i].coef))
				p->ok = false;
			return;
		}
	p->t = xrealloc(p->t, sizeof(Term) * (size_t)p->n, sizeof(Term) * (size_t)(p->n + 1));
	p->t[p->n++] = (Term){ c, key };
}

static const char *key_mul(const char *a, const char *b)
{
	if (!*a)
		return b;
	if (!*b)
		return a;
	return strcmp(a, b) <= 0 ? xprintf("%s*%s", a, b) : xprintf("%s*%s", b, a);
}

static Poly poly(const Expr *e)
{
	Poly p = { NULL, 0, true };
	if (e->kind == E_INT || (e->val && e->val->kind == V_INT)) {
		poly_add_term(&p, e->kind == E_INT ? e->ival : e->val->i, "");
		return p;
	}
	if (e->kind == E_BIN && (e->op == OP_ADD || e->op == OP_SUB)) {
		Poly a = poly(e->a), b = poly(e->b);
		for (int i = 0; i < b.n; i++) {
			if (e->op == OP_SUB && b.t[i].coef == INT64_MIN)
				a.ok = false;
			poly_add_term(&a, e->op == OP_SUB ? -b.t[i].coef : b.t[i].coef, b.t[i].key);
		}
		a.ok = a.ok && b.ok;
		return a;
	}
	if (e->kind == E_BIN && e->op == OP_MUL) {
		Poly a = poly(e->a), b = poly(e->b);
		p.ok = a.ok && b.ok;
		for (int i = 0; i < a.n; i++)
			for (int j = 0; j < b.n; j++) {
				int64_t c;
				if (!mul_ok(a.t[i].coef, b.t[j].coef, &c))
					p.ok = false;
				poly_add_term(&p, c, key_mul(a.t[i].key, b.t[j].key));
			}
		return p;
	}
	if (e->kind == E_UN && e->op == OP_NEG) {
		Poly a = poly(e->a);
		for (int i = 0; i < a.n; i++)
			a.t[i].coef = -a.t[i].coef;
		return a;
	}
	poly_add_term(&p, 1, xprintf("(%s)", expr_str(e)));
	return p;
}

/* The value of a constant, as poly reads it. */
static bool poly_const(const Expr *e, int64_t *c)
{
	if (e->kind != E_INT && !(e->val && e->val->kind == V_INT))
		return false;
	*c = e->kind == E_INT ? e->ival : e->val->i;
	return true;
}

bool expr_const_diff(const Expr *hi, const Expr *lo, int64_t *out)
{
	int64_t h, l, d;
	if (poly_const(hi, &h) && poly_const(lo, &l) && l != INT64_MIN) { /* two constants (most slices) */
		if (__builtin_add_overflow(h, -l, &d))
			return false;
		*out = d;
		return true;
	}
	Poly a = poly(hi), b = poly(lo);
	for (int i = 0; i < b.n; i++)
		poly_add_term(&a, -b.t[i].coef, b.t[i].key);
	if (!a.ok || !b.ok)
		return false;
	*out = 0;
	for (int i = 0; i < a.n; i++) {
		if (a.t[i].coef == 0)
			continue;
		if (*a.t[i].key)
			return false;
		*out = a.t[i].coef;
	}
	return true;
}

static int64_t gcd(int64_t a, int64_t b)
{
	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The largest power of two dividing m (m = 0: every power; 2^62 here). */
static int64_t pow2_part(int64_t m)
{
	if (m == 0 || m == INT64_MIN)
		return (int64_t)1 << 62;
	return m & -m;
}

/* What expr_multiple says of the constant v. */
static int64_t const_multiple(int64_t v)
{
	return v == INT64_MIN ? (int64_t)1 << 62 : v < 0 ? -v : v;
}

/* Whether expr_multiple of a binary node reads its right operand's. */
static bool reads_right(int op)
{
	return op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_BITXOR || op == OP_BITOR || op == OP_BITAND;
}

/* expr_multiple of binary node e (not a constant) from its operands': a,
 * and b where reads_right. (inlined: expr_range_multiple asks it at every
 * node) */
static inline __attribute__((always_inline)) int64_t bin_multiple(const Expr *e, int64_t a, int64_t b)
{
	int64_t r;
	switch (e->op) {
	case OP_ADD: case OP_SUB:
		return gcd(a, b);
	case OP_MUL:
		if (!__builtin_mul_overflow(a, b, &r)) /* mul_ok, without its call */
			return r;
		return a ? a : b; /* still a divisor, if not the best */
	case OP_SHL:
		if (e->b->kind == E_INT && e->b->ival >= 0 && e->b->ival < 62 && mul_ok(a, (int64_t)1 << e->b->ival, &r))
			return r;
		return a;
	case OP_MOD:
		/* a - c * (a // c): a multiple of what divides both a and c */
		if (e->b->kind == E_INT && e->b->ival > 0)
			return gcd(a, e->b->ival);
		return 1;
	case OP_SHR:
		/* the power of two in a, less the bits shifted out */
		if (e->b->kind == E_INT && e->b->ival >= 0 && e->b->ival < 63 && pow2_part(a) >> e->b->ival)
			return pow2_part(a) >> e->b->ival;
		return 1;
	case OP_BITXOR: case OP_BITOR:
		/* low zero bits common to both stay zero */
		b = pow2_part(b);
		a = pow2_part(a);
		return a < b ? a : b;
	case OP_BITAND:
		/* low zero bits of either stay zero */
		b = pow2_part(b);
		a = pow2_part(a);
		return a > b ? a : b;
	default:
		return 1;
	}
}

/* A number that provably divides e; 0 when e is 0 (every number divides
 * it), 1 when nothing better is known. Sums take the gcd, products the
 * product; a name has what is known of it (a loop variable steps by
 * multiples, a let-bound name is a multiple of what its value is). */
int64_t expr_multiple(const Expr *e)
{
	if (e->kind == E_INT || (e->val && e->val->kind == V_INT))
		return const_multiple(e->kind == E_INT ? e->ival : e->val->i);
	switch (e->kind) {
	case E_NAME:
		/* a let-bound name carries the multiple of its value (sema.c), so
		 * that chains of definitions are not walked again, exponentially */
		return e->var && e->var->mult ? e->var->mult : 1;
	case E_UN:
		return e->op == OP_NEG ? expr_multiple(e->a) : 1;
	case E_COND:
		return gcd(expr_multiple(e->b), expr_multiple(e->c));
	case E_CALL: { /* a cast that keeps the value keeps its divisors */
		int64_t lo, hi;
		return int_cast(e) && expr_range(e, &lo, &hi) ? expr_multiple(e->args[0]) : 1;
	}
	case E_BIN: {
		int64_t a = expr_multiple(e->a);
		return bin_multiple(e, a, reads_right(e->op) ? expr_multiple(e->b) : 0);
	}
	default:
		return 1;
	}
}

/* expr_range_multiple of a literal or a name (inlined: most operands are). */
static inline bool leaf_facts(const Expr *e, int64_t *lo, int64_t *hi, int64_t *mult)
{
	if (e->kind == E_INT) {
		*mult = const_multiple(e->ival);
		*lo = *hi = e->ival;
		return true;
	}
	*mult = e->val && e->val->kind == V_INT ? const_multiple(e->val->i) : e->var && e->var->mult ? e->var->mult : 1;
	return leaf_range(e, lo, hi);
}

static bool bin_range_multiple(const Expr *e, int64_t *lo, int64_t *hi, int64_t *mult);

/* expr_range_multiple of an operand: a leaf here, a binary node without
 * asking its kind again (inlined: most operands are one or the other) */
static inline __attribute__((always_inline)) bool operand_facts(const Expr *x, int64_t *lo, int64_t *hi, int64_t *mult)
{
	if (x->kind == E_INT || x->kind == E_NAME)
		return leaf_facts(x, lo, hi, mult);
	if (x->kind == E_BIN)
		return bin_range_multiple(x, lo, hi, mult);
	*mult = expr_multiple(x);
	return expr_range(x, lo, hi);
}

/* A chain: e = ((x op1 k1) op2 k2) ... opn kn, n >= 2 binary nodes whose
 * right operands are literals, x a name. A digit of a lowered access's
 * offset is one (tid % 8 * 8, tid // 8 * 64), a node that every access of
 * a kernel shares (variants/lowering.c, on shared nodes), and check_access
 * asks its facts again at each. What bin_range_multiple finds for a chain
 * depends only on the operators, the literals, whether a node or x has a
 * constant value (val), and x's Var: its range and its divisor. The memo
 * keeps, of a chain without values whose x has a Var, those inputs and
 * the answer; a hit is a chain whose inputs read the same now, so the
 * walk would find the same. The set is chosen by e's address alone,
 * which only makes hits likely; anything else is a miss, walked as
 * before. Two ways a set (the newer first), so that two chains whose
 * addresses meet in a set (in some runs) both stay. */
enum { FACTS_MAX = 4 };
static struct Facts {
	const Expr *e;
	int n;
	signed char op[FACTS_MAX];
	int64_t k[FACTS_MAX];       /* node i's literal, counted from e */
	const Var *x;
	int64_t x_lo, x_hi, x_mult; /* x's Var's, read by leaf_facts */
	bool ok;
	int64_t lo, hi, mult;
} facts[32][2];

static struct Facts *facts_set(const Expr *e)
{
	return facts[((uintptr_t)e >> 4) * 0x9E3779B97F4A7C15u >> 59];
}

/* Whether chain e's inputs are those facts f was found from. */
static bool facts_same(const struct Facts *f, const Expr *e)
{
	const Expr *x = e;
	for (int i = 0; i < f->n; i++, x = x->a)
		if (x->kind != E_BIN || x->op != f->op[i] || x->val || x->b->kind != E_INT || x->b->ival != f->k[i])
			return false;
	return x->kind == E_NAME && !x->val && x->var == f->x && f->x && x->var->lo == f->x_lo &&
	       x->var->hi == f->x_hi && x->var->mult == f->x_mult;
}

/* Keeps what bin_range_multiple found for e, when e is a chain. */
static void facts_put(const Expr *e, bool ok, int64_t lo, int64_t hi, int64_t mult)
{
	struct Facts f = { .e = e, .ok = ok, .lo = lo, .hi = hi, .mult = mult };
	const Expr *x = e;
	for (; x->kind == E_BIN; x = x->a) {
		if (f.n == FACTS_MAX || x->val || x->b->kind != E_INT)
			return;
		f.op[f.n] = (signed char)x->op;
		f.k[f.n++] = x->b->ival;
	}
	if (f.n < 2 || x->kind != E_NAME || x->val || !x->var)
		return;
	f.x = x->var;
	f.x_lo = x->var->lo;
	f.x_hi = x->var->hi;
	f.x_mult = x->var->mult;
	struct Facts *w = facts_set(e);
	if (w[0].e != e)
		w[1] = w[0]; /* the newer of the two moves to the second way */
	w[0] = f;
}

/* expr_range_multiple of binary node e */
static bool bin_range_multiple(const Expr *e, int64_t *lo, int64_t *hi, int64_t *mult)
{
	Range r[2];
	int64_t a, b;
	bool chain = e->b->kind == E_INT && e->a->kind == E_BIN;
	if (chain) {
		const struct Facts *f = facts_set(e);
		if (f->e != e)
			f++;
		if (f->e == e && facts_same(f, e)) {
			*lo = f->lo;
			*hi = f->hi;
			*mult = f->mult;
			return f->ok;
		}
	}
	r[0].ok = operand_facts(e->a, &r[0].lo, &r[0].hi, &a);
	r[1].ok = operand_facts(e->b, &r[1].lo, &r[1].hi, &b);
	*mult = e->val && e->val->kind == V_INT ? const_multiple(e->val->i) : bin_multiple(e, a, b);
	bool ok = r[0].ok && r[1].ok && range_bin(e, r, lo, hi);
	if (chain)
		facts_put(e, ok, ok ? *lo : 0, ok ? *hi : 0, *mult);
	return ok;
}

/* expr_range and expr_multiple in one walk: each binary node's operands
 * are visited once for both (the two are pure, and a node whose bounds
 * are unknown still has a multiple). */
bool expr_range_multiple(const Expr *e, int64_t *lo, int64_t *hi, int64_t *mult)
{
	return operand_facts(e, lo, hi, mult);
}

bool expr_divisible(const Expr *e, int64_t n)
{
	int64_t m = expr_multiple(e);
	return n != 0 && m % n == 0;
}
