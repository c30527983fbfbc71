/* TVM's pool of dynamic shared memory and its mbarriers (TVM's
 * tvm.backend.cuda.lang: SMEMPool, MBarrier), rewritten where sema meets
 * them into txc's explicit text, so that every program after txc-parse
 * sees txc's own builtins:
 *
 *   pool = T.SMEMPool()        -> pool = T.alloc_buffer((N,), "uint8", scope="shared.dyn"[, align=A])
 *   X = pool.alloc(shape, dt, align=a)
 *                              -> X = T.decl_buffer(shape, dt, pool.data, elem_offset=k)
 *   bar = MBarrier(pool, n)    -> bar = T.decl_buffer((n,), "uint64", pool.data, elem_offset=k)
 *   pool.commit()              -> pass (the pool's size N is fixed: nothing to emit)
 *   bar.init(c)                -> if tid == 0: T.ptx.mbarrier.init(T.address_of(bar[i]), T.uint32(c)) for each i
 *   bar.wait(i, phase)         -> T.ptx.mbarrier.try_wait(T.address_of(bar[i]), phase)
 *   bar.arrive(i)              -> T.ptx.mbarrier.arrive(T.address_of(bar[i]))
 *   TMABar(pool, n): the same, and bar.arrive(i, tx_count=b)
 *                              -> T.ptx.mbarrier.arrive_expect_tx(T.address_of(bar[i]), T.uint32(b))
 *   bar.ptr_to([i])            -> T.address_of(bar[i]) (as every buffer's ptr_to)
 *
 * N is the pool's high-water mark: each allocation is placed at the
 * pool's cursor rounded up to its align= and grows the pool, as TVM's
 * bump allocator; A is the largest align= asked. */
#include <string.h>

#include "sema.h"

static Expr *callee(Pos p, const char *path)
{
	Expr *e = new_name(p, "T");
	for (const char *s = path + 2;;) {
		const char *dot = strchr(s, '.');
		Expr *a = new_expr(E_ATTR, p);
		a->a = e;
		a->str = dot ? xstrndup(s, (size_t)(dot - s)) : s;
		e = a;
		if (!dot)
			break;
		s = dot + 1;
	}
	return e;
}

static Expr *str_expr(Pos p, const char *s)
{
	Expr *e = new_expr(E_STR, p);
	e->str = s;
	return e;
}

static Expr *elem_addr(Pos p, const char *buf, Expr *i)
{
	Expr *x = new_expr(E_INDEX, p);
	x->a = new_name(p, buf);
	call_add_arg(x, i);
	Expr *c = new_call(p, callee(p, "T.address_of"));
	call_add_arg(c, x);
	return c;
}

/* The buffer a name is bound to, or NULL. */
static Buffer *named_buffer(Sema *S, Expr *e)
{
	if (e->kind != E_NAME)
		return NULL;
	Sym *s = lookup(S, e->str);
	if (!s || !s->val || IS_ERR(s->val) || s->val->kind != V_BUFFER)
		return NULL;
	return s->val->buffer;
}

static void set_int(Expr *e, int64_t v)
{
	e->ival = v;
	if (e->val && e->val->kind == V_INT)
		e->val = vint(v);
}

/* pool = T.SMEMPool(): the call becomes the pool's T.alloc_buffer, of one
 * byte until allocations grow it. False after an error. */
bool pool_new(Sema *S, Expr *call)
{
	if (call->nargs || call->nkws) {
		error_at(S->d, call->nargs ? call->args[0]->pos : call->kws[0].pos, "not supported yet: T.SMEMPool(ptr): "
		         "a pool over storage the kernel manages; txc's pools own their shared.dyn buffer (T.SMEMPool())");
		return false;
	}
	if (S->env->up && !S->env->up->module) {
		error_at(S->d, call->pos, "T.SMEMPool() inside a loop or branch; a pool is the kernel's, declared at its level");
		return false;
	}
	Pos p = call->pos;
	Expr *shape = new_expr(E_TUPLE, p);
	shape->paren = true;
	call_add_arg(shape, new_int(p, 1));
	call->a = callee(p, "T.alloc_buffer");
	call->args = NULL;
	call->nargs = 0;
	call_add_arg(call, shape);
	call_add_arg(call, str_expr(p, "uint8"));
	call_add_kw(call, "scope", str_expr(p, "shared.dyn"), p);
	return true;
}

void pool_made(Buffer *b)
{
	b->pool = xalloc(sizeof *b->pool);
	b->pool->size = b->decl->args[0]->args[0];
	b->pool->offset = 0;
}

static void pool_grow(Buffer *pool, int64_t end)
{
	if (end > pool->shape[0]) {
		pool->shape[0] = end;
		set_int(pool->pool->size, end);
	}
}

static void pool_align(Buffer *pool, int64_t a)
{
	if (a <= pool->align)
		return;
	pool->align = a;
	Kw *k = call_kw(pool->decl, "align");
	if (k)
		k->value = new_int(k->pos, a);
	else
		call_add_kw(pool->decl, "align", new_int(pool->decl->pos, a), pool->decl->pos);
}

static bool pool_open(Sema *S, Buffer *pool, Expr *call, const char *what)
{
	if (pool->pool->committed) {
		error_at(S->d, call->pos, "%s after %s.commit(): the pool's size is fixed when it is committed", what,
		         pool->name);
		return false;
	}
	return true;
}

/* The call becomes T.decl_buffer(shape, dtype, pool.data, elem_offset=k),
 * k the place of `bytes` bytes aligned to `align` in the pool. */
static bool carve(Sema *S, Expr *call, Buffer *pool, Expr *shape, Expr *dtype, int dt, int64_t bytes, int64_t align,
                  Kw *layout)
{
	int64_t eb = dtype_bytes(dt), off = pool->pool->offset;
	if (align > 1)
		off = (off + align - 1) / align * align;
	if (off % eb) {
		error_at(S->d, call->pos, "this %s allocation would start at byte %lld of pool '%s', not a multiple of its "
		         "%lld-byte elements: give it align=%lld", dtypes[dt].name, (long long)off, pool->name, (long long)eb,
		         (long long)eb);
		return false;
	}
	int64_t end;
	if (!add_ok(off, bytes, &end) || end > INT32_MAX) {
		error_at(S->d, call->pos, "pool '%s' grows past 2 GiB", pool->name);
		return false;
	}
	pool->pool->offset = end;
	pool_grow(pool, end);
	if (align > 1)
		pool_align(pool, align);
	Pos p = call->pos;
	Expr *data = new_expr(E_ATTR, p);
	data->a = new_name(p, pool->name);
	data->str = "data";
	call->a = callee(p, "T.decl_buffer");
	call->args = NULL;
	call->nargs = 0;
	call->kws = NULL;
	call->nkws = 0;
	call_add_arg(call, shape);
	call_add_arg(call, dtype);
	call_add_arg(call, data);
	if (off / eb)
		call_add_kw(call, "elem_offset", new_int(p, off / eb), p);
	if (layout)
		call_add_kw(call, "layout", layout->value, layout->pos);
	return true;
}

static bool align_kw(Sema *S, Kw *k, int64_t *a)
{
	if (!eval_int(S, k->value, "align=", a))
		return false;
	if (*a < 0 || *a > 1024 || (*a & (*a - 1))) {
		error_at(S->d, k->value->pos, "align= is the byte alignment of the allocation: 0 or a power of two up to "
		         "1024, not %lld", (long long)*a);
		return false;
	}
	return true;
}

/* X = pool.alloc(shape, dtype="float32", align=0, scope="shared.dyn",
 * layout=...) or X = MBarrier(pool, n): rewritten into T.decl_buffer.
 * 1 rewritten (*depth the mbarriers, 0 for alloc), 0 not one, -1 error. */
int pool_alloc(Sema *S, Expr *call, int64_t *depth, int64_t *phase, bool *tma)
{
	Expr *f = call->a;
	*depth = 0;
	*tma = false;
	*phase = 0;
	if (f->kind == E_ATTR && strcmp(f->str, "alloc") == 0) {
		Buffer *pool = named_buffer(S, f->a);
		if (!pool || !pool->pool)
			return 0;
		if (!pool_open(S, pool, call, xprintf("%s.alloc()", pool->name)))
			return -1;
		if (call->nargs < 1 || call->nargs > 2) {
			error_at(S->d, call->pos, "%s.alloc() takes a shape and a dtype: %s.alloc([n], \"float16\", align=128)",
			         pool->name, pool->name);
			return -1;
		}
		Expr *shape = call->args[0], *dtype = call->nargs > 1 ? call->args[1] : NULL;
		int64_t align = 0;
		Kw *layout = NULL;
		for (int i = 0; i < call->nkws; i++) {
			Kw *k = &call->kws[i];
			Value *v = NULL;
			if (!strcmp(k->name, "dtype") && !dtype) {
				dtype = k->value;
			} else if (!strcmp(k->name, "align")) {
				if (!align_kw(S, k, &align))
					return -1;
			} else if (!strcmp(k->name, "scope")) {
				v = eval_const(S, k->value, "scope=");
				if (IS_ERR(v))
					return -1;
				if (v->kind != V_STR || (strcmp(v->s, "shared.dyn") && strcmp(v->s, "shared"))) {
					error_at(S->d, k->value->pos, "a pool holds shared memory: scope=\"shared.dyn\"");
					return -1;
				}
			} else if (!strcmp(k->name, "strides")) {
				v = eval(S, k->value);
				if (IS_ERR(v))
					return -1;
				if (!v || v->kind != V_NONE) {
					error_at(S->d, k->value->pos, "not supported yet: alloc(strides=): give a layout= instead");
					return -1;
				}
			} else if (!strcmp(k->name, "layout")) {
				v = eval(S, k->value);
				if (IS_ERR(v))
					return -1;
				if (!v || v->kind != V_STR || strcmp(v->s, "default"))
					layout = k;
			} else {
				error_at(S->d, k->pos, "%s.alloc() has no keyword argument '%s'; it takes dtype, align, scope, "
				         "strides and layout", pool->name, k->name);
				return -1;
			}
		}
		if (!dtype)
			dtype = str_expr(call->pos, "float32");
		int dt = eval_dtype(S, dtype);
		if (dt == DT_NONE)
			return -1;
		int64_t *sh, n = 1;
		int nd;
		if (!eval_shape(S, shape, &sh, &nd))
			return -1;
		for (int i = 0; i < nd; i++)
			if (!mul_ok(n, sh[i], &n))
				n = INT64_MAX;
		if (dtypes[dt].bits % 8) {
			error_at(S->d, dtype->pos, "not supported yet: a pool allocation of %s: txc's buffers over raw storage have "
			         "whole-byte elements", dtypes[dt].name);
			return -1;
		}
		if (!mul_ok(n, dtype_bytes(dt), &n)) {
			error_at(S->d, shape->pos, "this allocation overflows");
			return -1;
		}
		return carve(S, call, pool, shape, dtype, dt, n, align, layout) ? 1 : -1;
	}
	if (f->kind != E_NAME)
		return 0;
	Value *fn = eval(S, f);
	if (IS_ERR(fn))
		return -1;
	if (!fn || fn->kind != V_FUNC || (fn->intrin != IN_MBARRIER && fn->intrin != IN_TMABAR))
		return 0;
	const char *kind = fn->intrin == IN_TMABAR ? "TMABar" : "MBarrier";
	*tma = fn->intrin == IN_TMABAR;
	Args a;
	if (!check_args(S, call, fn->intrin, &a))
		return -1;
	Buffer *pool = named_buffer(S, call->args[0]);
	if (!pool || !pool->pool) {
		error_at(S->d, call->args[0]->pos, "%s() takes the pool it is allocated in (pool = T.SMEMPool()), not "
		         "'%s'", kind, expr_str(call->args[0]));
		return -1;
	}
	Kw *k = kwarg(&a, "leader");
	if (k) {
		error_at(S->d, k->pos, "not supported yet: %s(leader=): txc's init() runs on thread 0 of the CTA", kind);
		return -1;
	}
	if (!pool_open(S, pool, call, xprintf("%s()", kind)))
		return -1;
	int64_t n = a.pos[1]->i;
	if (n < 1 || n > 1024) {
		error_at(S->d, call->args[1]->pos, "%s() holds 1 to 1024 barriers, not %lld", kind, (long long)n);
		return -1;
	}
	k = kwarg(&a, "phase_offset");
	if (k) {
		if (!eval_int(S, k->value, "phase_offset=", phase))
			return -1;
		if (*phase != 0 && *phase != 1) {
			error_at(S->d, k->value->pos, "phase_offset= is a phase bit, 0 or 1, not %lld", (long long)*phase);
			return -1;
		}
	}
	*depth = n;
	Pos p = call->pos;
	Expr *shape = new_expr(E_TUPLE, p);
	shape->paren = true;
	call_add_arg(shape, new_int(p, n));
	return carve(S, call, pool, shape, str_expr(p, "uint64"), DT_UINT64, n * 8, 8, NULL) ? 1 : -1;
}

/* The index of bar.wait(i, ...) and bar.arrive(i): in range when constant. */
static bool bar_index(Sema *S, Buffer *b, Expr *call, Expr *i)
{
	Value *v = eval(S, i);
	if (IS_ERR(v))
		return false;
	if (v && v->kind == V_INT && (v->i < 0 || v->i >= b->mbar_depth)) {
		error_at(S->d, i->pos, "barrier %lld of '%s', which holds %lld (0 to %lld)", (long long)v->i, b->name,
		         (long long)b->mbar_depth, (long long)b->mbar_depth - 1);
		return false;
	}
	(void)call;
	return true;
}

static void to_call(Stmt *s, Expr *call)
{
	s->kind = S_EXPR;
	s->value = call;
}

/* A statement pool.commit(), bar.init(c), bar.wait(i, phase) or
 * bar.arrive(i), rewritten in place into txc's statements. 1 rewritten,
 * 0 not one, -1 error. */
int pool_stmt(Sema *S, Stmt *s)
{
	Expr *e = s->value;
	if (e->kind != E_CALL || e->a->kind != E_ATTR)
		return 0;
	Buffer *b = named_buffer(S, e->a->a);
	if (!b || (!b->pool && !b->mbar_depth))
		return 0;
	const char *m = e->a->str;
	Pos p = e->pos;
	if (b->pool) {
		if (strcmp(m, "commit") != 0)
			return 0;
		if (!pool_open(S, b, e, xprintf("%s.commit()", b->name)))
			return -1;
		if (e->nargs > 1 || (e->nkws && (e->nkws > 1 || e->nargs || strcmp(e->kws[0].name, "size")))) {
			error_at(S->d, e->pos, "%s.commit() takes at most the pool's size in bytes: %s.commit() or "
			         "%s.commit(size)", b->name, b->name, b->name);
			return -1;
		}
		if (e->nargs || e->nkws) {
			Expr *x = e->nargs ? e->args[0] : e->kws[0].value;
			int64_t n;
			if (!eval_int(S, x, "the pool's size", &n))
				return -1;
			if (n < b->pool->offset) {
				error_at(S->d, x->pos, "%s.commit(%lld): the pool's allocations need %lld bytes", b->name, (long long)n,
				         (long long)b->pool->offset);
				return -1;
			}
			if (n > INT32_MAX) {
				error_at(S->d, x->pos, "%s.commit(%lld): too large", b->name, (long long)n);
				return -1;
			}
			pool_grow(b, n);
		}
		b->pool->committed = true;
		s->kind = S_PASS;
		s->value = NULL;
		return 1;
	}
	bool init = !strcmp(m, "init"), wait = !strcmp(m, "wait"), arrive = !strcmp(m, "arrive");
	if (!init && !wait && !arrive)
		return 0;
	Expr *tx = NULL;
	for (int i = 0; i < e->nkws; i++) {
		if (arrive && b->mbar_tma && !strcmp(e->kws[i].name, "tx_count") && !tx) {
			tx = e->kws[i].value;
			continue;
		}
		if (arrive && !b->mbar_tma && !strcmp(e->kws[i].name, "tx_count"))
			error_at(S->d, e->kws[i].pos, "tx_count= is an arrive of TMABar's: declare %s = TMABar(pool, n)", b->name);
		else
			error_at(S->d, e->kws[i].pos, "not supported yet: %s.%s(%s=): txc's %s.%s takes %s", b->name, m,
			         e->kws[i].name, b->name, m, init ? "the arrival count" : wait ? "the barrier and the phase" :
			         b->mbar_tma ? "the barrier and tx_count= (a local arrive)" : "the barrier (a local arrive of "
			         "count 1)");
		return -1;
	}
	int want = init ? 1 : wait ? 2 : 1;
	if (arrive && b->mbar_tma && e->nargs == 2 && !tx)
		tx = e->args[--e->nargs]; /* TMABar's arrive(i, tx_count) */
	if (e->nargs != want) {
		error_at(S->d, e->pos, "%s.%s() takes %s", b->name, m, init ? "the arrival count: init(count)" :
		         wait ? "the barrier and the phase: wait(i, phase)" : b->mbar_tma ?
		         "the barrier and the bytes expected: arrive(i, tx_count=n)" : "the barrier: arrive(i)");
		return -1;
	}
	if (init) {
		Var *t = S->launch[IN_THREAD_ID];
		Sym *sym = t ? lookup(S, t->name) : NULL;
		if (!t || !sym || IS_ERR(sym->val) || sym->val->kind != V_VAR || sym->val->var != t) {
			error_at(S->d, e->pos, "%s.init() initializes the barriers on thread 0 of the CTA: it needs the thread "
			         "index bound to a name, tid = T.thread_id([n])", b->name);
			return -1;
		}
		Expr *cond = new_expr(E_CMP, p);
		cond->op = OP_EQ;
		cond->a = new_name(p, t->name);
		cond->b = new_int(p, 0);
		Expr *count = new_call(p, callee(p, "T.uint32"));
		call_add_arg(count, e->args[0]);
		s->kind = S_IF;
		s->value = cond;
		s->body = NULL;
		s->nbody = 0;
		s->orelse = NULL;
		s->norelse = 0;
		for (int64_t i = 0; i < b->mbar_depth; i++) {
			Expr *c = new_call(p, callee(p, "T.ptx.mbarrier.init"));
			call_add_arg(c, elem_addr(p, b->name, new_int(p, i)));
			call_add_arg(c, count);
			Stmt *u = new_stmt(S_EXPR, p);
			u->value = c;
			vpush(s->body, s->nbody, u);
		}
		return 1;
	}
	if (!bar_index(S, b, e, e->args[0]))
		return -1;
	Expr *c = new_call(p, callee(p, wait ? "T.ptx.mbarrier.try_wait" : tx ? "T.ptx.mbarrier.arrive_expect_tx" :
	                               "T.ptx.mbarrier.arrive"));
	call_add_arg(c, elem_addr(p, b->name, e->args[0]));
	if (tx) {
		Expr *n = new_call(p, callee(p, "T.uint32"));
		call_add_arg(n, tx);
		call_add_arg(c, n);
	}
	if (wait) {
		Expr *ph = e->args[1];
		if (b->mbar_phase) {
			Expr *x = new_expr(E_BIN, p);
			x->op = OP_BITXOR;
			x->a = ph;
			x->b = new_int(p, b->mbar_phase);
			ph = x;
		}
		call_add_arg(c, ph);
	}
	to_call(s, c);
	return 1;
}

/* At the end of a kernel: a pool allocated in but never committed. */
void pool_check(Sema *S, Func *f)
{
	for (int i = 0; i < f->nbufs; i++) {
		Buffer *b = f->bufs[i];
		if (b->pool && !b->pool->committed && b->pool->offset)
			error_at(S->d, b->pos, "pool '%s' is never committed: call %s.commit() after its allocations", b->name,
			         b->name);
	}
}
