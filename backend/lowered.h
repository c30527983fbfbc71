/* What both backends (txc-cuda, txc-ptx) read from lowered IR in the same
 * way: the compile-time values of operands, and the bounds of an offset
 * that decide whether it is computed in 32 or 64 bits. */
#include "ir.h"

/* A backend's names: `name` as the backend has bound it, 'i' an integer
 * (in *iv), 's' a string (in *sv), 'o' anything else, 0 not bound there
 * (then the module's constants are looked at). */
typedef struct Low {
	const Module *m;
	void *g;
	int (*name)(void *g, const char *name, int64_t *iv, const char **sv);
	const char *prog;  /* for the internal errors of arg_int and kw_int */
} Low;

/* The integer value of e (a literal, a bound or module constant, + - * of
 * them, a cast of one); false if it has none. */
bool low_const_int(const Low *l, const Expr *e, int64_t *out);
/* The string value of e, or NULL. */
const char *low_const_str(const Low *l, const Expr *e);
/* Operand i / keyword kw of call e as an integer (dflt when absent): sema
 * has made it a constant, so none is an internal error. */
int64_t low_arg_int(const Low *l, const Expr *e, int i, int64_t dflt);
int64_t low_kw_int(const Low *l, const Expr *e, const char *kw, int64_t dflt);
/* The builtin a call expression names (-1: not a call). */
int low_call_id(const Expr *e);
/* Bounds of an offset, also through the swizzle's & ^ | << >>. */
bool low_range(const Expr *e, int64_t *lo, int64_t *hi);
/* Whether e and every subexpression stay within 32 bits. */
bool low_fits32(const Expr *e);
/* low_fits32 of e, in the same walk the low_range of each of the n nodes
 * at[] below e (out[i]: ok false where unknown). */
bool low_fits32_noting(const Expr *e, const Expr *const *at, int n, Range *out);
/* e's expr_range, low_range and (the result) low_fits32, in one walk */
bool low_facts_of(const Expr *e, Range *er, Range *lr);

static inline bool low_is_fp8(int dt) { return dt == DT_FP8E4M3 || dt == DT_FP8E5M2; }
static inline bool low_is_half(int dt) { return dt == DT_FLOAT16 || dt == DT_BFLOAT16; }
/* The dtype of a literal's weak type, as the backends declare it. */
static inline int low_concrete(int dt)
{
	return dt == DT_COUNT ? DT_INT32 : dt == DT_COUNT + 1 ? DT_FLOAT32 : dt < DT_COUNT ? dt : DT_NONE;
}
static inline bool low_known(int dt) { return dt > DT_NONE && dt < DT_COUNT; }

/* The grid for a file's comment: "(4096, 1, 1)", a run-time extent as
 * its expression and largest value: "((m + 15) // 16 <= 512, 1, 1)". */
const char *low_grid_str(const Func *f);
