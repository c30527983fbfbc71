/* Buffers and launch ids: what T.match_buffer, T.alloc_*, T.decl_buffer
 * and buf.view() make, the checks of their layouts against their shapes and
 * scopes, and the launch ids a kernel declares. */
#include <string.h>

#include "sema.h"

/* ---- buffers -------------------------------------------------------------------- */

static int64_t elements(const Buffer *b)
{
	int64_t n = 1;
	for (int i = 0; i < b->ndim; i++)
		n *= b->shape[i];
	return n;
}

static const char *shape_str(const Buffer *b)
{
	Buf s = {0};
	for (int i = 0; i < b->ndim; i++)
		bprintf(&s, "%s%lld", i ? "x" : "", (long long)b->shape[i]);
	return s.s;
}

/* Elements of storage per thread (local) or in memory the buffer needs:
 * for a swizzled layout, as far as the swizzle takes its elements. */
static bool storage(const Buffer *b, int64_t *n)
{
	if (!b->layout) {
		*n = elements(b);
		return true;
	}
	return layout_reach(b->layout, n);
}

static bool check_layout(Sema *S, Buffer *b, Pos p)
{
	Layout *l = b->layout;
	int fl = scopes[b->scope].flags;
	if (!l) {
		if (fl & SCF_TMEM) {
			error_at(S->d, p, "tensor-memory buffer '%s' needs a layout over TLane and TCol", b->name);
			return false;
		}
		return true;
	}
	for (int i = 0; i < l->nshard + l->nrep; i++) {
		const Iter *it = i < l->nshard ? &l->shard[i] : &l->rep[i - l->nshard];
		int k = axes[it->axis].kind;
		const char *why = NULL;
		if ((fl & SCF_TMEM) && k != AXK_TMEM)
			why = "tensor memory is addressed by TLane and TCol";
		else if ((fl & SCF_MEM) && k == AXK_TMEM)
			why = "TLane and TCol address tensor memory only";
		else if ((fl & SCF_MEM) && !(fl & SCF_THREAD) && k == AXK_THREAD)
			why = "thread axes belong to register (local) layouts";
		if (why) {
			error_at(S->d, p, "the layout of %s buffer '%s' uses axis '%s': %s", scopes[b->scope].name, b->name,
			         axes[it->axis].name, why);
			return false;
		}
	}
	int64_t size, n = elements(b);
	if (!layout_size(l, &size) || size != n) {
		error_at(S->d, p, "the layout has %lld elements but buffer '%s' has shape %s = %lld", (long long)size,
		         b->name, shape_str(b), (long long)n);
		return false;
	}
	int64_t span;
	if (!layout_span(l, AX_M, &span) || span > ((int64_t)1 << 40)) {
		error_at(S->d, p, "the layout of '%s' spans more than 2^40 elements", b->name);
		return false;
	}
	if (l->swizzled && !(fl & SCF_SHARED)) {
		error_at(S->d, p, "a swizzled layout is for shared memory, not %s buffer '%s'", scopes[b->scope].name,
		         b->name);
		return false;
	}
	if (fl & SCF_TMEM) {
		int64_t lanes, cols;
		int bits = dtypes[b->dtype].bits;
		if (!layout_span(l, AX_TLANE, &lanes) || lanes > 128) {
			error_at(S->d, p, "the layout of '%s' spans %lld tensor-memory lanes; there are 128", b->name,
			         (long long)lanes);
			return false;
		}
		if (!layout_span(l, AX_TCOL, &cols) || (cols * bits + 31) / 32 > 512) {
			error_at(S->d, p, "the layout of '%s' spans %lld 32-bit tensor-memory columns; there are 512",
			         b->name, (long long)((cols * bits + 31) / 32));
			return false;
		}
		if (bits > 32) {
			error_at(S->d, p, "tensor memory holds elements of at most 32 bits, not %s", dtypes[b->dtype].name);
			return false;
		}
	}
	return true;
}

/* A swizzle atom smaller than its buffer, ComposeLayout(3, 3, 3,
 * TileLayout(S[8, 64])) for a (64, 64) buffer: TVM reads a ComposeLayout
 * whose tile is the identity as the bare swizzle, over the buffer's
 * row-major addresses, which repeats the atom. Rewritten in place into that
 * layout; an atom that is not the identity is refused. */
static bool swizzle_atom(Sema *S, Buffer *b, Kw *kw)
{
	Layout *l = b->layout;
	int64_t size, n = elements(b);
	if (!l->swizzled || !layout_size(l, &size) || size >= n)
		return true;
	Layout *c = layout_canonical(l);
	bool identity = c->nshard == 1 && c->shard[0].axis == AX_M && c->shard[0].stride == 1 && !c->nrep;
	for (int a = 0; a < AX_COUNT; a++)
		identity = identity && !c->off[a];
	if (!identity) {
		error_at(S->d, kw->value->pos, "not supported yet: a swizzle atom of %lld elements that is not row-major "
		         "(%s) for buffer '%s' of %lld; write the whole layout with L.tile_to(shape, atom_shape)",
		         (long long)size, layout_str(l), b->name, (long long)n);
		return false;
	}
	if (n % size) {
		error_at(S->d, kw->value->pos, "the swizzle atom has %lld elements, which do not divide the %lld of "
		         "buffer '%s' evenly", (long long)size, (long long)n, b->name);
		return false;
	}
	Layout *full = layout_new();
	layout_default(full, b->shape, b->ndim);
	full->swizzled = true;
	full->swz_m = l->swz_m, full->swz_b = l->swz_b, full->swz_s = l->swz_s;
	b->layout = full;
	Pos p = kw->value->pos;
	kw->value = layout_expr(full);
	kw->value->pos = p;
	return !IS_ERR(eval(S, kw->value));
}

bool set_layout(Sema *S, Buffer *b, Kw *kw)
{
	if (!kw)
		return check_layout(S, b, b->pos);
	Value *v = eval_const(S, kw->value, "a layout");
	if (IS_ERR(v))
		return false;
	/* TVM's layout=None (no layout) and layout="default": the row-major
	 * layout a buffer has without the keyword */
	if (v->kind == V_NONE || (v->kind == V_STR && !strcmp(v->s, "default")))
		return check_layout(S, b, b->pos);
	if (v->kind == V_TLAYOUT) {
		/* Triton's layouts take the buffer's shape and dtype (triton.c) */
		Layout *l = layout_new();
		Pos at;
		const char *why = triton_layout(l, v->tl, b->shape, b->ndim, b->dtype, &at);
		if (why) {
			error_at(S->d, at, "%s (buffer '%s')", why, b->name);
			return false;
		}
		b->layout = l;
		return check_layout(S, b, kw->value->pos);
	}
	if (v->kind != V_LAYOUT || v->i) {
		error_at(S->d, kw->value->pos, "layout= takes a layout such as TileLayout(S[...]), not %s",
		         v->kind != V_LAYOUT ? value_kind_name(v) : v->i == 2 ?
		         "a swizzle alone: compose it over the buffer's tile layout, ComposeLayout(SwizzleLayout(...), TileLayout(S[...]))" :
		         "replicas R[...] alone");
		return false;
	}
	b->layout = v->layout;
	if (!swizzle_atom(S, b, kw))
		return false;
	return check_layout(S, b, kw->value->pos);
}

Buffer *new_buffer(const char *name, Pos pos, Expr *call)
{
	Buffer *b = xalloc(sizeof *b);
	b->name = name;
	b->pos = pos;
	b->decl = call;
	return b;
}

static int scope_kw(Sema *S, Args *a, int dflt)
{
	Kw *kw = kwarg(a, "scope");
	if (!kw)
		return dflt;
	Value *v = eval_const(S, kw->value, "scope");
	int sc = IS_ERR(v) ? SC_NONE : scope_lookup(v->s);
	if (!IS_ERR(v) && !sc)
		error_at(S->d, kw->value->pos, "unknown memory scope \"%s\" (expected global, shared, shared.dyn, local or tmem)",
		         v->s);
	return sc;
}

/* The scalar parameter that name e names, or NULL. */
Var *shape_param(Sema *S, const Expr *e)
{
	if (e->kind != E_NAME)
		return NULL;
	Sym *sym = env_find(S->env, e->str);
	return sym && sym->val && !IS_ERR(sym->val) && sym->val->kind == V_VAR && sym->val->var->param ?
	       sym->val->var : NULL;
}

/* The bound of b's symbolic extent m (Buffer.dyn): the largest value
 * T.assume gives m, in shape[0]; `how` says where the assumption goes. */
bool dyn_bound(Sema *S, Buffer *b, const char *how)
{
	Var *m = b->dyn;
	Pos at = b->dyn_at;
	const DType *t = &dtypes[m->dtype];
	int64_t top = t->bits >= 63 ? INT64_MAX : ((int64_t)1 << (t->bits - (t->kind != DK_UINT))), n;
	if (m->hi <= m->lo || m->hi >= top) {
		error_at(S->d, at, "the extent '%s' of '%s' needs an upper bound: write T.assume(%s <= K) %s (the static "
		         "checks and the width of the offsets are proven for K rows; the kernel checks the promise when it "
		         "starts)", m->name, b->name, m->name, how);
		return false;
	}
	if (m->hi - 1 < 1) {
		error_at(S->d, at, "the extent '%s' of '%s' is at most %lld by T.assume; a buffer has at least one row",
		         m->name, b->name, (long long)(m->hi - 1));
		return false;
	}
	if (m->lo < 0) /* an extent is not negative */
		m->lo = 0;
	n = m->hi - 1;
	for (int d = 1; d < b->ndim; d++)
		if (!mul_ok(n, b->shape[d], &n) || n > ((int64_t)1 << 40)) {
			error_at(S->d, at, "buffer '%s' is too large at the bound of '%s' (more than 2^40 elements)", b->name,
			         m->name);
			return false;
		}
	b->shape[0] = b->dyn_bound = m->hi - 1;
	return true;
}

/* A buffer's shape: integers, or (m, 4096, ...) whose outermost extent
 * is a scalar parameter m. Then b->dyn is m and shape[0] waits for m's
 * bound (dyn_bound): every static check holds for that many rows, and
 * the lowering guards each access with its row against m. Only the
 * outermost extent may be symbolic: the strides stay constants. */
bool buffer_shape(Sema *S, Buffer *b, Expr *e)
{
	bool tuple = e->kind == E_TUPLE || e->kind == E_LIST;
	Var *m = tuple && e->nargs ? shape_param(S, e->args[0]) : shape_param(S, e);
	for (int i = 1; tuple && i < e->nargs; i++)
		if (shape_param(S, e->args[i])) {
			error_at(S->d, e->args[i]->pos, "not supported yet: a symbolic extent in dimension %d of '%s'; only the "
			         "outermost extent may be a scalar parameter (the strides stay constants)", i, b->name);
			return false;
		}
	if (!m)
		return eval_shape(S, e, &b->shape, &b->ndim);
	Expr *at = tuple ? e->args[0] : e;
	if (dtypes[m->dtype].kind != DK_INT && dtypes[m->dtype].kind != DK_UINT) {
		error_at(S->d, at->pos, "the extent '%s' of '%s' is %s; an extent is an integer", m->name, b->name,
		         dtypes[m->dtype].name);
		return false;
	}
	if (tuple) {
		Expr *rest = new_expr(E_TUPLE, e->pos);
		for (int i = 0; i < e->nargs; i++)
			vpush(rest->args, rest->nargs, i ? e->args[i] : ex_int(1));
		rest->args[0]->pos = at->pos;
		if (!eval_shape(S, rest, &b->shape, &b->ndim))
			return false;
	} else {
		b->shape = xalloc(sizeof *b->shape);
		b->shape[0] = 1;
		b->ndim = 1;
	}
	b->dyn = m;
	b->dyn_at = at->pos;
	return true;
}

/* X = T.match_buffer / alloc_* / decl_buffer(...). */
Buffer *make_buffer(Sema *S, const char *name, Pos pos, Expr *call, int id)
{
	Args a;
	if (!check_args(S, call, id, &a))
		return NULL;
	Buffer *b = new_buffer(name, pos, call);
	int shape_arg = id == IN_MATCH_BUFFER ? 1 : 0;
	if (id == IN_MATCH_BUFFER ? !buffer_shape(S, b, call->args[shape_arg]) ||
	                            (b->dyn && !dyn_bound(S, b, "before T.match_buffer")) :
	    !eval_shape(S, call->args[shape_arg], &b->shape, &b->ndim))
		return NULL;
	/* the dtype: an operand, or TVM's dtype= (default float32, as TVM's) */
	Kw *dkw = kwarg(&a, "dtype");
	if (dkw && a.npos > shape_arg + 1) {
		error_at(S->d, dkw->pos, "%s() takes its dtype once: as an operand or as dtype=", fn_name(call));
		return NULL;
	}
	b->dtype = a.npos > shape_arg + 1 ? a.pos[shape_arg + 1]->dtype : dkw ? dkw->value->val->dtype : DT_FLOAT32;
	switch (id) {
	case IN_MATCH_BUFFER: {
		Value *h = eval(S, call->args[0]);
		if (!h || IS_ERR(h) || h->kind != V_HANDLE) {
			if (!IS_ERR(h))
				error_at(S->d, call->args[0]->pos, "T.match_buffer takes a T.handle parameter of the kernel");
			return NULL;
		}
		if (S->in_device) {
			error_at(S->d, call->pos, "T.match_buffer after T.device_entry(); match the parameters first");
			return NULL;
		}
		for (int i = 0; i < S->func->nparams; i++)
			if (S->func->params[i]->param == h->var) {
				error_at(S->d, call->args[0]->pos, "handle '%s' is already matched by buffer '%s'", h->var->name,
				         S->func->params[i]->name);
				return NULL;
			}
		b->param = h->var;
		b->is_param = true;
		b->scope = scope_kw(S, &a, SC_GLOBAL);
		if (b->scope != SC_GLOBAL) {
			if (b->scope)
				error_at(S->d, kwarg(&a, "scope")->value->pos, "a kernel parameter is in global memory");
			return NULL;
		}
		vpush(S->func->params, S->func->nparams, b);
		break;
	}
	case IN_ALLOC_BUFFER:
		b->scope = scope_kw(S, &a, SC_GLOBAL);
		if (!b->scope)
			return NULL;
		if (b->scope == SC_GLOBAL || b->scope == SC_TMEM) {
			error_at(S->d, call->pos, b->scope == SC_GLOBAL ?
			         "T.alloc_buffer in a kernel needs scope=\"shared\" or scope=\"local\"; global memory comes from the parameters" :
			         "tensor memory is allocated with T.ptx.tcgen05.alloc; declare the buffer with T.decl_buffer(..., scope=\"tmem\", allocated_addr=...)");
			return NULL;
		}
		break;
	case IN_ALLOC_SHARED:
		b->scope = SC_SHARED;
		break;
	case IN_ALLOC_LOCAL:
		b->scope = SC_LOCAL;
		break;
	case IN_DECL_BUFFER: {
		Kw *dkw = kwarg(&a, "data"), *addr = kwarg(&a, "allocated_addr");
		Expr *data = dkw ? dkw->value : call->nargs > 2 ? call->args[2] : NULL;
		b->scope = scope_kw(S, &a, SC_NONE);
		if (dkw && call->nargs > 2) {
			error_at(S->d, dkw->pos, "T.decl_buffer takes its storage once: as the third operand or as data=");
			return NULL;
		}
		if (data) {
			Value *v = eval(S, data);
			if (!v || IS_ERR(v) || v->kind != V_DATA) {
				if (!IS_ERR(v))
					error_at(S->d, data->pos, "data= takes the storage of a buffer: X.data");
				return NULL;
			}
			b->base = v->buffer;
			if (buffer_root(b->base)->dyn) {
				error_at(S->d, data->pos, "not supported yet: a buffer over the storage of '%s', whose extent '%s' "
				         "is symbolic", b->base->name, buffer_root(b->base)->dyn->name);
				return NULL;
			}
			if (!b->scope || ((scopes[b->scope].flags & SCF_SHARED) && (scopes[b->base->scope].flags & SCF_SHARED)))
				b->scope = b->base->scope; /* shared and shared.dyn are one memory */
			if (b->scope != b->base->scope) {
				error_at(S->d, data->pos, "a %s buffer over the storage of %s buffer '%s'",
				         scopes[b->scope].name, scopes[b->base->scope].name, b->base->name);
				return NULL;
			}
		}
		if (b->scope == SC_TMEM) {
			if (!addr) {
				error_at(S->d, call->pos, "a tensor-memory buffer needs allocated_addr= (the address tcgen05.alloc wrote)");
				return NULL;
			}
			b->alloc_addr = addr->value;
		} else if (addr) {
			error_at(S->d, addr->pos, "allocated_addr= is for tensor-memory buffers (scope=\"tmem\")");
			return NULL;
		} else if (!data) {
			error_at(S->d, call->pos, "T.decl_buffer needs data=X.data, or scope=\"tmem\" with allocated_addr=");
			return NULL;
		}
		break;
	}
	}
	if (!S->in_device && id != IN_MATCH_BUFFER && id != IN_ALLOC_BUFFER && id != IN_ALLOC_SHARED && id != IN_ALLOC_LOCAL) {
		error_at(S->d, call->pos, "%s() before T.device_entry()", fn_name(call));
		return NULL;
	}
	if (b->dyn && kwarg(&a, "layout")) {
		error_at(S->d, kwarg(&a, "layout")->value->pos, "not supported yet: a layout for '%s', whose extent '%s' is "
		         "symbolic; such a buffer is row-major", b->name, b->dyn->name);
		return NULL;
	}
	if (!set_layout(S, b, kwarg(&a, "layout")))
		return NULL;
	Kw *eo = kwarg(&a, "elem_offset");
	if (eo) {
		/* TVM's elem_offset=: where the buffer starts in its storage, in its
		 * own elements; an offset on m of its layout */
		int64_t k = eo->value->val ? eo->value->val->i : 0;
		if (!b->base || b->scope == SC_TMEM) {
			error_at(S->d, eo->pos, "elem_offset= places a buffer in the storage it is declared over (data=X.data)");
			return NULL;
		}
		if (k < 0) {
			error_at(S->d, eo->value->pos, "elem_offset= must not be negative, not %lld", (long long)k);
			return NULL;
		}
		if (k) {
			if (!b->layout) {
				b->layout = layout_new();
				layout_default(b->layout, b->shape, b->ndim);
			} else {
				b->layout = layout_copy(b->layout);
			}
			if (!add_ok(b->layout->off[AX_M], k, &b->layout->off[AX_M])) {
				error_at(S->d, eo->value->pos, "elem_offset= overflows");
				return NULL;
			}
			b->elem_offset = k;
		}
	}
	Kw *align = kwarg(&a, "align");
	if (align) {
		/* the byte alignment of the buffer's start, as TVM's align= */
		int64_t n;
		if (!eval_int(S, align->value, "align=", &n))
			return NULL;
		if (n < 1 || n > 1024 || (n & (n - 1))) {
			error_at(S->d, align->value->pos, "align= is the byte alignment of the buffer's start: a power of two "
			         "from 1 to 1024, not %lld", (long long)n);
			return NULL;
		}
		b->align = n;
		if (b->is_param && n < 16) {
			/* txc's vector accesses assume a 16-byte aligned start */
			error_at(S->d, align->value->pos, "not supported yet: align=%lld on a kernel parameter: txc's copies assume "
			         "parameters aligned to 16 bytes (or more)", (long long)n);
			return NULL;
		}
	}
	if (b->base) {
		/* over storage of another dtype (TVM's raw shared.dyn buffer): its
		 * bytes, from a start aligned to its elements, inside the storage */
		int64_t need, have, eb = dtype_bytes(b->dtype), hb = dtype_bytes(b->base->dtype);
		bool same = b->dtype == b->base->dtype;
		if (!same && b->base->base) {
			error_at(S->d, call->pos, "'%s' is %s over the storage of '%s', itself a view of '%s': declare it over "
			         "%s.data", name, dtypes[b->dtype].name, b->base->name, buffer_root(b->base)->name,
			         buffer_root(b->base)->name);
			return NULL;
		}
		if (!same && (dtypes[b->dtype].bits % 8 || dtypes[b->base->dtype].bits % 8 ||
		              b->scope == SC_TMEM || layout_uses_axis_kind(buffer_layout(b), AXK_THREAD))) {
			error_at(S->d, call->pos, "'%s' is %s but its storage '%s' is %s: another dtype is for whole-byte "
			         "elements in memory, without thread axes", name, dtypes[b->dtype].name, b->base->name,
			         dtypes[b->base->dtype].name);
			return NULL;
		}
		if (storage(b, &need) && storage(b->base, &have) && mul_ok(need, eb, &need) && mul_ok(have, hb, &have) &&
		    need > have) {
			error_at(S->d, call->pos, "'%s' needs %lld bytes of storage%s but '%s' has %lld", name, (long long)need,
			         b->elem_offset ? xprintf(" (with elem_offset=%lld)", (long long)b->elem_offset) : "",
			         b->base->name, (long long)have);
			return NULL;
		}
	}
	return b;
}

/* X = base.view(d0, d1, ..., layout=L): the same storage, another shape. */
Buffer *make_view(Sema *S, const char *name, Pos pos, Expr *call, Buffer *base)
{
	Buffer *b = new_buffer(name, pos, call);
	b->base = base;
	b->scope = base->scope;
	b->dtype = base->dtype;
	for (int i = 0; i < call->nkws; i++)
		if (strcmp(call->kws[i].name, "layout") != 0) {
			error_at(S->d, call->kws[i].pos, "view() has no keyword argument '%s'; it takes: layout", call->kws[i].name);
			return NULL;
		}
	if (call->nargs == 0) {
		error_at(S->d, call->pos, "view() needs the new shape");
		return NULL;
	}
	if (buffer_root(base)->dyn) {
		error_at(S->d, call->pos, "not supported yet: a view of '%s', whose extent '%s' is symbolic; copy regions of "
		         "it directly", base->name, buffer_root(base)->dyn->name);
		return NULL;
	}
	Value *first = eval(S, call->args[0]);
	if (IS_ERR(first))
		return NULL;
	if (first && (first->kind == V_STR || first->kind == V_DTYPE)) {
		error_at(S->d, call->args[0]->pos, "a view as another dtype takes the dtype alone: %s.view(\"%s\")",
		         base->name, first->kind == V_STR ? first->s : dtypes[first->dtype].name);
		return NULL;
	}
	/* TVM's -1: the extent that makes the view as large as its base */
	int64_t known = 1, total = 1;
	int infer = -1;
	for (int i = 0; i < base->ndim; i++)
		total *= base->shape[i];
	for (int i = 0; i < call->nargs; i++) {
		Value *v = eval(S, call->args[i]);
		if (IS_ERR(v))
			return NULL;
		if (v && v->kind == V_INT && v->i == -1) {
			if (infer >= 0) {
				error_at(S->d, call->args[i]->pos, "view() infers at most one extent (-1)");
				return NULL;
			}
			infer = i;
		} else if (v && v->kind == V_INT && v->i > 0 && !mul_ok(known, v->i, &known)) {
			known = 0;
		}
	}
	if (infer >= 0) {
		if (call_kw(call, "layout") || known <= 0 || total % known) {
			error_at(S->d, call->args[infer]->pos, "view(-1): '%s' has %lld elements, %s", base->name,
			         (long long)total, call_kw(call, "layout") ? "and a view with a layout gives its shape in full" :
			         xprintf("not a multiple of %lld", (long long)known));
			return NULL;
		}
		call->args[infer] = new_int(call->args[infer]->pos, total / known);
	}
	if (call->nargs == 1) {
		if (!eval_shape(S, call->args[0], &b->shape, &b->ndim))
			return NULL;
	} else {
		Expr *t = new_expr(E_TUPLE, call->args[0]->pos);
		t->args = call->args;
		t->nargs = call->nargs;
		if (!eval_shape(S, t, &b->shape, &b->ndim))
			return NULL;
	}
	Kw *kw = call_kw(call, "layout");
	if (!set_layout(S, b, kw))
		return NULL;
	int64_t need, have;
	if (storage(b, &need) && storage(base, &have) && need > have) {
		error_at(S->d, kw ? kw->value->pos : call->pos,
		         "view '%s' needs %lld elements of storage%s but '%s' has %lld", name, (long long)need,
		         base->scope == SC_LOCAL ? " per thread" : "", base->name, (long long)have);
		return NULL;
	}
	return b;
}

/* ---- launch ids ------------------------------------------------------------------- */

/* Whether every name of e is a scalar parameter. */
static bool over_params(const Expr *e)
{
	if (!e)
		return true;
	if (e->kind == E_NAME) /* a scalar parameter, or a constant of the module */
		return (e->var && e->var->param) || (e->val && e->val->kind == V_INT);
	if (e->kind != E_BIN && e->kind != E_UN && e->kind != E_INT)
		return false; /* (a call: the launcher computes arithmetic only) */
	return over_params(e->a) && over_params(e->b) && over_params(e->c);
}

/* T.cta_id([(m + 15) // 16, ...]): an extent over scalar parameters is
 * checked as its largest value, the range T.assume gives them; the
 * list is checked with those values in place, then put back as written. */
static bool dyn_grid(Sema *S, Expr *call, Expr **orig, Expr *dyn[3])
{
	*orig = NULL;
	Expr *l = call->nargs ? call->args[0] : NULL;
	if (!l || (l->kind != E_LIST && l->kind != E_TUPLE))
		return true;
	for (int i = 0; i < l->nargs && i < 3; i++) {
		Expr *e = l->args[i];
		Value *v = eval(S, e);
		if (IS_ERR(v))
			return false;
		if (v && v->kind == V_INT)
			continue;
		int dt = scalar(S, e);
		if (dt == DT_ERROR)
			return false;
		int64_t lo, hi;
		/* (a literal: DT_WEAK_INT or DT_WEAK_FLOAT) */
		int kind = dt == DT_WEAK_INT ? DK_INT : dt < DT_COUNT ? dtypes[dt].kind : DK_FLOAT;
		if (kind != DK_INT && kind != DK_UINT) {
			error_at(S->d, e->pos, "a grid extent is an integer, not %s", dt < DT_COUNT ? dtypes[dt].name : "a float");
			return false;
		}
		if (!over_params(e)) {
			error_at(S->d, expr_start(e), "a grid extent is a constant, or arithmetic (+, -, *, //, %%) on scalar "
			         "parameters and constants, not '%s'", expr_str(e));
			return false;
		}
		if (!expr_range(e, &lo, &hi) || hi > INT32_MAX) {
			error_at(S->d, expr_start(e), "txc cannot bound the grid extent '%s' by 2^31 from its scalar parameters' "
			         "ranges: bound them with T.assume() (the launch ids' ranges, which the proofs use, come from it), "
			         "and write the extent with +, *, // and %% of non-negative terms, as (m + 15) // 16", expr_str(e));
			return false;
		}
		if (hi < 1) {
			error_at(S->d, expr_start(e), "the grid extent '%s' is at most %lld; a grid has at least one CTA",
			         expr_str(e), (long long)hi);
			return false;
		}
		if (!*orig) {
			*orig = l;
			Expr *c = new_expr(l->kind, l->pos);
			for (int j = 0; j < l->nargs; j++)
				vpush(c->args, c->nargs, l->args[j]);
			call->args[0] = c;
		}
		call->args[0]->args[i] = ex_int(hi);
		call->args[0]->args[i]->pos = e->pos;
		dyn[i] = e;
	}
	return true;
}

Value *launch(Sema *S, Expr *call, int id, Stmt *s)
{
	Args a;
	Expr *orig = NULL, *dyn[3] = { NULL, NULL, NULL };
	if (id == IN_CTA_ID && S->in_device && !dyn_grid(S, call, &orig, dyn))
		return NULL;
	bool ok = check_args(S, call, id, &a);
	if (orig) /* as written, for the printed IR */
		call->args[0] = orig;
	if (!ok)
		return NULL;
	for (int i = 0; i < 3; i++)
		S->func->grid_dyn[i] = dyn[i] ? dyn[i] : S->func->grid_dyn[i];
	if (!S->in_device) {
		error_at(S->d, call->pos, "%s() before T.device_entry()", fn_name(call));
		return NULL;
	}
	if (S->env->up && !S->env->up->module) {
		error_at(S->d, call->pos, "%s() inside a loop or branch; launch ids are declared at kernel level",
		         fn_name(call));
		return NULL;
	}
	Value *l = a.pos[0];
	int n = l->nelts;
	/* TVM's tests declare an id again to name it (T.lane_id([32]), later
	 * lane = T.lane_id([32])): the same id, so the same extents */
	bool again = S->launch[id] != NULL;
	for (int i = 0; again && i < (n > S->launch_ndim[id] ? n : S->launch_ndim[id]); i++) {
		int64_t x = i < n && l->elts[i]->kind == V_INT ? l->elts[i]->i : 1;
		int64_t was = grid_launch(id) ? S->launch_dims[id][i] : i ? 1 : S->launch_ext[id];
		if (x != was) {
			error_at(S->d, call->pos, "%s() is declared twice (first on line %d)", fn_name(call),
			         S->launch_pos[id].line);
			return NULL;
		}
	}
	const GridId *gl = grid_launch(id);
	int maxdim = gl ? 3 : 1;
	if (n > maxdim && id == IN_THREAD_ID && n <= 3) { /* sema.c's thread_dims takes the named form */
		error_at(S->d, call->args[0]->pos, "T.thread_id() with %d extents (threadIdx.x, .y%s) gives %d values: "
		         "assign them to %d names, as in %s = T.thread_id([...])", n, n == 3 ? ", .z" : "", n, n,
		         n == 3 ? "tx, ty, tz" : "tx, ty");
		return NULL;
	}
	if (n > maxdim) {
		error_at(S->d, call->args[0]->pos, "%s() takes %d extent%s, not %d", fn_name(call), maxdim,
		         maxdim > 1 ? "s" : "", n);
		return NULL;
	}
	int64_t total = 1;
	for (int i = 0; i < n; i++) {
		int64_t x = l->elts[i]->i;
		/* the grid's limits; a thread id within a warp or warpgroup at most
		 * what one holds; the threads per CTA are checked with the kernel */
		const LaunchId *tl = thread_launch(id);
		int64_t lim = gl && gl->in_cluster ? 8 : gl ? (i == 0 ? 2147483647 : 65535) :
		              axis_mod(tl->axis) ? axis_mod(tl->axis) / axis_div(tl->axis) : INT32_MAX;
		if (x <= 0 || x > lim) {
			error_at(S->d, call->args[0]->pos, "%s() extent %lld is out of range (1 to %lld)", fn_name(call),
			         (long long)x, (long long)lim);
			return NULL;
		}
		total *= x;
	}
	if (gl && gl->in_cluster && total > 8) {
		error_at(S->d, call->args[0]->pos,
		         "%s() declares a cluster of %lld CTAs; the portable limit is 8 (16 on some GPUs needs the "
		         "non-portable cluster size opt-in, which txc does not make)", fn_name(call), (long long)total);
		return NULL;
	}
	for (int i = 0; gl && i < 3; i++)
		S->launch_dims[id][i] = i < n ? l->elts[i]->i : 1;
	S->launch_ndim[id] = n;
	S->launch_list[id] = call->args[0]->pos;
	if (id == IN_LANE_ID && total != 32) {
		error_at(S->d, call->args[0]->pos, "a warp has 32 lanes: write T.lane_id([32])");
		return NULL;
	}
	S->launch_ext[id] = total;
	if (!again)
		S->launch_pos[id] = call->pos;
	/* the ids themselves: one var per dimension */
	int ntargets = s && s->kind == S_ASSIGN ? s->ntargets : 0;
	if (ntargets && ntargets != n) {
		error_at(S->d, s->pos, "%s() gives %d value%s, assigned to %d name%s", fn_name(call), n, n > 1 ? "s" : "",
		         ntargets, ntargets > 1 ? "s" : "");
		return NULL;
	}
	Value *tuple = vnew(V_TUPLE);
	tuple->elts = xalloc(sizeof(Value *) * (size_t)(n + 1));
	tuple->nelts = n;
	for (int i = 0; i < n; i++) {
		Var *v = xalloc(sizeof *v);
		v->name = ntargets ? s->targets[i]->str : intrins[id].path;
		v->pos = call->pos;
		v->dtype = DT_INT32;
		v->lo = 0;
		v->hi = l->elts[i]->i;
		v->launch = id;
		if (i == 0 && !again)
			S->launch[id] = v;
		tuple->elts[i] = vnew(V_VAR);
		tuple->elts[i]->var = v;
	}
	return n == 1 ? tuple->elts[0] : tuple;
}

