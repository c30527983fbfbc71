/* Runtime scalars and regions: the dtype of every expression a thread
 * computes (literals take the other operand's), buffer elements with their
 * bounds, and the regions tile ops take, with symbolic starts. */
#include <string.h>

#include "sema.h"

/* ---- runtime scalars ------------------------------------------------------- */

static int error_dt(Sema *S, Pos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int error_dt(Sema *S, Pos p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror_at(S->d, p, "error", fmt, ap);
	va_end(ap);
	return DT_ERROR;
}

static bool is_int(int dt)
{
	return dt == DT_WEAK_INT || (dt < DT_COUNT && (dtypes[dt].kind == DK_INT || dtypes[dt].kind == DK_UINT));
}

static bool is_float(int dt)
{
	return dt == DT_WEAK_FLOAT || (dt < DT_COUNT && dtypes[dt].kind == DK_FLOAT);
}

static int mismatch(Sema *S, Pos p, const char *op, int a, int b) __attribute__((noinline, cold));
static int mismatch(Sema *S, Pos p, const char *op, int a, int b)
{
	return error_dt(S, p, "operands of '%s' have different dtypes, %s and %s; convert one with T.cast",
	                op, dtype_str(a), dtype_str(b));
}

/* The dtype of `a op b`: equal dtypes, or a literal taking the other's.
 * (inlined into scalar1, which asks it at every operator) */
static inline int unify_dt(Sema *S, Pos p, const char *op, int a, int b)
{
	if (a == DT_ERROR || b == DT_ERROR)
		return DT_ERROR;
	if (a == b)
		return a;
	if (a == DT_WEAK_INT && (is_int(b) || is_float(b)))
		return b;
	if (b == DT_WEAK_INT && (is_int(a) || is_float(a)))
		return a;
	if (a == DT_WEAK_FLOAT && is_float(b))
		return b;
	if (b == DT_WEAK_FLOAT && is_float(a))
		return a;
	return mismatch(S, p, op, a, b);
}

int unify(Sema *S, Pos p, const char *op, int a, int b) { return unify_dt(S, p, op, a, b); }

/* TVM's promotion of a binary operator's integer operands: int32 and
 * int64 (signed integers of two widths) meet in the wider, the narrower
 * operand converted, written into the IR as T.cast(x, "int64") (what
 * TVM's BinaryOpMatchTypes inserts). *a and *b are the operands' dtypes,
 * updated. */
static void promote_ints(Sema *S, Expr **x, Expr **y, int *a, int *b)
{
	if (*a == *b || *a >= DT_COUNT || *b >= DT_COUNT || dtypes[*a].kind != DK_INT || dtypes[*b].kind != DK_INT)
		return;
	bool left = dtypes[*a].bits < dtypes[*b].bits;
	Expr **n = left ? x : y;
	int to = left ? *b : *a;
	Expr *args[] = { *n, ex_str(dtypes[to].name) };
	Expr *c = ex_call("T.cast", 2, args);
	c->pos = (*n)->pos;
	int dt = scalar(S, c);
	if (dt == DT_ERROR)
		return;
	*n = c;
	*(left ? a : b) = dt;
}

/* A buffer element: buf[i, j]. */
static int element(Sema *S, Expr *e, Buffer *b)
{
	if (e->nargs != b->ndim)
		return error_dt(S, e->pos, "buffer '%s' has %d dimension%s but is indexed with %d", b->name,
		                b->ndim, b->ndim == 1 ? "" : "s", e->nargs);
	int bad = 0;
	for (int i = 0; i < e->nargs; i++) {
		Expr *x = e->args[i];
		if (x->kind == E_SLICE) {
			error_dt(S, x->pos, "a slice selects a region, which only a tile op takes; index one element here");
			bad++;
			continue;
		}
		int dt = scalar(S, x);
		if (dt == DT_ERROR) {
			bad++;
			continue;
		}
		if (!is_int(dt)) {
			error_dt(S, x->pos, "a buffer index must be an integer, not %s", dtype_str(dt));
			bad++;
			continue;
		}
		int64_t lo, hi;
		if (expr_range(x, &lo, &hi) && (lo < 0 || hi >= b->shape[i])) {
			if (lo == hi)
				error_dt(S, x->pos, "index %lld is out of bounds for dimension %d of '%s' (extent %lld)",
				         (long long)lo, i, b->name, (long long)b->shape[i]);
			else
				error_dt(S, x->pos, "index '%s' ranges over [%lld, %lld], out of bounds for dimension %d of '%s' (extent %lld)",
				         expr_str(x), (long long)lo, (long long)hi, i, b->name, (long long)b->shape[i]);
			bad++;
		}
	}
	return bad ? DT_ERROR : b->dtype;
}

static int scalar_call(Sema *S, Expr *e, Value *fn, Buffer **base)
{
	if (fn->kind == V_DTYPE) {
		e->a->val = fn; /* call_builtin reads the dtype here */
		if (e->nargs != 1 || e->nkws)
			return error_dt(S, e->pos, "T.%s(x) takes one value", dtypes[fn->dtype].name);
		if (scalar(S, e->args[0]) == DT_ERROR)
			return DT_ERROR;
		return fn->dtype;
	}
	if (fn->kind != V_FUNC)
		return error_dt(S, e->pos, "%s is not callable", value_kind_name(fn));
	Args a;
	switch (fn->intrin) {
	case IN_CAST:
		if (!check_args(S, e, fn->intrin, &a))
			return DT_ERROR;
		return a.pos[1]->dtype;
	case IN_MIN: case IN_MAX:
		if (!check_args(S, e, fn->intrin, &a))
			return DT_ERROR;
		return unify(S, e->pos, intrins[fn->intrin].path, e->args[0]->dtype, e->args[1]->dtype);
	case IN_POINTER_OFFSET:
		if (!check_args(S, e, fn->intrin, &a))
			return DT_ERROR;
		if (base)
			*base = a.pos[0]->buffer;
		return DT_HANDLE;
	case IN_ELECT_SYNC:
		if (e->nargs == 3)
			return error_dt(S, e->pos, "%s", elect_sync_form);
		if (!check_args(S, e, fn->intrin, &a))
			return DT_ERROR;
		if (S->partial)
			return error_dt(S, e->pos, "%s() where only some threads evaluate it (the right of 'and' or 'or', a "
			                "branch of 'x if c else y'): elect.sync chooses among the threads that reach it, which "
			                "txc does not follow inside an expression; make it the condition of an inner `if`", fn_name(e));
		return DT_BOOL;
	case IN_TMEM_ADDR:
		if (!check_args(S, e, fn->intrin, &a))
			return DT_ERROR;
		for (int i = 0; i < 3; i++) {
			int dt = e->args[i]->dtype;
			if (dt != DT_WEAK_INT && !(dt < DT_COUNT && (dtypes[dt].kind == DK_INT || dtypes[dt].kind == DK_UINT)))
				return error_dt(S, e->args[i]->pos, "T.cuda.get_tmem_addr takes integers, not %s", dtype_str(dt));
		}
		return DT_UINT32;
	case IN_ADDRESS_OF: {
		if (!check_args(S, e, fn->intrin, &a))
			return DT_ERROR;
		Expr *x = e->args[0];
		if (x->kind == E_INDEX)
			return scalar(S, x) == DT_ERROR ? DT_ERROR : DT_HANDLE;
		Value *v = eval(S, x);
		if (IS_ERR(v))
			return DT_ERROR;
		if (!v || v->kind != V_BUFFER)
			return error_dt(S, x->pos, "T.address_of takes a buffer or a buffer element");
		if (v->buffer->elem_offset && x->kind == E_NAME) {
			tvm_first_element(x, v->buffer); /* placed at elem_offset=: its first element */
			return scalar(S, x) == DT_ERROR ? DT_ERROR : DT_HANDLE;
		}
		return DT_HANDLE;
	}
	default:
		return error_dt(S, e->pos, "%s() has no value to use in an expression", fn_name(e));
	}
}

static int scalar1(Sema *S, Expr *e);

/* A literal or a name: scalar1 sets its val on each visit (a name's to
 * what eval gives, or NULL). */
static inline bool is_leaf(const Expr *e)
{
	return e->kind == E_INT || e->kind == E_NAME;
}

/* A name or an attribute chain e, whose value is v (eval's). */
static int named(Sema *S, Expr *e, Value *v)
{
	if (IS_ERR(v))
		return DT_ERROR;
	if (!v)
		return error_dt(S, e->pos, "expected a scalar value here");
	if (v->kind == V_BUFFER && v->buffer->scalar && e->kind == E_NAME) {
		tvm_scalar_element(e); /* T.shared_scalar's name: its element */
		return scalar1(S, e);
	}
	e->val = v;
	switch (v->kind) {
	case V_VAR:
		e->val = NULL;
		e->var = v->var;
		if (v->var->mut && !v->var->set)
			return error_dt(S, e->pos, "'%s' is read before it is assigned a value", v->var->name);
		return v->var->dtype;
	case V_INT: return DT_WEAK_INT;
	case V_FLOAT: return DT_WEAK_FLOAT;
	case V_BOOL: return DT_BOOL;
	default:
		e->val = NULL;
		return error_dt(S, e->pos, "'%s' is %s; a scalar value is expected here", expr_str(e),
		                value_kind_name(v));
	}
}

/* scalar() of an operand of an operator: a literal or a name here (most
 * are, and so not through scalar1's frame), as scalar1 has them. */
static inline int operand_dt(Sema *S, Expr *x)
{
	if (x->kind == E_INT) {
		x->val = vint(x->ival);
		return x->dtype = DT_WEAK_INT;
	}
	if (x->kind == E_NAME)
		return x->dtype = named(S, x, eval_name(S, x));
	return scalar(S, x);
}

/* A chain: e = ((x op1 k1) op2 k2) ... opn kn, n >= 2 binary nodes whose
 * right operands are literals, x a name. A digit of a lowered op's offset
 * is one (tid % 8 * 8, tid // 8 * 64), a node that every op of a kernel
 * shares (variants/lowering.c, on shared nodes): scalar() meets it again
 * at each op. What scalar1 writes into a chain, and whether it reports
 * anything, depends only on the operators, the literals and what x means
 * (eval_name): each operator's checks read only its operands' dtypes.
 * The memo keeps, of a chain that scalar1 annotated without an error and
 * without a constant value (x a runtime variable), the operators, x's
 * dtype and each node's. A hit is a chain with those operators whose x
 * means a variable of that dtype now (as lookup finds it, and not one
 * read before it is set) and whose nodes hold what scalar1 would write
 * now: x that variable and no value, each literal a value of its number
 * (vint may make an equal one: no reader compares them by address) and
 * weak int, each node no value and the dtype kept. The visit would write
 * nothing new and report nothing, so it is skipped. The set is chosen
 * by e's address alone, which only makes hits likely; anything else is
 * a miss, checked as before. Two ways a set (the newer first), so that
 * a kernel's two shared digits stay in the runs whose addresses put them
 * in one set. */
enum { CHAIN_MAX = 6 };
static struct Chain {
	const Expr *e;
	int n;
	signed char op[CHAIN_MAX];
	signed char dt[CHAIN_MAX]; /* node i's dtype, counted from e */
	int x_dt;
} chains[32][2];

static struct Chain *chain_set(const Expr *e)
{
	return chains[((uintptr_t)e >> 4) * 0x9E3779B97F4A7C15u >> 59];
}

/* The dtype of chain e as the memo has it, or -1: not a hit. */
static int chain_hit(Sema *S, const Expr *e)
{
	const struct Chain *c = chain_set(e);
	if (c->e != e && (++c)->e != e)
		return -1;
	const Expr *x = e;
	for (int i = 0; i < c->n; i++, x = x->a)
		if (x->kind != E_BIN || x->op != c->op[i] || x->val || x->dtype != c->dt[i] || !literal_done(x->b))
			return -1;
	if (x->kind != E_NAME || x->val || !x->var || x->dtype != c->x_dt || x->var->dtype != c->x_dt ||
	    (x->var->mut && !x->var->set))
		return -1;
	Sym *s = lookup(S, x->str);
	return s && s->val->kind == V_VAR && s->val->var == x->var ? c->dt[0] : -1;
}

/* Keeps chain e, which scalar1 has just found of dtype dt (not an error). */
static void chain_put(const Expr *e, int dt)
{
	struct Chain c = { .e = e };
	const Expr *x = e;
	for (; x->kind == E_BIN; x = x->a) {
		if (c.n == CHAIN_MAX || x->val || !literal_done(x->b))
			return;
		c.op[c.n] = x->op;
		c.dt[c.n] = (signed char)(c.n ? x->dtype : dt); /* e's is written when scalar1 returns */
		c.n++;
	}
	if (c.n < 2 || x->kind != E_NAME || x->val || !x->var)
		return;
	c.x_dt = x->dtype;
	struct Chain *w = chain_set(e);
	if (w[0].e != e)
		w[1] = w[0]; /* the newer of the two moves to the second way */
	w[0] = c;
}

static int scalar1(Sema *S, Expr *e)
{
	Value *v;
	int a, b;
	switch (e->kind) {
	case E_INT:
		e->val = vint(e->ival);
		return DT_WEAK_INT;
	case E_FLOAT:
		e->val = eval(S, e);
		return DT_WEAK_FLOAT;
	case E_TRUE: case E_FALSE:
		e->val = eval(S, e);
		return DT_BOOL;
	case E_STR: case E_NONE: case E_TUPLE: case E_LIST: case E_SLICE:
	case E_STAR: case E_DICT: case E_PAIR: case E_COMP: case E_COMPFOR: case E_FSTR: case E_FIELD: case E_LAMBDA:
		return error_dt(S, e->pos, "expected a scalar value here");
	case E_NAME:
		return named(S, e, eval_name(S, e));
	case E_ATTR:
		return named(S, e, eval(S, e));
	case E_INDEX:
		switch (tvm_allocated_addr(S, e)) {
		case -1: return DT_ERROR;
		case 1: return scalar1(S, e);
		}
		if (e->a->kind == E_CALL && (v = tvm_layout_apply(S, e))) {
			if (IS_ERR(v))
				return DT_ERROR;
			e->val = v;
			return DT_WEAK_INT;
		}
		if (e->kind != E_INDEX) /* apply() at run-time coordinates, now an expression */
			return scalar1(S, e);
		v = eval(S, e->a);
		if (IS_ERR(v))
			return DT_ERROR;
		if (v && v->kind == V_BUFFER)
			return element(S, e, v->buffer);
		v = eval(S, e);
		if (IS_ERR(v))
			return DT_ERROR;
		if (v && (v->kind == V_INT || v->kind == V_FLOAT)) {
			e->val = v;
			return v->kind == V_INT ? DT_WEAK_INT : DT_WEAK_FLOAT;
		}
		return error_dt(S, e->pos, "only buffers are indexed in scalar expressions");
	case E_CALL:
		if (!ptx_rewrite(S, e, &v))
			return DT_ERROR;
		switch (tvm_call(S, e)) { /* 0: e as it was */
		case -1: return DT_ERROR;
		case 1: return scalar1(S, e);
		}
		if (!v)
			v = eval(S, e->a);
		if (IS_ERR(v))
			return DT_ERROR;
		if (!v)
			return error_dt(S, e->pos, "expected a builtin function");
		return scalar_call(S, e, v, NULL);
	case E_BIN:
		if (e->a->kind == E_BIN && e->b->kind == E_INT && (a = chain_hit(S, e)) >= 0)
			return a;
		a = operand_dt(S, e->a);
		b = operand_dt(S, e->b);
		if (a == DT_ERROR || b == DT_ERROR)
			return DT_ERROR;
		if (e->op == OP_MATMUL)
			return error_dt(S, e->pos, "'@' makes a layout stride 'n @ axis'; it has no meaning on runtime values");
		if (a == DT_BOOL && b == DT_BOOL && (e->op == OP_BITAND || e->op == OP_BITOR)) {
			/* TVM's (0 <= tx) & (tx < 1): its printer's spelling of and/or
			 * over conditions; checked again as one */
			e->kind = e->op == OP_BITAND ? E_AND : E_OR;
			return scalar1(S, e);
		}
		if (a == DT_BOOL || b == DT_BOOL)
			return error_dt(S, e->pos, "arithmetic on a boolean");
		if (e->op == OP_DIV && is_int(a) && is_int(b))
			return error_dt(S, e->pos, "'/' on integers; use '//' for integer division");
		if ((e->op == OP_FLOORDIV || e->op == OP_MOD || e->op == OP_SHL || e->op == OP_SHR ||
		     e->op == OP_BITAND || e->op == OP_BITOR || e->op == OP_BITXOR || e->op == OP_POW) &&
		    !(is_int(a) && is_int(b)))
			return error_dt(S, e->pos, "'%s' needs integer operands, not %s and %s", op_spelling[e->op],
			                dtype_str(a), dtype_str(b));
		if (e->a->val && e->b->val) {
			/* a literal's or a name's value was set just now, and is what
			 * eval gives it: folded without evaluating them again */
			e->val = is_leaf(e->a) && is_leaf(e->b) ? eval_arith(S, e, e->a->val, e->b->val) : eval(S, e);
			if (IS_ERR(e->val)) {
				e->val = NULL;
				return DT_ERROR;
			}
		} else if (e->op == OP_POW) {
			return error_dt(S, e->pos, "'**' needs compile-time constant operands");
		}
		promote_ints(S, &e->a, &e->b, &a, &b);
		a = unify_dt(S, e->pos, op_spelling[e->op], a, b);
		if (a != DT_ERROR && e->a->kind == E_BIN && e->b->kind == E_INT)
			chain_put(e, a);
		return a;
	case E_UN:
		a = scalar(S, e->a);
		if (a == DT_ERROR)
			return a;
		if (e->op == OP_INVERT ? !is_int(a) : !(is_int(a) || is_float(a)))
			return error_dt(S, e->pos, "operator '%s' is not defined on %s", op_spelling[e->op], dtype_str(a));
		if (e->a->val)
			e->val = eval(S, e);
		return a;
	case E_CMP:
		a = operand_dt(S, e->a);
		b = operand_dt(S, e->b);
		promote_ints(S, &e->a, &e->b, &a, &b);
		if (unify_dt(S, e->pos, op_spelling[e->op], a, b) == DT_ERROR)
			return DT_ERROR;
		return DT_BOOL;
	case E_AND: case E_OR: case E_NOT:
		a = scalar(S, e->a);
		S->partial++;
		b = e->kind == E_NOT ? DT_BOOL : scalar(S, e->b);
		S->partial--;
		if (a == DT_ERROR || b == DT_ERROR)
			return DT_ERROR;
		if (a != DT_BOOL || b != DT_BOOL)
			return error_dt(S, e->pos, "'%s' needs boolean operands (comparisons), not %s",
			                e->kind == E_AND ? "and" : e->kind == E_OR ? "or" : "not",
			                dtype_str(a != DT_BOOL ? a : b));
		return DT_BOOL;
	case E_COND:
		a = scalar(S, e->a);
		if (a != DT_BOOL && a != DT_ERROR)
			return error_dt(S, e->a->pos, "the condition of 'x if c else y' must be a boolean, not %s",
			                dtype_str(a));
		S->partial++;
		b = scalar(S, e->b);
		int c = scalar(S, e->c);
		S->partial--;
		return unify(S, e->pos, "if-else", b, c);
	}
	return DT_ERROR;
}

int scalar(Sema *S, Expr *e)
{
	e->dtype = scalar1(S, e);
	return e->dtype;
}

int scalar_named(Sema *S, Expr *e, Value *v)
{
	e->dtype = named(S, e, v);
	return e->dtype;
}

int scalar_builtin(Sema *S, Expr *e, Value *fn, Buffer **base)
{
	e->dtype = scalar_call(S, e, fn, base);
	return e->dtype;
}

/* ---- regions --------------------------------------------------------------- */

/* outer + inner, folded when both are constants. */
static Expr *add_start(Expr *outer, Expr *inner)
{
	if (outer->kind == E_INT && outer->ival == 0)
		return inner;
	int64_t r;
	if (outer->kind == E_INT && inner->kind == E_INT && add_ok(outer->ival, inner->ival, &r))
		return new_int(inner->pos, r);
	Expr *e = new_expr(E_BIN, inner->pos);
	e->op = OP_ADD;
	e->a = outer;
	e->b = inner;
	e->dtype = DT_INT32;
	return e;
}

/* buf, buf[slices...], or buf[name of a tuple of slices]; the buffer may
 * itself be a region bound to a name (a view of part of a buffer), whose
 * starts are then added. */
Value *region(Sema *S, Expr *e)
{
	Expr *be = e->kind == E_INDEX ? e->a : e;
	Value *bv = eval(S, be);
	if (IS_ERR(bv))
		return bv;
	if (bv && bv->kind == V_REGION && e->kind != E_INDEX)
		return bv;
	if (!bv && be->kind == E_CALL && be->a->kind == E_ATTR &&
	    (!strcmp(be->a->str, "view") || !strcmp(be->a->str, "local")))
		return fail(S, e->pos, "not supported yet: a view made in a tile op's operand; bind it to a name first "
		            "(V = %s), then pass V", expr_str(be));
	if (!bv || (bv->kind != V_BUFFER && bv->kind != V_REGION))
		return fail(S, e->pos, "a tile op takes buffer regions such as A[0:128, 0:32], not %s",
		            bv ? value_kind_name(bv) : "a runtime value");
	Value *outer = bv->kind == V_REGION ? bv : NULL;
	Buffer *b = bv->buffer;
	const int64_t *shape = outer ? outer->extents : b->shape;
	const char *name = outer ? expr_str(be) : b->name;
	Value *r = vnew(V_REGION);
	r->buffer = b;
	r->ndim = b->ndim;
	r->starts = xalloc(sizeof(Expr *) * (size_t)b->ndim);
	r->extents = xalloc(sizeof(int64_t) * (size_t)b->ndim);
	Expr **sub = e->kind == E_INDEX ? e->args : NULL;
	int nsub = e->kind == E_INDEX ? e->nargs : 0;
	Value *packed = NULL;
	if (nsub == 1 && sub[0]->kind != E_SLICE) {
		Value *v = eval(S, sub[0]);
		if (IS_ERR(v))
			return v;
		if (v && v->kind == V_TUPLE) {
			packed = v;
			nsub = v->nelts;
		}
	}
	for (int i = 0; !packed && i < nsub; i++) {
		/* a slice constant as one index of several, A[s, 0:32]: written
		 * out as the slice it is */
		Expr *x = sub[i];
		if (x->kind != E_NAME && x->kind != E_ATTR && x->kind != E_INDEX)
			continue;
		Value *v = eval(S, x);
		if (IS_ERR(v))
			return v;
		if (!v || v->kind != V_SLICE)
			continue;
		Expr *sl = new_expr(E_SLICE, x->pos);
		sl->a = v->elts[0] ? new_int(x->pos, v->elts[0]->i) : NULL;
		sl->b = v->elts[1] ? new_int(x->pos, v->elts[1]->i) : NULL;
		sl->c = v->elts[2] ? new_int(x->pos, v->elts[2]->i) : NULL;
		sub[i] = sl;
	}
	if (e->kind == E_INDEX && nsub != b->ndim)
		return fail(S, e->pos, "%s '%s' has %d dimension%s but the region has %d", outer ? "region" : "buffer",
		            name, b->ndim, b->ndim == 1 ? "" : "s", nsub);
	bool bad = false;
	for (int i = 0; i < b->ndim; i++) {
		Pos p = sub ? sub[packed ? 0 : i]->pos : e->pos;
		Expr *lo = NULL, *hi = NULL;
		int64_t extent = 1;
		if (!sub) {
			lo = new_int(p, 0);
			extent = shape[i];
		} else if (packed) {
			Value *v = packed->elts[i];
			if (v->kind == V_INT) {
				lo = new_int(p, v->i);
			} else if (v->kind == V_SLICE) {
				if (v->elts[2] && v->elts[2]->i != 1) {
					fail(S, p, "slice steps other than 1 are not supported");
					bad = true;
					continue;
				}
				int64_t l = v->elts[0] ? v->elts[0]->i : 0, h = v->elts[1] ? v->elts[1]->i : shape[i];
				lo = new_int(p, l);
				extent = h - l;
			} else {
				fail(S, p, "element %d of '%s' is %s, not a slice or an index", i, expr_str(sub[0]),
				     value_kind_name(v));
				bad = true;
				continue;
			}
		} else if (sub[i]->kind == E_SLICE) {
			Expr *s = sub[i];
			if (s->c) {
				int64_t step;
				if (!eval_int(S, s->c, "a slice step", &step)) {
					bad = true;
					continue;
				}
				if (step != 1) {
					fail(S, s->c->pos, "slice steps other than 1 are not supported");
					bad = true;
					continue;
				}
			}
			/* a missing upper bound is the dimension's end: a node on
			 * the stack, as only the extent below reads it */
			Expr dim_end;
			lo = s->a ? s->a : new_int(p, 0);
			hi = s->b;
			if (!hi) {
				dim_end = (Expr){ .kind = E_INT, .intrin = -1, .ival = shape[i], .pos = p };
				hi = &dim_end;
			}
			if ((s->a && scalar(S, s->a) == DT_ERROR) || (s->b && scalar(S, s->b) == DT_ERROR)) {
				bad = true;
				continue;
			}
			if (!expr_const_diff(hi, lo, &extent)) {
				fail(S, p, "the extent of slice '%s' is not a compile-time constant", expr_str(s));
				bad = true;
				continue;
			}
		} else {
			lo = sub[i];
			if (scalar(S, lo) == DT_ERROR) {
				bad = true;
				continue;
			}
		}
		if (extent <= 0) {
			fail(S, p, "slice of dimension %d of '%s' is empty (extent %lld)", i, name, (long long)extent);
			bad = true;
			continue;
		}
		int64_t l0, l1;
		int64_t end;
		/* a load with oob_fill= may read past a global tensor's edge (its
		 * end must still be representable) */
		bool hang = S->oob_ok && !outer && b->scope == SC_GLOBAL;
		/* the rows of a buffer of symbolic extent m past m are never
		 * touched (each access is guarded by its row against m, TMA's
		 * map ends at m), so a tile may hang past m's bound too, as the
		 * last tile of T.ceildiv(m, 64) under T.assume(m <= 1000) does;
		 * while its end's offset stays below 2^31 (the guards and the
		 * address arithmetic are sized by the bound) */
		if (!hang && !outer && i == 0 && b->dyn && expr_range(lo, &l0, &l1) && l0 >= 0 &&
		    add_ok(l1, extent, &end) && end > shape[0]) {
			int64_t row_bytes = dtype_bytes(b->dtype);
			for (int d = 1; d < b->ndim; d++)
				row_bytes *= shape[d];
			if (end <= INT32_MAX / row_bytes) {
				r->starts[i] = lo;
				r->extents[i] = extent;
				continue;
			}
		}
		if (hang && expr_range(lo, &l0, &l1) && !add_ok(l1, extent, &end)) {
			fail(S, p, "region of dimension %d of '%s' ends past 2^63", i, name);
			bad = true;
			continue;
		}
		if (!hang && expr_range(lo, &l0, &l1) && (l0 < 0 || !add_ok(l1, extent, &end) || end > shape[i])) {
			if (l0 == l1 && add_ok(l0, extent, &end))
				fail(S, p, "slice %lld:%lld is out of bounds for dimension %d of '%s' (extent %lld)",
				     (long long)l0, (long long)end, i, name, (long long)shape[i]);
			else if (l0 == l1) /* its end passes 2^63 */
				fail(S, p, "a slice of extent %lld at %lld is out of bounds for dimension %d of '%s' (extent %lld)",
				     (long long)extent, (long long)l0, i, name, (long long)shape[i]);
			else
				fail(S, p, "region of dimension %d of '%s' starts in [%lld, %lld] with extent %lld, out of bounds (extent %lld)",
				     i, name, (long long)l0, (long long)l1, (long long)extent, (long long)shape[i]);
			bad = true;
			continue;
		}
		/* the lowering adds a start to int32 thread and loop offsets (an
		 * int64 start read as the int32 it fits: txc-lower, narrow_expr);
		 * a start of another integer dtype (a T.serial(..., dtype="uint32")
		 * variable) whose range fits in int32 is converted, T.cast(lo,
		 * "int32"), as TVM's index arithmetic would */
		if (lo->kind != E_INT && lo->dtype < DT_COUNT && lo->dtype != DT_INT32 && lo->dtype != DT_INT64 &&
		    (dtypes[lo->dtype].kind == DK_INT || dtypes[lo->dtype].kind == DK_UINT) && expr_range(lo, &l0, &l1) &&
		    l0 >= 0 && l1 <= INT32_MAX) {
			Expr *args[] = { lo, ex_str("int32") };
			Expr *c = ex_call("T.cast", 2, args);
			c->pos = lo->pos;
			if (scalar(S, c) == DT_INT32)
				lo = c;
		}
		if (lo->kind != E_INT && lo->dtype != DT_INT32 && lo->dtype != DT_INT64 && lo->dtype != DT_WEAK_INT &&
		    lo->dtype < DT_COUNT) {
			fail(S, lo->pos, "not supported yet: a tile op's region starting at an index of dtype %s ('%s') not "
			     "provably in [0, 2^31); txc's tile ops index with int32", dtype_str(lo->dtype), expr_str(lo));
			bad = true;
			continue;
		}
		r->starts[i] = outer ? add_start(outer->starts[i], lo) : lo;
		r->extents[i] = extent;
	}
	return bad ? &verr : r;
}
