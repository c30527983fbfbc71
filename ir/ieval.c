/* Integer expressions evaluated with Python's semantics (floor division
 * and modulo, shifts as multiplication by powers of two), for the passes
 * that ask what an expression is for one thread (dispatch's active
 * threads, --verify's addresses) and for constant folding. An overflow,
 * a division by zero or a negative shift count gives no value. */
#include <string.h>

#include "ir.h"

bool int_binop(int op, int64_t x, int64_t y, int64_t *out)
{
	switch (op) {
	case OP_ADD: return !__builtin_add_overflow(x, y, out);
	case OP_SUB: return !__builtin_sub_overflow(x, y, out);
	case OP_MUL: return !__builtin_mul_overflow(x, y, out);
	case OP_FLOORDIV: case OP_MOD: {
		if (y == 0 || (x == INT64_MIN && y == -1))
			return false;
		int64_t q = x / y, m = x % y;
		if (m != 0 && ((m < 0) != (y < 0))) {
			q--;
			m += y;
		}
		*out = op == OP_MOD ? m : q;
		return true;
	}
	case OP_SHL:
		if (y < 0 || (x != 0 && (y > 62 || !mul_ok(x, (int64_t)1 << y, out))))
			return false;
		if (x == 0)
			*out = 0;
		return true;
	case OP_SHR:
		if (y < 0)
			return false;
		*out = y > 63 ? (x < 0 ? -1 : 0) : x >> y;
		return true;
	case OP_BITAND: *out = x & y; return true;
	case OP_BITOR: *out = x | y; return true;
	case OP_BITXOR: *out = x ^ y; return true;
	case OP_LT: *out = x < y; return true;
	case OP_LE: *out = x <= y; return true;
	case OP_GT: *out = x > y; return true;
	case OP_GE: *out = x >= y; return true;
	case OP_EQ: *out = x == y; return true;
	case OP_NE: *out = x != y; return true;
	default: return false;
	}
}

static int worse(int a, int b) { return a > b ? a : b; }

int int_eval(const Expr *e, IntEnv *env, int64_t *out)
{
	if (--env->budget < 0)
		return IV_UNKNOWN;
	if (e->kind == E_INT || e->kind == E_TRUE || e->kind == E_FALSE) {
		*out = e->kind == E_INT ? e->ival : e->kind == E_TRUE;
		return IV_KNOWN;
	}
	if (e->val && (e->val->kind == V_INT || e->val->kind == V_BOOL)) {
		*out = e->val->i;
		return IV_KNOWN;
	}
	int64_t a = 0, b = 0;
	int ka, kb;
	switch (e->kind) {
	case E_NAME: {
		int k = env->name ? env->name(env, e, out) : IV_UNKNOWN;
		if (k != IV_FOLLOW)
			return k;
		return e->var && e->var->def ? int_eval(e->var->def, env, out) : IV_UNKNOWN;
	}
	case E_NOT:
		ka = int_eval(e->a, env, &a);
		*out = !a;
		return ka;
	case E_UN:
		ka = int_eval(e->a, env, &a);
		if (ka == IV_KNOWN && e->op == OP_NEG && a == INT64_MIN)
			return IV_UNKNOWN;
		*out = e->op == OP_NEG ? -a : e->op == OP_INVERT ? ~a : a;
		return ka;
	case E_AND: case E_OR: /* short-circuit, as the code runs */
		ka = int_eval(e->a, env, &a);
		if (ka == IV_KNOWN && (e->kind == E_AND) != (a != 0)) {
			*out = a != 0;
			return IV_KNOWN;
		}
		kb = int_eval(e->b, env, &b);
		*out = b != 0;
		return worse(ka, kb);
	case E_BIN: case E_CMP:
		ka = int_eval(e->a, env, &a);
		kb = int_eval(e->b, env, &b);
		if (ka != IV_KNOWN || kb != IV_KNOWN)
			return worse(ka, kb);
		return int_binop(e->op, a, b, out) ? IV_KNOWN : IV_UNKNOWN;
	case E_CALL:
		/* T.cast(x, "int64") or "int32" (TVM's promotion of mixed
		 * integers): uniform where x is; a known value that the dtype
		 * does not keep is unknown */
		if (e->intrin == IN_CAST && e->nargs == 2 && e->args[1]->kind == E_STR &&
		    (!strcmp(e->args[1]->str, "int64") || !strcmp(e->args[1]->str, "int32"))) {
			ka = int_eval(e->args[0], env, out);
			if (ka == IV_KNOWN && e->args[1]->str[3] == '3' && (*out < INT32_MIN || *out > INT32_MAX))
				return IV_UNKNOWN;
			return ka;
		}
		return IV_UNKNOWN;
	default:
		return IV_UNKNOWN;
	}
}

/* A condition's names for thread tid (ctx, an int64_t): thread launch ids
 * are known, grid ones the same for every thread of the CTA, a let-bound
 * name its definition, a loop variable or parameter uniform, and a variable
 * assigned at run time (perhaps per thread) unknown. The evaluator's budget
 * keeps chains of definitions that use the previous one twice from taking
 * exponential time; past it the answer is unknown, which the callers treat
 * as "cannot tell" rather than guess. */
int int_thread_name(IntEnv *env, const Expr *e, int64_t *out)
{
	if (!e->var || (e->var->mut && e->var->varying))
		return IV_UNKNOWN;
	if (e->var->mut) /* the same in every thread (sema.c, mut_uniform) */
		return IV_UNIFORM;
	if (grid_launch(e->var->launch))
		return IV_UNIFORM;
	if (thread_launch(e->var->launch)) {
		*out = launch_value(thread_launch(e->var->launch), *(const int64_t *)env->ctx);
		return IV_KNOWN;
	}
	return e->var->def ? IV_FOLLOW : IV_UNIFORM;
}
