/* The reading of lowered IR that txc-cuda and txc-ptx share (lowered.h). */
#include "lowered.h"

bool low_const_int(const Low *l, const Expr *e, int64_t *out)
{
	int64_t a, b;
	int dt;
	if (e->val && (e->val->kind == V_INT || e->val->kind == V_BOOL)) {
		*out = e->val->i;
		return true;
	}
	switch (e->kind) {
	case E_INT: *out = e->ival; return true;
	case E_TRUE: case E_FALSE: *out = e->kind == E_TRUE; return true;
	case E_NAME: {
		int64_t iv = 0;
		const char *sv;
		int k = l->name(l->g, e->str, &iv, &sv);
		Value *v = k ? NULL : module_value(l->m, e->str);
		if (k == 'i')
			*out = iv;
		else if (v && (v->kind == V_INT || v->kind == V_BOOL))
			*out = v->i;
		else
			return false;
		return true;
	}
	case E_UN:
		if (e->op != OP_NEG || !low_const_int(l, e->a, &a) || a == INT64_MIN)
			return false;
		*out = -a;
		return true;
	case E_BIN:
		if (!low_const_int(l, e->a, &a) || !low_const_int(l, e->b, &b))
			return false;
		if (e->op == OP_ADD)
			return add_ok(a, b, out);
		if (e->op == OP_MUL)
			return mul_ok(a, b, out);
		return e->op == OP_SUB && !__builtin_sub_overflow(a, b, out);
	case E_CALL:
		return (call_builtin(e, NULL, &dt) == IN_CAST || dt) && e->nargs >= 1 && low_const_int(l, e->args[0], out);
	default:
		return false;
	}
}

const char *low_const_str(const Low *l, const Expr *e)
{
	if (e->val && e->val->kind == V_STR) /* sema's value of a string operand */
		return e->val->s;
	if (e->kind == E_STR)
		return e->str;
	if (e->kind != E_NAME)
		return NULL;
	int64_t iv;
	const char *sv = NULL;
	int k = l->name(l->g, e->str, &iv, &sv);
	if (k)
		return k == 's' ? sv : NULL;
	Value *v = module_value(l->m, e->str);
	return v && v->kind == V_STR ? v->s : NULL;
}

int64_t low_arg_int(const Low *l, const Expr *e, int i, int64_t dflt)
{
	int64_t v = dflt;
	if (i < e->nargs && !low_const_int(l, e->args[i], &v))
		die("%s: operand %d of %s is not a constant, and sema let it through", l->prog, i + 1, expr_str(e->a));
	return v;
}

int64_t low_kw_int(const Low *l, const Expr *e, const char *kw, int64_t dflt)
{
	int64_t v = dflt;
	Kw *k = call_kw(e, kw);
	if (k && !low_const_int(l, k->value, &v))
		die("%s: %s= of %s is not a constant, and sema let it through", l->prog, kw, expr_str(e->a));
	return v;
}

int low_call_id(const Expr *e)
{
	int dt;
	return e->kind == E_CALL ? call_builtin(e, NULL, &dt) : -1;
}

/* low_range's step at a binary node whose expr_range is unknown: shifts and
 * bitwise operations of non-negative operands, from their low_range. */
static bool low_range_step(const Expr *e, const Range *r, int64_t *lo, int64_t *hi)
{
	int64_t a0 = r[0].lo, a1 = r[0].hi, b0 = r[1].lo, b1 = r[1].hi;
	if (e->kind != E_BIN || !r[0].ok || !r[1].ok || a0 < 0 || b0 < 0)
		return false;
	switch (e->op) {
	case OP_SHR: *lo = b1 > 62 ? 0 : a0 >> b1; *hi = b0 > 62 ? 0 : a1 >> b0; return true;
	case OP_SHL: *lo = a0; return b1 < 31 && a1 < ((int64_t)1 << 31) && (*hi = a1 << b1, true);
	case OP_BITAND: *lo = 0; *hi = a1 < b1 ? a1 : b1; return true;
	case OP_BITXOR: case OP_BITOR:
		*lo = 0;
		for (*hi = 1; *hi <= a1 || *hi <= b1; *hi *= 2)
			if (*hi > ((int64_t)1 << 61))
				return false;
		*hi -= 1;
		return true;
	}
	return false;
}

/* What low_range and low_fits32 know of e, every node visited once (asking
 * expr_range again at each node of an offset was work of its size times
 * its depth): *er its expr_range, *lr its low_range, the result its
 * low_fits32; written in place, no facts copied on the way up. With nt,
 * also noting the low_range of each of the n nodes at[] met on the way
 * (out[i]; untouched for one not met). */
typedef struct Noting {
	const Expr *const *at;
	int n;
	Range *out;
} Noting;

static bool low_facts_noting(const Expr *e, const Noting *nt, Range *er, Range *lr)
{
	bool fits;
	*er = (Range){ 0, 0, false };
	if (e->kind == E_BIN || (e->kind == E_UN && e->op == OP_NEG)) {
		Range oer[2] = { { 0, 0, false }, { 0, 0, false } }, olr[2] = { { 0, 0, false }, { 0, 0, false } };
		fits = low_facts_noting(e->a, nt, &oer[0], &olr[0]);
		if (e->kind == E_BIN) {
			bool fb = low_facts_noting(e->b, nt, &oer[1], &olr[1]);
			fits = fits && fb;
		}
		er->ok = expr_range_step(e, oer, &er->lo, &er->hi);
		*lr = *er;
		if (!lr->ok)
			lr->ok = low_range_step(e, olr, &lr->lo, &lr->hi);
	} else {
		er->ok = expr_range(e, &er->lo, &er->hi);
		*lr = *er;
		fits = true;  /* a leaf, or bounds expr_range_step does not read below it */
	}
	fits = fits && lr->ok && lr->lo >= INT32_MIN && lr->hi <= INT32_MAX;
	for (int i = 0; nt && i < nt->n; i++)
		if (nt->at[i] == e)
			nt->out[i] = *lr;
	return fits;
}

bool low_range(const Expr *e, int64_t *lo, int64_t *hi)
{
	Range er, lr;
	low_facts_noting(e, NULL, &er, &lr);
	*lo = lr.lo, *hi = lr.hi;
	return lr.ok;
}

bool low_fits32(const Expr *e)
{
	Range er, lr;
	return low_facts_noting(e, NULL, &er, &lr);
}

bool low_fits32_noting(const Expr *e, const Expr *const *at, int n, Range *out)
{
	Noting nt = { at, n, out };
	Range er, lr;
	return low_facts_noting(e, &nt, &er, &lr);
}

bool low_facts_of(const Expr *e, Range *er, Range *lr) { return low_facts_noting(e, NULL, er, lr); }

const char *low_grid_str(const Func *f)
{
	Buf b = {0};
	for (int d = 0; d < 3; d++) {
		if (f->grid_dyn[d])
			bprintf(&b, "%s%s <= %lld", d ? ", " : "(", expr_str(f->grid_dyn[d]), (long long)f->grid[d]);
		else
			bprintf(&b, "%s%lld", d ? ", " : "(", (long long)f->grid[d]);
	}
	bputs(&b, ")");
	return b.s;
}
