/* Expressions: compile-time values (constants, slices, layouts, names of
 * builtins), runtime scalars and their dtypes, buffer regions. */
#include <string.h>

#include "sema.h"

Value verr;

Value *vnew(enum ValueKind kind)
{
	Value *v = xalloc(sizeof *v);
	v->kind = kind;
	return v;
}

Value *vint(int64_t i)
{
	Value *v = vnew(V_INT);
	v->i = i;
	return v;
}

const char *value_kind_name(const Value *v)
{
	switch (v->kind) {
	case V_INT: return "an integer";
	case V_FLOAT: return "a float";
	case V_STR: return "a string";
	case V_BOOL: return "a boolean";
	case V_NONE: return "None";
	case V_TUPLE: return "a tuple";
	case V_SLICE: return "a slice";
	case V_STRIDE: return "a stride (n @ axis)";
	case V_AXIS: return "an axis";
	case V_LAYOUT: return "a layout";
	case V_DTYPE: return "a dtype";
	case V_FUNC: return "a builtin function";
	case V_NAMESPACE: return "a namespace";
	case V_BUFFER: return "a buffer";
	case V_DATA: return "buffer storage";
	case V_REGION: return "a buffer region";
	case V_VAR: return "a runtime value";
	case V_HANDLE: return "a handle";
	case V_PRIMFUNC: return "a kernel";
	}
	return "a value";
}

const char *dtype_str(int dt)
{
	if (dt == DT_WEAK_INT)
		return "int";
	if (dt == DT_WEAK_FLOAT)
		return "float";
	if (dt >= 0 && dt < DT_COUNT)
		return dtypes[dt].name;
	return "?";
}

static Value *fail(Sema *S, Pos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static Value *fail(Sema *S, Pos p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror_at(S->d, p, "error", fmt, ap);
	va_end(ap);
	return &verr;
}

/* ---- names of builtins ---------------------------------------------------- */

static bool is_exec_scope(const char *s, int *es)
{
	static const struct { const char *name; int es; } v[] = {
		{ "warp", ES_WARP }, { "wg", ES_WARPGROUP }, { "warpgroup", ES_WARPGROUP },
		{ "cta", ES_CTA }, { "cluster", ES_CLUSTER }, { "thread", ES_THREAD },
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (strcmp(v[i].name, s) == 0) {
			*es = v[i].es;
			return true;
		}
	return false;
}

/* base.name, where base is a namespace: a builtin, a deeper namespace, a
 * dtype (T.float16), or a tile op with an execution scope (Tx.cta.copy). */
static Value *member(Sema *S, Value *base, Expr *e)
{
	const char *path = xprintf("%s.%s", base->s, e->str);
	int id = intrin_lookup(path);
	if (id >= 0) {
		Value *v = vnew(V_FUNC);
		v->intrin = id;
		v->i = ES_THREAD;
		return v;
	}
	int es;
	if (strcmp(base->s, "T") == 0) {
		int dt = dtype_lookup(e->str);
		if (dt) {
			Value *v = vnew(V_DTYPE);
			v->dtype = dt;
			return v;
		}
		if (is_exec_scope(e->str, &es)) {
			Value *v = vnew(V_NAMESPACE);
			v->s = path;
			v->i = es + 1; /* 0: no execution scope */
			return v;
		}
	}
	bool tile_op = strcmp(e->str, "copy") == 0 || strcmp(e->str, "copy_async") == 0;
	if (base->i && tile_op) {
		/* T.cta.copy: the op, run at the scope of its namespace */
		Value *v = vnew(V_FUNC);
		v->intrin = strcmp(e->str, "copy") == 0 ? IN_COPY : IN_COPY_ASYNC;
		v->i = base->i - 1;
		return v;
	}
	if (intrin_is_prefix(path)) {
		Value *v = vnew(V_NAMESPACE);
		v->s = path;
		return v;
	}
	return fail(S, e->pos, "'%s' has no member '%s'", base->s, e->str);
}

/* ---- layouts --------------------------------------------------------------- */

static bool tuple_ints(Value *v, int64_t **out, int *n)
{
	if (v->kind == V_INT) {
		*out = xalloc(sizeof(int64_t));
		(*out)[0] = v->i;
		*n = 1;
		return true;
	}
	if (v->kind != V_TUPLE)
		return false;
	*out = xalloc(sizeof(int64_t) * (size_t)(v->nelts + 1));
	for (int i = 0; i < v->nelts; i++) {
		if (v->elts[i]->kind != V_INT)
			return false;
		(*out)[i] = v->elts[i]->i;
	}
	*n = v->nelts;
	return true;
}

/* S[extents] or S[extents : strides]; R[...] the same, as replicas. */
static Value *iters(Sema *S, Expr *e, bool replica)
{
	if (e->nargs != 1 && e->args[0]->kind == E_SLICE)
		return fail(S, e->pos, "%s[...] takes one slice 'extents : strides'", replica ? "R" : "S");
	Expr *ext = e->args[0], *str = NULL;
	int64_t *shape = NULL;
	int n = 0;
	if (e->nargs > 1) {
		/* S[128, 32]: extents only */
		shape = xalloc(sizeof(int64_t) * (size_t)e->nargs);
		for (int i = 0; i < e->nargs; i++)
			if (!eval_int(S, e->args[i], "a layout extent", &shape[i]))
				return &verr;
		n = e->nargs;
	} else {
		if (ext->kind == E_SLICE) {
			if (ext->c || !ext->a || !ext->b)
				return fail(S, ext->pos, "a layout is written S[extents : strides]");
			str = ext->b;
			ext = ext->a;
		}
		Value *v = eval_const(S, ext, "layout extents");
		if (IS_ERR(v))
			return v;
		if (!tuple_ints(v, &shape, &n))
			return fail(S, ext->pos, "layout extents must be integers or a tuple of integers, not %s",
			            value_kind_name(v));
	}
	for (int i = 0; i < n; i++)
		if (shape[i] <= 0)
			return fail(S, ext->pos, "layout extent %lld is not positive", (long long)shape[i]);
	if (n > LAYOUT_MAX_ITERS)
		return fail(S, ext->pos, "a layout has at most %d iters, not %d", LAYOUT_MAX_ITERS, n);
	Layout *l = layout_new();
	if (!str) {
		if (replica)
			return fail(S, e->pos, "R[...] needs strides: R[extents : strides]");
		const char *why = layout_default(l, shape, n);
		if (why)
			return fail(S, ext->pos, "%s", why);
	} else {
		Value *sv = eval_const(S, str, "layout strides");
		if (IS_ERR(sv))
			return sv;
		Value **st = sv->kind == V_TUPLE ? sv->elts : &sv;
		int ns = sv->kind == V_TUPLE ? sv->nelts : 1;
		if (ns != n)
			return fail(S, str->pos, "layout has %d extent%s but %d stride%s", n, n == 1 ? "" : "s",
			            ns, ns == 1 ? "" : "s");
		for (int i = 0; i < n; i++) {
			Value *s = st[i];
			Pos sp = str->kind == E_TUPLE && i < str->nargs ? str->args[i]->pos : str->pos;
			if (s->kind == V_AXIS)
				layout_push(l, replica, shape[i], 1, s->axis);
			else if (s->kind == V_STRIDE)
				layout_push(l, replica, shape[i], s->i, s->axis);
			else if (s->kind == V_INT)
				layout_push(l, replica, shape[i], s->i, AX_M);
			else
				return fail(S, sp, "a layout stride is an integer or 'n @ axis', not %s", value_kind_name(s));
			if (s->i < 0)
				return fail(S, sp, "layout stride %lld is negative", (long long)s->i);
		}
	}
	Value *v = vnew(V_LAYOUT);
	v->layout = l;
	v->i = replica; /* a bare R[...] until added to an S[...] */
	return v;
}

/* layout + layout (shard and replicas), layout + offset. */
static Value *layout_add(Sema *S, Pos p, Value *a, Value *b)
{
	if (a->kind != V_LAYOUT)
		return layout_add(S, p, b, a);
	Layout *l = layout_copy(a->layout);
	Value *v = vnew(V_LAYOUT);
	v->layout = l;
	v->i = a->i;
	if (b->kind == V_LAYOUT) {
		if (l->swizzled || b->layout->swizzled)
			return fail(S, p, "a swizzled layout cannot be combined with '+'");
		const Layout *r = b->layout;
		if (l->nshard && r->nshard && !a->i && !b->i)
			return fail(S, p, "a layout has one shard: write all its iters in one S[...]");
		if (a->i && !b->i) { /* R[...] + S[...] */
			Value *t = layout_add(S, p, b, a);
			return t;
		}
		for (int i = 0; i < r->nshard; i++)
			layout_push(l, b->i != 0, r->shard[i].extent, r->shard[i].stride, r->shard[i].axis);
		for (int i = 0; i < r->nrep; i++)
			layout_push(l, true, r->rep[i].extent, r->rep[i].stride, r->rep[i].axis);
		if (l->nshard > LAYOUT_MAX_ITERS || l->nrep > LAYOUT_MAX_ITERS)
			return fail(S, p, "a layout has at most %d iters", LAYOUT_MAX_ITERS);
		for (int x = 0; x < AX_COUNT; x++)
			if (!add_ok(l->off[x], r->off[x], &l->off[x]))
				return fail(S, p, "layout offset overflows 64 bits");
		v->i = a->i && b->i;
		return v;
	}
	int axis = AX_M;
	int64_t n;
	if (b->kind == V_INT)
		n = b->i;
	else if (b->kind == V_STRIDE)
		n = b->i, axis = b->axis;
	else if (b->kind == V_AXIS)
		n = 1, axis = b->axis;
	else
		return fail(S, p, "cannot add %s to a layout", value_kind_name(b));
	if (n < 0)
		return fail(S, p, "layout offset %lld is negative", (long long)n);
	if (!add_ok(l->off[axis], n, &l->off[axis]))
		return fail(S, p, "layout offset overflows 64 bits");
	return v;
}

static Value *arith(Sema *S, Expr *e, Value *a, Value *b)
{
	int op = e->op;
	if (op == OP_MATMUL) {
		if (a->kind == V_INT && b->kind == V_AXIS) {
			Value *v = vnew(V_STRIDE);
			v->i = a->i;
			v->axis = b->axis;
			return v;
		}
		return fail(S, e->pos, "'@' makes a layout stride 'n @ axis'; here it has %s and %s",
		            value_kind_name(a), value_kind_name(b));
	}
	if (op == OP_ADD && (a->kind == V_LAYOUT || b->kind == V_LAYOUT))
		return layout_add(S, e->pos, a, b);
	if (op == OP_ADD && (a->kind == V_STRIDE || a->kind == V_AXIS || b->kind == V_STRIDE || b->kind == V_AXIS))
		return fail(S, e->pos, "an offset 'n @ axis' is added to a layout, not to %s",
		            value_kind_name(a->kind == V_STRIDE || a->kind == V_AXIS ? b : a));
	if (op == OP_ADD && a->kind == V_TUPLE && b->kind == V_TUPLE) {
		Value *v = vnew(V_TUPLE);
		v->nelts = a->nelts + b->nelts;
		v->elts = xalloc(sizeof(Value *) * (size_t)(v->nelts + 1));
		memcpy(v->elts, a->elts, sizeof(Value *) * (size_t)a->nelts);
		memcpy(v->elts + a->nelts, b->elts, sizeof(Value *) * (size_t)b->nelts);
		return v;
	}
	if (a->kind == V_INT && b->kind == V_INT) {
		int64_t x = a->i, y = b->i, r = 0;
		bool ok = true;
		switch (op) {
		case OP_ADD: ok = !__builtin_add_overflow(x, y, &r); break;
		case OP_SUB: ok = !__builtin_sub_overflow(x, y, &r); break;
		case OP_MUL: ok = !__builtin_mul_overflow(x, y, &r); break;
		case OP_FLOORDIV: case OP_MOD:
			if (y == 0)
				return fail(S, e->pos, "division by zero");
			if (x == INT64_MIN && y == -1) {
				ok = false;
				break;
			}
			r = x / y;
			if ((x % y != 0) && ((x < 0) != (y < 0)))
				r--;
			if (op == OP_MOD)
				r = x - r * y;
			break;
		case OP_DIV:
			return fail(S, e->pos, "'/' on integers; use '//' for integer division");
		case OP_POW:
			if (y < 0)
				return fail(S, e->pos, "negative exponent");
			r = 1;
			for (int64_t k = 0; ok && k < y; k++)
				ok = !__builtin_mul_overflow(r, x, &r);
			break;
		case OP_SHL:
			if (y < 0 || y > 62 || (x << y) >> y != x)
				ok = false;
			else
				r = x << y;
			break;
		case OP_SHR:
			if (y < 0)
				return fail(S, e->pos, "negative shift count");
			r = y > 63 ? (x < 0 ? -1 : 0) : x >> y;
			break;
		case OP_BITAND: r = x & y; break;
		case OP_BITOR: r = x | y; break;
		case OP_BITXOR: r = x ^ y; break;
		}
		if (!ok)
			return fail(S, e->pos, "integer overflow in constant expression");
		return vint(r);
	}
	if ((a->kind == V_INT || a->kind == V_FLOAT) && (b->kind == V_INT || b->kind == V_FLOAT)) {
		double x = a->kind == V_INT ? (double)a->i : a->f;
		double y = b->kind == V_INT ? (double)b->i : b->f;
		Value *v = vnew(V_FLOAT);
		switch (op) {
		case OP_ADD: v->f = x + y; break;
		case OP_SUB: v->f = x - y; break;
		case OP_MUL: v->f = x * y; break;
		case OP_DIV:
			if (y == 0)
				return fail(S, e->pos, "division by zero");
			v->f = x / y;
			break;
		default:
			return fail(S, e->pos, "operator '%s' is not defined on floats", op_spelling[op]);
		}
		return v;
	}
	return fail(S, e->pos, "operator '%s' is not defined on %s and %s", op_spelling[op],
	            value_kind_name(a), value_kind_name(b));
}

static Value *compare(Sema *S, Expr *e, Value *a, Value *b)
{
	double x, y;
	if ((a->kind == V_INT || a->kind == V_FLOAT) && (b->kind == V_INT || b->kind == V_FLOAT)) {
		x = a->kind == V_INT ? (double)a->i : a->f;
		y = b->kind == V_INT ? (double)b->i : b->f;
		if (a->kind == V_INT && b->kind == V_INT) /* exact */
			x = a->i < b->i ? -1 : a->i > b->i, y = 0;
	} else if (a->kind == V_STR && b->kind == V_STR) {
		x = strcmp(a->s, b->s), y = 0;
	} else {
		return fail(S, e->pos, "cannot compare %s with %s", value_kind_name(a), value_kind_name(b));
	}
	Value *v = vnew(V_BOOL);
	switch (e->op) {
	case OP_LT: v->i = x < y; break;
	case OP_LE: v->i = x <= y; break;
	case OP_GT: v->i = x > y; break;
	case OP_GE: v->i = x >= y; break;
	case OP_EQ: v->i = x == y; break;
	default: v->i = x != y; break;
	}
	return v;
}

static bool truth(Sema *S, Value *v, Pos p, bool *out)
{
	if (v->kind == V_BOOL || v->kind == V_INT) {
		*out = v->i != 0;
		return true;
	}
	fail(S, p, "expected a boolean, not %s", value_kind_name(v));
	return false;
}

/* Builtin calls with a compile-time result. */
static Value *const_call(Sema *S, Expr *e, Value *fn)
{
	switch (fn->intrin) {
	case IN_SLICE: case IN_TILE_LAYOUT: case IN_COMPOSE: case IN_WG_LOCAL:
	case IN_TMEM_DP: case IN_TCGEN05_ATOM: case IN_MMA_SHARED:
		break;
	default:
		return NULL; /* a runtime call or a statement */
	}
	Args a;
	if (!check_args(S, e, fn->intrin, &a))
		return &verr;
	Value *v = vnew(V_LAYOUT);
	Layout *l = layout_new();
	v->layout = l;
	const char *why = NULL;
	switch (fn->intrin) {
	case IN_SLICE: {
		Value *s = vnew(V_SLICE);
		s->elts = xalloc(sizeof(Value *) * 3);
		s->nelts = 3;
		Value *p[3] = { a.pos[0], a.npos > 1 ? a.pos[1] : NULL, a.npos > 2 ? a.pos[2] : NULL };
		if (a.npos == 1) /* slice(hi) */
			p[1] = p[0], p[0] = NULL;
		for (int i = 0; i < 3; i++) {
			if (p[i] && p[i]->kind == V_NONE)
				p[i] = NULL;
			if (p[i] && p[i]->kind != V_INT)
				return fail(S, e->args[i]->pos, "slice bounds must be integer constants");
			s->elts[i] = p[i];
		}
		return s;
	}
	case IN_TILE_LAYOUT: {
		Value *x = a.pos[0];
		if (!x || x->kind != V_LAYOUT)
			return fail(S, e->args[0]->pos, "TileLayout takes a layout such as S[...] + R[...], not %s",
			            x ? value_kind_name(x) : "a runtime value");
		if (x->i)
			return fail(S, e->args[0]->pos, "TileLayout needs a shard S[...]; R[...] alone has no logical shape");
		return x;
	}
	case IN_COMPOSE: {
		Value *t = a.pos[3];
		if (!t || t->kind != V_LAYOUT || t->i)
			return fail(S, e->args[3]->pos, "ComposeLayout's last operand is the tile layout");
		if (t->layout->swizzled)
			return fail(S, e->args[3]->pos, "ComposeLayout over a layout that is already swizzled");
		int64_t M = a.pos[0]->i, B = a.pos[1]->i, Sh = a.pos[2]->i;
		if (M < 0 || M > 7 || B < 0 || B > 7 || Sh < 0 || Sh > 7)
			return fail(S, e->pos, "ComposeLayout(M, B, S, tile): M, B and S must be between 0 and 7");
		if (Sh < B)
			return fail(S, e->args[2]->pos, "ComposeLayout: the atom shift S (%lld) must be at least the swizzle length B (%lld)",
			            (long long)Sh, (long long)B);
		*l = *layout_copy(t->layout);
		l->swizzled = true;
		l->swz_m = (int)M, l->swz_b = (int)B, l->swz_s = (int)Sh;
		return v;
	}
	case IN_WG_LOCAL: {
		int64_t rows = a.npos > 1 ? a.pos[1]->i : 128;
		Kw *k = kwarg(&a, "rows");
		if (k && !eval_int(S, k->value, "rows", &rows))
			return &verr;
		why = layout_wg_local(l, a.pos[0]->i, rows);
		break;
	}
	case IN_TMEM_DP: {
		int64_t sub = a.npos > 3 ? a.pos[3]->i : 0;
		Kw *k = kwarg(&a, "sub_slab");
		if (k && !eval_int(S, k->value, "sub_slab", &sub))
			return &verr;
		why = layout_tmem_datapath(l, a.pos[0]->s, a.pos[1]->i, a.pos[2]->i, sub);
		break;
	}
	case IN_TCGEN05_ATOM: {
		int64_t *rc;
		int n;
		if (!tuple_ints(a.pos[1], &rc, &n) || n != 2)
			return fail(S, e->args[1]->pos, "tcgen05_atom_layout takes the tile shape as (rows, cols)");
		why = layout_tcgen05_atom(l, a.pos[0]->s, rc[0], rc[1], a.pos[2]->dtype);
		break;
	}
	case IN_MMA_SHARED: {
		int64_t *rc;
		int n;
		if (!tuple_ints(a.pos[2], &rc, &n) || n != 2)
			return fail(S, e->args[2]->pos, "mma_shared_layout takes the tile shape as (rows, cols)");
		why = layout_mma_shared(l, a.pos[0]->dtype, a.pos[1]->i, rc[0], rc[1]);
		break;
	}
	default:
		die("const_call: intrinsic %d", fn->intrin);
	}
	if (why)
		return fail(S, e->pos, "%s", why);
	return v;
}

/* Both operands of a binary node as compile-time values: &vok, or what
 * eval gives instead (NULL for a runtime value, &verr after an error). */
static Value vok;
static Value *operands(Sema *S, Expr *e, Value **a, Value **b)
{
	*a = eval(S, e->a);
	if (!*a || IS_ERR(*a))
		return *a;
	*b = eval(S, e->b);
	if (!*b || IS_ERR(*b))
		return *b;
	if ((*a)->kind == V_VAR || (*b)->kind == V_VAR)
		return NULL;
	return &vok;
}

Value *eval(Sema *S, Expr *e)
{
	Value *a, *b, *v;
	bool t;
	switch (e->kind) {
	case E_INT:
		return vint(e->ival);
	case E_FLOAT:
		v = vnew(V_FLOAT);
		v->f = e->fval;
		return v;
	case E_STR:
		v = vnew(V_STR);
		v->s = e->str;
		return v;
	case E_TRUE: case E_FALSE:
		v = vnew(V_BOOL);
		v->i = e->kind == E_TRUE;
		return v;
	case E_NONE:
		return vnew(V_NONE);
	case E_NAME: {
		Sym *s = lookup(S, e->str);
		if (!s)
			return fail(S, e->pos, "name '%s' is not defined", e->str);
		return s->val;
	}
	case E_ATTR:
		a = eval(S, e->a);
		if (!a || IS_ERR(a))
			return a;
		if (a->kind == V_NAMESPACE)
			return member(S, a, e);
		if (a->kind == V_FUNC && intrin_is_prefix(intrins[a->intrin].path)) {
			/* T.ptx.cp_async is an intrinsic and a namespace */
			Value *ns = vnew(V_NAMESPACE);
			ns->s = intrins[a->intrin].path;
			return member(S, ns, e);
		}
		if (a->kind == V_BUFFER) {
			Buffer *buf = a->buffer;
			if (strcmp(e->str, "data") == 0) {
				v = vnew(V_DATA);
				v->buffer = buf;
				return v;
			}
			if (strcmp(e->str, "shape") == 0) {
				v = vnew(V_TUPLE);
				v->nelts = buf->ndim;
				v->elts = xalloc(sizeof(Value *) * (size_t)(buf->ndim + 1));
				for (int i = 0; i < buf->ndim; i++)
					v->elts[i] = vint(buf->shape[i]);
				return v;
			}
			if (strcmp(e->str, "view") == 0)
				return NULL; /* a method: the caller makes the view */
			if (strcmp(e->str, "dtype") == 0) {
				v = vnew(V_STR);
				v->s = dtypes[buf->dtype].name;
				return v;
			}
			return fail(S, e->pos, "buffer '%s' has no attribute '%s' (it has data, shape, dtype and view)",
			            buf->name, e->str);
		}
		return fail(S, e->pos, "%s has no attribute '%s'", value_kind_name(a), e->str);
	case E_TUPLE: case E_LIST:
		v = vnew(V_TUPLE);
		v->nelts = e->nargs;
		v->elts = xalloc(sizeof(Value *) * (size_t)(e->nargs + 1));
		for (int i = 0; i < e->nargs; i++) {
			a = eval(S, e->args[i]);
			if (!a || IS_ERR(a))
				return a;
			v->elts[i] = a;
		}
		return v;
	case E_BIN:
		if ((v = operands(S, e, &a, &b)) != &vok)
			return v;
		return arith(S, e, a, b);
	case E_UN:
		a = eval(S, e->a);
		if (!a || IS_ERR(a) || a->kind == V_VAR)
			return a && a->kind == V_VAR ? NULL : a;
		if (e->op == OP_POS && (a->kind == V_INT || a->kind == V_FLOAT))
			return a;
		if (a->kind == V_INT && e->op == OP_NEG && a->i != INT64_MIN)
			return vint(-a->i);
		if (a->kind == V_INT && e->op == OP_INVERT)
			return vint(~a->i);
		if (a->kind == V_FLOAT && e->op == OP_NEG) {
			v = vnew(V_FLOAT);
			v->f = -a->f;
			return v;
		}
		return fail(S, e->pos, "operator '%s' is not defined on %s", op_spelling[e->op], value_kind_name(a));
	case E_CMP:
		if ((v = operands(S, e, &a, &b)) != &vok)
			return v;
		return compare(S, e, a, b);
	case E_AND: case E_OR:
		a = eval(S, e->a);
		if (!a || IS_ERR(a) || a->kind == V_VAR)
			return a && a->kind == V_VAR ? NULL : a;
		b = eval(S, e->b);
		if (!b || IS_ERR(b) || b->kind == V_VAR)
			return b && b->kind == V_VAR ? NULL : b;
		if (!truth(S, a, e->a->pos, &t) || !truth(S, b, e->b->pos, &(bool){0}))
			return &verr;
		return (e->kind == E_AND) == t ? b : a;
	case E_NOT:
		a = eval(S, e->a);
		if (!a || IS_ERR(a) || a->kind == V_VAR)
			return a && a->kind == V_VAR ? NULL : a;
		if (!truth(S, a, e->a->pos, &t))
			return &verr;
		v = vnew(V_BOOL);
		v->i = !t;
		return v;
	case E_COND:
		a = eval(S, e->a);
		if (!a || IS_ERR(a) || a->kind == V_VAR)
			return a && a->kind == V_VAR ? NULL : a;
		if (!truth(S, a, e->a->pos, &t))
			return &verr;
		return eval(S, t ? e->b : e->c);
	case E_INDEX:
		a = eval(S, e->a);
		if (!a || IS_ERR(a))
			return a;
		if (a->kind == V_FUNC && (a->intrin == IN_S || a->intrin == IN_R))
			return iters(S, e, a->intrin == IN_R);
		if (a->kind == V_TUPLE) {
			int64_t i;
			if (e->nargs != 1 || e->args[0]->kind == E_SLICE)
				return fail(S, e->pos, "a tuple takes one integer index");
			if (!eval_int(S, e->args[0], "a tuple index", &i))
				return &verr;
			if (i < -a->nelts || i >= a->nelts)
				return fail(S, e->args[0]->pos, "tuple index %lld out of range for a tuple of %d",
				            (long long)i, a->nelts);
			return a->elts[i < 0 ? i + a->nelts : i];
		}
		return NULL; /* a buffer element: a runtime value */
	case E_CALL:
		a = eval(S, e->a);
		if (!a || IS_ERR(a))
			return a;
		if (a->kind == V_FUNC)
			return const_call(S, e, a);
		return NULL;
	case E_SLICE:
		return fail(S, e->pos, "a slice is only valid inside [...]");
	}
	return NULL;
}

Value *eval_const(Sema *S, Expr *e, const char *what)
{
	Value *v = eval(S, e);
	if (IS_ERR(v))
		return v;
	if (!v || v->kind == V_VAR)
		return fail(S, e->pos, "%s must be a compile-time constant", what);
	return v;
}

bool eval_int(Sema *S, Expr *e, const char *what, int64_t *out)
{
	Value *v = eval_const(S, e, what);
	if (IS_ERR(v))
		return false;
	if (v->kind != V_INT) {
		fail(S, e->pos, "%s must be an integer, not %s", what, value_kind_name(v));
		return false;
	}
	*out = v->i;
	return true;
}

/* "float16", T.float16, or a constant bound to either. */
int eval_dtype(Sema *S, Expr *e)
{
	Value *v = eval_const(S, e, "a dtype");
	if (IS_ERR(v))
		return DT_NONE;
	if (v->kind == V_DTYPE)
		return v->dtype;
	if (v->kind == V_STR) {
		int dt = dtype_lookup(v->s);
		if (dt && dt != DT_HANDLE)
			return dt;
		fail(S, e->pos, "unknown dtype \"%s\"", v->s);
		return DT_NONE;
	}
	fail(S, e->pos, "expected a dtype such as \"float16\", not %s", value_kind_name(v));
	return DT_NONE;
}

bool eval_shape(Sema *S, Expr *e, int64_t **shape, int *ndim)
{
	Value *v = eval_const(S, e, "a buffer shape");
	if (IS_ERR(v))
		return false;
	if (!tuple_ints(v, shape, ndim)) {
		fail(S, e->pos, "a buffer shape is an integer or a tuple of integers, not %s", value_kind_name(v));
		return false;
	}
	if (*ndim == 0) {
		fail(S, e->pos, "a buffer shape needs at least one dimension");
		return false;
	}
	int64_t n = 1;
	for (int i = 0; i < *ndim; i++) {
		if ((*shape)[i] <= 0) {
			fail(S, e->pos, "buffer dimension %d has extent %lld; extents must be positive", i,
			     (long long)(*shape)[i]);
			return false;
		}
		if (!mul_ok(n, (*shape)[i], &n) || n > ((int64_t)1 << 40)) {
			fail(S, e->pos, "buffer is too large (more than 2^40 elements)");
			return false;
		}
	}
	return true;
}

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

/* The dtype of `a op b`: equal dtypes, or a literal taking the other's. */
int unify(Sema *S, Pos p, const char *op, int a, int b)
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
	return error_dt(S, p, "operands of '%s' have different dtypes, %s and %s; convert one with T.cast",
	                op, dtype_str(a), dtype_str(b));
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

static int scalar_call(Sema *S, Expr *e, Value *fn)
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
		return DT_HANDLE;
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
		return DT_HANDLE;
	}
	default:
		return error_dt(S, e->pos, "%s() has no value to use in an expression", intrins[fn->intrin].path);
	}
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
		return error_dt(S, e->pos, "expected a scalar value here");
	case E_NAME: case E_ATTR:
		v = eval(S, e);
		if (IS_ERR(v))
			return DT_ERROR;
		if (!v)
			return error_dt(S, e->pos, "expected a scalar value here");
		e->val = v;
		switch (v->kind) {
		case V_VAR:
			e->val = NULL;
			e->var = v->var;
			return v->var->dtype;
		case V_INT: return DT_WEAK_INT;
		case V_FLOAT: return DT_WEAK_FLOAT;
		case V_BOOL: return DT_BOOL;
		default:
			e->val = NULL;
			return error_dt(S, e->pos, "'%s' is %s; a scalar value is expected here", expr_str(e),
			                value_kind_name(v));
		}
	case E_INDEX:
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
		v = eval(S, e->a);
		if (IS_ERR(v))
			return DT_ERROR;
		if (!v)
			return error_dt(S, e->pos, "expected a builtin function");
		return scalar_call(S, e, v);
	case E_BIN:
		a = scalar(S, e->a);
		b = scalar(S, e->b);
		if (a == DT_ERROR || b == DT_ERROR)
			return DT_ERROR;
		if (e->op == OP_MATMUL)
			return error_dt(S, e->pos, "'@' makes a layout stride 'n @ axis'; it has no meaning on runtime values");
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
			e->val = eval(S, e);
			if (IS_ERR(e->val)) {
				e->val = NULL;
				return DT_ERROR;
			}
		} else if (e->op == OP_POW) {
			return error_dt(S, e->pos, "'**' needs compile-time constant operands");
		}
		return unify(S, e->pos, op_spelling[e->op], a, b);
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
		a = scalar(S, e->a);
		b = scalar(S, e->b);
		if (unify(S, e->pos, op_spelling[e->op], a, b) == DT_ERROR)
			return DT_ERROR;
		return DT_BOOL;
	case E_AND: case E_OR: case E_NOT:
		a = scalar(S, e->a);
		b = e->kind == E_NOT ? DT_BOOL : scalar(S, e->b);
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
		b = scalar(S, e->b);
		return unify(S, e->pos, "if-else", b, scalar(S, e->c));
	}
	return DT_ERROR;
}

int scalar(Sema *S, Expr *e)
{
	e->dtype = scalar1(S, e);
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
			lo = s->a ? s->a : new_int(p, 0);
			hi = s->b ? s->b : new_int(p, shape[i]);
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
		if (expr_range(lo, &l0, &l1) && (l0 < 0 || !add_ok(l1, extent, &end) || end > shape[i])) {
			if (l0 == l1)
				fail(S, p, "slice %lld:%lld is out of bounds for dimension %d of '%s' (extent %lld)",
				     (long long)l0, (long long)(l0 + extent), i, name, (long long)shape[i]);
			else
				fail(S, p, "region of dimension %d of '%s' starts in [%lld, %lld] with extent %lld, out of bounds (extent %lld)",
				     i, name, (long long)l0, (long long)l1, (long long)extent, (long long)shape[i]);
			bad = true;
			continue;
		}
		r->starts[i] = outer ? add_start(outer->starts[i], lo) : lo;
		r->extents[i] = extent;
	}
	return bad ? &verr : r;
}
