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

/* An integer's value is never changed once made (every value that is
 * computed is a new one from vnew: nothing writes into a value it did not
 * just make), so one value serves each use of the same integer. A long
 * kernel's literals are a few numbers thousands of times: each was a
 * value of its own (150 bytes). The table only remembers: a slot taken
 * by another integer makes a new value, as before. */
Value *vint(int64_t i)
{
	static Value *made[256];
	Value **slot = &made[(uint64_t)i * 0x9E3779B97F4A7C15u >> 56];
	if (*slot && (*slot)->i == i)
		return *slot;
	Value *v = vnew(V_INT);
	v->i = i;
	*slot = v;
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
	case V_TUPLE: return v->list ? "a list" : "a tuple";
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
	case V_PYFUNC: return "a helper function";
	case V_DICT: return "a dict";
	case V_TMAP: return "a tensor map";
	case V_OPAQUE: return "a name from a module txc does not know";
	case V_TLAYOUT: return "a Triton layout (it takes its shape from a buffer's layout=)";
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

Value *fail(Sema *S, Pos p, const char *fmt, ...)
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
static Value *member1(Sema *S, Value *base, Expr *e)
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
		/* TVM's shorthands of dtypes: T.f32, T.i32, T.u8, T.bf16 */
		static const char *const shorthand[][2] = {
			{"f16", "float16"}, {"f32", "float32"}, {"f64", "float64"}, {"bf16", "bfloat16"},
			{"i8", "int8"}, {"i16", "int16"}, {"i32", "int32"}, {"i64", "int64"},
			{"u8", "uint8"}, {"u16", "uint16"}, {"u32", "uint32"}, {"u64", "uint64"},
		};
		const char *dname = e->str;
		for (size_t k = 0; k < sizeof shorthand / sizeof shorthand[0]; k++)
			if (strcmp(dname, shorthand[k][0]) == 0)
				dname = shorthand[k][1];
		int dt = dtype_lookup(dname);
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
	bool tile_op = strcmp(e->str, "copy") == 0 || strcmp(e->str, "copy_async") == 0 || strcmp(e->str, "gemm_async") == 0;
	if (base->i && tile_op) {
		/* T.cta.copy: the op, run at the scope of its namespace */
		Value *v = vnew(V_FUNC);
		v->intrin = strcmp(e->str, "copy") == 0 ? IN_COPY : strcmp(e->str, "gemm_async") == 0 ? IN_GEMM_ASYNC : IN_COPY_ASYNC;
		v->i = base->i - 1;
		return v;
	}
	/* a namespace; below T.ptx also any PTX instruction chain, and a TVM
	 * builtin that means one of txc's (ptx.def): the call resolves it */
	if (intrin_is_prefix(path) || !strncmp(path, "T.ptx.", 6) || ptx_is_alias(path)) {
		Value *v = vnew(V_NAMESPACE);
		v->s = path;
		return v;
	}
	if (strcmp(base->s, "T") == 0 && intrin_lookup(xprintf("layout.%s", e->str)) >= 0) {
		/* T.TileLayout, T.S: the layout names through T */
		Value *v = vnew(V_FUNC);
		v->intrin = intrin_lookup(xprintf("layout.%s", e->str));
		return v;
	}
	const char *why = tvm_refused_name(path);
	if (why)
		return fail(S, e->pos, "not supported yet: %s.%s: %s", expr_str(e->a), e->str, why);
	/* named as the user wrote the base (Tx, T.ptx), with what would fit */
	const char *user = expr_str(e->a);
	if (strcmp(base->s, "T") == 0)
		return fail(S, e->pos, "'%s' has no member '%s': the execution scopes of tile ops are %s.thread, %s.warp, "
		            "%s.warpgroup (or %s.wg), %s.cta and %s.cluster; `txc-parse --intrinsics` lists the builtins",
		            user, e->str, user, user, user, user, user, user);
	if (base->i)
		return fail(S, e->pos, "'%s' has no member '%s': the tile ops of an execution scope are copy and copy_async",
		            user, e->str);
	return fail(S, e->pos, "'%s' has no member '%s'", user, e->str);
}

/* The memo's hash of (base, name): the name's first two characters', the
 * path's pointer's and the scope's. Not the whole name's, which every
 * call's callee would hash again: names that share their start (copy,
 * copy_async) only probe further, and member_slot compares whole names. */
static unsigned member_hash(const Value *base, const char *name)
{
	uintptr_t p = (uintptr_t)base->s;
	unsigned n = (unsigned char)name[0] * 131u + (name[0] ? (unsigned char)name[1] : 0);
	return (n * 2654435761u) ^ (unsigned)((p >> 4) * 2654435761u) ^ (unsigned)base->i;
}

/* The slot of (base, name) in the memo: its answer, or the empty slot it
 * would take. (A callee's name is most often the one the slot keeps: the
 * lowering's callees are shared, the lexer's short names interned.) */
static struct MemberSlot *member_slot(MemberMemo *m, const Value *base, const char *name, unsigned h)
{
	unsigned mask = (unsigned)m->cap - 1;
	struct MemberSlot *x = &m->slots[h & mask];
	for (unsigned i = h; x->v; x = &m->slots[++i & mask])
		if (x->hash == h && x->ns == base->s && x->scope == base->i && (x->name == name || strcmp(x->name, name) == 0))
			break;
	return x;
}

/* member(), kept: its answer depends only on the namespace's path and
 * scope and on the member's name (the rest are fixed tables), and the
 * Values it makes are never changed by those who read them, so an answer
 * found again is the one member1 would make anew. The memo lives as long
 * as the Sema; errors are not kept (each is reported at its own place). */
static Value *member(Sema *S, Value *base, Expr *e)
{
	MemberMemo *m = &S->members;
	unsigned h = member_hash(base, e->str);
	if (m->cap) {
		struct MemberSlot *x = member_slot(m, base, e->str, h);
		if (x->v)
			return x->v;
	}
	Value *v = member1(S, base, e);
	if (IS_ERR(v))
		return v;
	if (2 * (m->n + 1) > m->cap) { /* at most half full */
		int cap = m->cap ? 2 * m->cap : 64;
		MemberMemo g = { xalloc(sizeof *g.slots * (size_t)cap), m->n, cap };
		for (int i = 0; i < m->cap; i++)
			if (m->slots[i].v) {
				Value key = { .s = m->slots[i].ns, .i = m->slots[i].scope };
				*member_slot(&g, &key, m->slots[i].name, m->slots[i].hash) = m->slots[i];
			}
		*m = g;
	}
	*member_slot(m, base, e->str, h) = (struct MemberSlot){ base->s, base->i, e->str, h, v };
	m->n++;
	return v;
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
	if (op == OP_ADD && a->kind == V_STR && b->kind == V_STR) {
		if (strlen(a->s) + strlen(b->s) > (1 << 20))
			return fail(S, e->pos, "a constant string has at most %d bytes", 1 << 20);
		Value *v = vnew(V_STR);
		v->s = xprintf("%s%s", a->s, b->s);
		return v;
	}
	if (op == OP_MUL && (a->kind == V_TUPLE || b->kind == V_TUPLE) && (a->kind == V_INT || b->kind == V_INT)) {
		Value *t = a->kind == V_TUPLE ? a : b;
		int64_t n = a->kind == V_INT ? a->i : b->i, total;
		if (n < 0)
			n = 0;
		if (!mul_ok(n, t->nelts, &total) || total > (1 << 20))
			return fail(S, e->pos, "a constant sequence has at most %d elements", 1 << 20);
		Value *v = vnew(V_TUPLE);
		v->list = t->list;
		v->nelts = (int)total;
		v->elts = xalloc(sizeof(Value *) * (size_t)(total + 1));
		for (int64_t i = 0; i < total; i++)
			v->elts[i] = t->elts[i % t->nelts];
		return v;
	}
	if (op == OP_ADD && a->kind == V_TUPLE && b->kind == V_TUPLE) {
		if (a->list != b->list)
			return fail(S, e->pos, "cannot add a tuple and a list");
		if (a->nelts + b->nelts > (1 << 20))
			return fail(S, e->pos, "a constant sequence has at most %d elements", 1 << 20);
		Value *v = vnew(V_TUPLE);
		v->list = a->list;
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
			ok = int_binop(op, x, y, &r);
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
			/* x * 2^y, as Python has it, when it fits (a shift that overflows
			 * is undefined in C, so it is not tried) */
			if (y < 0 || y > 62 || !mul_ok(x, (int64_t)1 << y, &r))
				ok = false;
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

Value *eval_arith(Sema *S, Expr *e, Value *a, Value *b) { return arith(S, e, a, b); }

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
	} else if ((a->kind == V_BOOL || a->kind == V_INT) && (b->kind == V_BOOL || b->kind == V_INT)) {
		x = a->i < b->i ? -1 : a->i > b->i, y = 0;
	} else if ((e->op == OP_EQ || e->op == OP_NE) && (a->kind == V_NONE || b->kind == V_NONE ||
	           (a->kind == V_TUPLE && b->kind == V_TUPLE))) {
		int eq = value_equal(a, b);
		if (eq < 0)
			return fail(S, e->pos, "these constants are too large to compare");
		Value *v = vnew(V_BOOL);
		v->i = eq == (e->op == OP_EQ);
		return v;
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

/* The builtins const_call gives a value. */
static bool const_builtin(int id)
{
	switch (id) {
	case IN_SLICE: case IN_TILE_LAYOUT: case IN_COMPOSE: case IN_SWIZZLE: case IN_WG_LOCAL:
	case IN_TMEM_DP: case IN_TCGEN05_ATOM: case IN_MMA_SHARED: case IN_NVMMA_SHARED: case IN_TMEM_LAYOUT:
		return true;
	default:
		return false;
	}
}

bool runtime_builtin(const Value *fn)
{
	return fn && fn->kind == V_FUNC && fn->intrin != IN_META_VAR && fn->intrin != IN_RANGE &&
	       !is_py_builtin(fn->intrin) && !const_builtin(fn->intrin);
}

/* The swizzle (M, B, S) of SwizzleLayout or ComposeLayout into l, after
 * checking it; its swizzle_inner (operand `inner`, or the keyword) must
 * be TVM's default. */
static bool swizzle_fields(Sema *S, Expr *e, Args *a, int inner, const int64_t mbs[3], Pos shift_at, Layout *l)
{
	const char *name = fn_name(e);
	if (mbs[0] < 0 || mbs[0] > 7 || mbs[1] < 0 || mbs[1] > 7 || mbs[2] < 0 || mbs[2] > 7) {
		fail(S, e->pos, "%s(M, B, S, ...): M, B and S must be between 0 and 7", name);
		return false;
	}
	if (mbs[2] < mbs[1]) {
		fail(S, shift_at, "%s: the atom shift S (%lld) must be at least the swizzle length B (%lld)", name,
		     (long long)mbs[2], (long long)mbs[1]);
		return false;
	}
	Kw *k = kwarg(a, "swizzle_inner");
	Value *in = k ? k->value->val : a->npos > inner ? a->pos[inner] : NULL;
	if (k && a->npos > inner) {
		fail(S, k->pos, "%s() got swizzle_inner both as an operand and as a keyword", name);
		return false;
	}
	if (in && in->kind == V_BOOL && !in->i && mbs[1] > 0) {
		fail(S, k ? k->value->pos : e->args[inner]->pos,
		     "not supported yet: swizzle_inner=False (the mirrored swizzle, x ^ ((x & inner_mask) << S)); "
		     "txc's swizzles are TVM's default, swizzle_inner=True, the one TMA and tcgen05 use");
		return false;
	}
	l->swizzled = true;
	l->swz_m = (int)mbs[0], l->swz_b = (int)mbs[1], l->swz_s = (int)mbs[2];
	return true;
}

/* Builtin calls with a compile-time result. */
static Value *const_call(Sema *S, Expr *e, Value *fn)
{
	if (!const_builtin(fn->intrin))
		return NULL; /* a runtime call or a statement */
	Args a;
	if (!check_args(S, e, fn->intrin, &a))
		return &verr;
	if (fn->intrin == IN_NVMMA_SHARED || fn->intrin == IN_TMEM_LAYOUT)
		return triton_layout_value(S, e, fn->intrin);
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
			if (p[i] && p[i]->kind != V_INT) /* slice(hi) has its one operand at 1 */
				return fail(S, e->args[a.npos == 1 ? 0 : i]->pos, "slice bounds must be integer constants");
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
	case IN_SWIZZLE: {
		/* a bare swizzle: V_LAYOUT with i = 2 and no iters, only
		 * ComposeLayout's first operand (and apply) take it */
		static const char *const names[3] = { "per_element", "swizzle_len", "atom_len" };
		int64_t mbs[3];
		Pos shift_at = e->pos;
		for (int i = 0; i < 3; i++) {
			Kw *k = kwarg(&a, names[i]);
			if (i == 2)
				shift_at = k ? k->value->pos : a.npos > 2 ? e->args[2]->pos : e->pos;
			if (k && a.npos > i)
				return fail(S, k->pos, "SwizzleLayout() got %s both as an operand and as a keyword", names[i]);
			if (!k && a.npos <= i)
				return fail(S, e->pos, "SwizzleLayout() needs %s: SwizzleLayout(per_element, swizzle_len, atom_len)",
				            names[i]);
			if (k && !eval_int(S, k->value, names[i], &mbs[i]))
				return &verr;
			if (!k)
				mbs[i] = a.pos[i]->i;
		}
		if (!swizzle_fields(S, e, &a, 3, mbs, shift_at, l))
			return &verr;
		v->i = 2;
		return v;
	}
	case IN_COMPOSE: {
		/* ComposeLayout(M, B, S, tile[, swizzle_inner]) (txc's canonical
		 * form) or TVM's ComposeLayout(SwizzleLayout(M, B, S), tile) */
		Value *sw = a.pos[0];
		bool bare = sw && sw->kind == V_LAYOUT && sw->i == 2;
		int ti = bare ? 1 : 3;
		if (bare ? a.npos > 2 : a.npos < 4)
			return fail(S, e->pos, "ComposeLayout takes (M, B, S, tile) or (SwizzleLayout(M, B, S), tile)");
		Value *t = a.pos[ti];
		if (!t || t->kind != V_LAYOUT || t->i)
			return fail(S, e->args[ti]->pos, "ComposeLayout's last operand is the tile layout");
		if (t->layout->swizzled)
			return fail(S, e->args[ti]->pos, "ComposeLayout over a layout that is already swizzled");
		int64_t mbs[3];
		for (int i = 0; i < 3 && !bare; i++) {
			if (!a.pos[i] || a.pos[i]->kind != V_INT)
				return fail(S, e->args[i]->pos, "ComposeLayout(M, B, S, tile): M, B and S are integer constants");
			mbs[i] = a.pos[i]->i;
		}
		*l = *layout_copy(t->layout);
		if (bare) {
			l->swizzled = true;
			l->swz_m = sw->layout->swz_m, l->swz_b = sw->layout->swz_b, l->swz_s = sw->layout->swz_s;
			if (kwarg(&a, "swizzle_inner"))
				return fail(S, kwarg(&a, "swizzle_inner")->pos, "swizzle_inner= belongs to the SwizzleLayout here");
			return v;
		}
		if (!swizzle_fields(S, e, &a, 4, mbs, e->args[2]->pos, l))
			return &verr;
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
		if (!tuple_ints(a.pos[2], &rc, &n) || n < 2)
			return fail(S, e->args[2]->pos, "mma_shared_layout takes the tile shape as (..., rows, cols)");
		why = layout_mma_shared(l, a.pos[0]->dtype, a.pos[1]->i, rc, n);
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

/* e.name, whose chain (e.a.b...) starts at the name of root: its Sym,
 * looked up once for the whole chain, or NULL (no name, or not defined:
 * eval reports it). Not a name of a module txc does not know. */
static Value *attr(Sema *S, Expr *e, const Sym *root)
{
	Value *a, *v;
	if (root && e->a->kind == E_ATTR)
		a = attr(S, e->a, root);
	else if (root && e->a->kind == E_NAME)
		a = root->val; /* the root itself */
	else
		a = eval(S, e->a);
	if (!a && e->a->kind == E_CALL && tvm_refused_member(S, e))
		return &verr; /* X.view(...).permute(...) */
	if (!a || IS_ERR(a))
		return a;
	if (a->kind == V_NAMESPACE)
		return member(S, a, e);
	if (a->kind == V_DTYPE && (strcmp(e->str, "bits") == 0 || strcmp(e->str, "lanes") == 0)) {
		v = vnew(V_INT); /* tvm.DataType(d).bits */
		v->i = strcmp(e->str, "bits") == 0 ? dtypes[a->dtype].bits : 1;
		return v;
	}
	if (a->kind == V_FUNC && a->intrin == IN_SWIZZLE_MODE) { /* SwizzleMode.SWIZZLE_128B_ATOM */
		static const char *const modes[] = { "SWIZZLE_NONE", "SWIZZLE_32B_ATOM", "SWIZZLE_64B_ATOM", "SWIZZLE_128B_ATOM" };
		for (int i = 0; i < 4; i++)
			if (!strcmp(e->str, modes[i]))
				return vint(i);
		return fail(S, e->pos, "SwizzleMode has no member '%s'; it has SWIZZLE_NONE, SWIZZLE_32B_ATOM, "
		            "SWIZZLE_64B_ATOM and SWIZZLE_128B_ATOM", e->str);
	}
	if (a->kind == V_FUNC && (intrin_is_prefix(intrins[a->intrin].path) ||
	                          !strncmp(intrins[a->intrin].path, "T.ptx.", 6))) {
		/* T.ptx.cp_async is an intrinsic and a namespace; a PTX
		 * chain may go on from a builtin (T.ptx.mbarrier.init.shared.b64) */
		Value ns = { .kind = V_NAMESPACE, .s = intrins[a->intrin].path };
		return member(S, &ns, e);
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
		if (strcmp(e->str, "view") == 0 || tvm_is_method(e->str))
			return NULL; /* a method: the caller makes the view, tvm_call rewrites the others */
		if (strcmp(e->str, "dtype") == 0) {
			v = vnew(V_STR);
			v->s = dtypes[buf->dtype].name;
			return v;
		}
		return tvm_member(S, e, buf);
	}
	if (a->kind == V_LAYOUT && strcmp(e->str, "apply") == 0)
		return fail(S, e->pos, "a layout's apply() is read on one axis: L.apply(i)[\"m\"]");
	if (a->kind == V_LAYOUT && a->layout->swizzled) {
		/* a ComposeLayout's swizzle, as TVM names its parts (tests copy
		 * them into a new ComposeLayout around another tile) */
		const Layout *l = a->layout;
		static const char *const parts[] = { "per_element", "swizzle_len", "atom_len" };
		int64_t vals[] = { l->swz_m, l->swz_b, l->swz_s };
		for (int i = 0; i < 3; i++)
			if (!strcmp(e->str, parts[i]))
				return vint(vals[i]);
		if (!strcmp(e->str, "swizzle_inner")) { /* txc's swizzles are all swizzle_inner=True */
			v = vnew(V_BOOL);
			v->i = 1;
			return v;
		}
	}
	return fail(S, e->pos, "%s has no attribute '%s'", value_kind_name(a), e->str);
}

/* A chain of attributes over a namespace, each a member of the one before
 * (T.pointer_offset, T.cuda.copy_bytes, Tx.cta.copy): every call's callee
 * is one, evaluated at each call. Its value depends only on the root
 * name's value and the attributes' names: member's answers depend on the
 * namespace and the name alone, and no namespace is changed once made.
 * The memo keeps it by those, the root's Value and the names' addresses
 * (equal addresses are equal names: the lowering's callees are shared
 * nodes, the lexer interns short names), and a hit compares them all.
 * Errors are not kept (each is reported where it is met). */
enum { NS_CHAINS = 64, NS_CHAIN_MAX = 4 };
struct NsChain {
	const Value *root;
	int n;
	const char *name[NS_CHAIN_MAX]; /* the root's attribute first */
	Value *v;                       /* NULL: an empty slot */
};

/* eval of chain e of n attributes over root (its Sym s), a namespace */
static Value *ns_chain(Sema *S, Expr *e, const Sym *s, int n)
{
	const Value *root = s->val;
	Expr *at[NS_CHAIN_MAX];
	Expr *x = e;
	for (int i = n - 1; i >= 0; i--, x = x->a)
		at[i] = x;
	if (!S->ns_chains)
		S->ns_chains = xalloc(sizeof *S->ns_chains * NS_CHAINS);
	uintptr_t h = ((uintptr_t)root >> 4) * 0x9E3779B97F4A7C15u ^ ((uintptr_t)e->str >> 3) * 0xC2B2AE3D27D4EB4Fu;
	struct NsChain *c = &S->ns_chains[(h ^ (h >> 32)) % NS_CHAINS];
	if (c->v && c->root == root && c->n == n) {
		int i = 0;
		while (i < n && c->name[i] == at[i]->str)
			i++;
		if (i == n)
			return c->v;
	}
	Value *v = s->val;
	for (int i = 0; i < n; i++) {
		if (v->kind != V_NAMESPACE) /* a member of something else: attr's (the steps before found again) */
			return attr(S, e, s);
		v = member(S, v, at[i]);
		if (IS_ERR(v))
			return v;
	}
	*c = (struct NsChain){ root, n, { 0 }, v };
	for (int i = 0; i < n; i++)
		c->name[i] = at[i]->str;
	return v;
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
	case E_NAME:
		return eval_name(S, e);
	case E_ATTR: {
		Expr *root = e->a;
		int n = 1;
		for (; root->kind == E_ATTR; root = root->a)
			n++;
		Sym *s = root->kind == E_NAME ? lookup(S, root->str) : NULL;
		if (s)
			name_found(root, s);
		if (s && s->val->kind == V_OPAQUE) {
			/* tvm.runtime.DataType, math.prod: a name of the module that txc knows */
			Buf mod = {0};
			bputs(&mod, s->val->s);
			if (s->val->name)
				bprintf(&mod, ".%s", s->val->name);
			const char *chain = expr_str(e->a), *dot = strchr(chain, '.');
			if (dot)
				bputs(&mod, dot);
			bool known;
			const char *path = import_lookup(mod.s, e->str, &known);
			if (path && intrin_lookup(path) >= 0) {
				Value *v = vnew(V_FUNC);
				v->intrin = intrin_lookup(path);
				return v;
			}
			Pos p = expr_start(e); /* under all of math.sqrt */
			if (p.line == e->pos.line && e->pos.off + e->pos.len > p.off)
				p.len = e->pos.off + e->pos.len - p.off;
			if (known)
				return fail(S, p, "'%s.%s' is not a name of module '%s' that txc knows; `txc-parse "
				            "--intrinsics` lists those it knows", expr_str(e->a), e->str, mod.s);
			return opaque_use(S, e, s->val); /* named in full: np.float16 */
		}
		if (s && s->val->kind == V_NAMESPACE && n <= NS_CHAIN_MAX)
			return ns_chain(S, e, s, n);
		return attr(S, e, s);
	}
	case E_TUPLE: case E_LIST:
		for (int i = 0; i < e->nargs; i++)
			if (e->args[i]->kind == E_STAR)
				return eval_items(S, e->args, e->nargs, e->kind == E_LIST);
		v = vnew(V_TUPLE);
		v->list = e->kind == E_LIST;
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
		if (e->a->kind == E_CALL && (v = tvm_layout_apply(S, e)))
			return v;
		if (e->kind != E_INDEX) /* apply() at run-time coordinates, now an expression */
			return eval(S, e);
		a = eval(S, e->a);
		if (!a || IS_ERR(a))
			return a;
		if (a->kind == V_FUNC && (a->intrin == IN_S || a->intrin == IN_R))
			return iters(S, e, a->intrin == IN_R);
		if (a->kind == V_TUPLE || a->kind == V_STR || a->kind == V_DICT)
			return index_const(S, e, a);
		return NULL; /* a buffer element: a runtime value */
	case E_CALL:
		switch (tvm_call(S, e)) {
		case -1: return &verr;
		case 1: return eval(S, e);
		}
		switch (t_division_in_place(S, e)) {
		case -1: return &verr;
		case 1: return eval(S, e);
		}
		a = eval(S, e->a);
		if (!a || IS_ERR(a))
			return a;
		if (!expand_call(S, e)) /* f(*a, **d) written out */
			return &verr;
		if (a->kind == V_FUNC && (is_py_builtin(a->intrin) || a->intrin == IN_RANGE))
			return py_call(S, e, a->intrin);
		if (a->kind == V_PYFUNC)
			return helper_eval(S, e, a);
		if (a->kind == V_FUNC)
			return const_call(S, e, a);
		return NULL;
	case E_SLICE:
		return fail(S, e->pos, "a slice is only valid inside [...]");
	case E_STAR:
		return fail(S, e->pos, e->op == 1 ? "'*' unpacks a sequence into a call, a tuple, a list or a subscript"
		                                  : "'**' unpacks a dict into a call's keywords or a dict");
	case E_DICT:
		return eval_dict(S, e);
	case E_COMP:
		return eval_comp(S, e);
	case E_FSTR:
		return eval_fstr(S, e);
	case E_PAIR: case E_COMPFOR: case E_FIELD:
		return fail(S, e->pos, "this part of an expression has no value alone");
	case E_LAMBDA:
		return helper_lambda(S, e);
	}
	return NULL;
}

Value *eval_const(Sema *S, Expr *e, const char *what)
{
	Value *v = e->kind == E_NAME ? eval_name(S, e) : eval(S, e);
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

