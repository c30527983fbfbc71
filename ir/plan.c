/* What the passes share: the table of variants, the plans they record on
 * tile ops (plans=[T.plan(...)]), layouts written back as expressions, and
 * a walk over the tile ops of a module with their enclosing conditions. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

const Variant variants[VA_COUNT] = {
#define VARIANT(id, op, name, prio, plan, pairs, vbits, access, preds) \
	[id] = { name, op, prio, plan, pairs, vbits, access, preds },
#include "variant.def"
#undef VARIANT
};

/* "global", "shared" (shared and shared.dyn), "local", "tmem" */
static const char *scope_class(int sc)
{
	int f = scopes[sc].flags;
	return f & SCF_GLOBAL ? "global" : f & SCF_SHARED ? "shared" : f & SCF_THREAD ? "local" : "tmem";
}

bool variant_moves(const Variant *v, int src, int dst)
{
	if (strcmp(v->pairs, "*") == 0)
		return true;
	const char *want = xprintf("%s>%s", scope_class(src), scope_class(dst));
	size_t n = strlen(want);
	for (const char *p = v->pairs; *p;) {
		size_t k = strcspn(p, " ");
		if (k == n && strncmp(p, want, n) == 0)
			return true;
		p += k;
		p += strspn(p, " ");
	}
	return false;
}

int variant_lookup(int op, const char *name)
{
	for (int i = 0; i < VA_COUNT; i++)
		if (variants[i].op == op && strcmp(variants[i].name, name) == 0)
			return i;
	return -1;
}

const TvmVariant tvm_variants[] = {
#define TVM_VARIANT(name, op, va, bytes, why) { name, op, va, bytes, why },
#include "tvm_variant.def"
#undef TVM_VARIANT
	{ 0 },
};

const TvmVariant *tvm_variant_lookup(int op, const char *name)
{
	for (const TvmVariant *t = tvm_variants; t->name; t++)
		if (t->op == op && strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

/* ---- layouts as expressions ----------------------------------------------- */

static Expr *tuple(int n, Expr **v)
{
	Expr *t = new_expr(E_TUPLE, (Pos){0});
	for (int i = 0; i < n; i++)
		vpush(t->args, t->nargs, v[i]);
	t->paren = true;
	return t;
}

static Expr *stride_expr(const Iter *it)
{
	if (it->axis == AX_M)
		return ex_int(it->stride);
	return ex_op(OP_MATMUL, ex_int(it->stride), ex_name(axes[it->axis].name));
}

static Expr *iters_expr(const char *name, const Iter *v, int n)
{
	Expr *slice = new_expr(E_SLICE, (Pos){0});
	if (n == 1) {
		slice->a = ex_int(v[0].extent);
		slice->b = stride_expr(&v[0]);
	} else {
		Expr *e[(4 * LAYOUT_MAX_ITERS)], *s[(4 * LAYOUT_MAX_ITERS)];
		for (int i = 0; i < n && i < (4 * LAYOUT_MAX_ITERS); i++) {
			e[i] = ex_int(v[i].extent);
			s[i] = stride_expr(&v[i]);
		}
		slice->a = tuple(n, e);
		slice->b = tuple(n, s);
	}
	return ex_index(ex_name(name), 1, &slice);
}

Expr *layout_expr(const Layout *l)
{
	Expr *e;
	if (l->nshard) {
		e = iters_expr("S", l->shard, l->nshard);
	} else {
		Expr *one = ex_int(1);
		e = ex_index(ex_name("S"), 1, &one);
	}
	if (l->nrep)
		e = ex_op(OP_ADD, e, iters_expr("R", l->rep, l->nrep));
	for (int a = 0; a < AX_COUNT; a++)
		if (l->off[a] && a != AX_M)
			e = ex_op(OP_ADD, e, ex_op(OP_MATMUL, ex_int(l->off[a]), ex_name(axes[a].name)));
	if (l->off[AX_M])
		e = ex_op(OP_ADD, e, ex_int(l->off[AX_M]));
	if (l->swizzled) {
		Expr *args[] = { ex_int(l->swz_m), ex_int(l->swz_b), ex_int(l->swz_s), e };
		e = ex_call("ComposeLayout", 4, args);
	}
	return e;
}

/* ---- plans ------------------------------------------------------------------- */

int read_plans(const Expr *call, Plan **out)
{
	Kw *kw = call_kw(call, "plans");
	*out = NULL;
	if (!kw || kw->value->kind != E_LIST)
		return 0;
	Expr *l = kw->value;
	Plan *v = xalloc(sizeof(Plan) * (size_t)(l->nargs + 1));
	for (int i = 0; i < l->nargs; i++) {
		Expr *c = l->args[i];
		Plan *p = &v[i];
		p->variant = c->nargs ? c->args[0]->str : "";
		for (int k = 0; k < c->nkws; k++) {
			const char *n = c->kws[k].name;
			Expr *x = c->kws[k].value;
			Value *val = x->val;
			if (!strcmp(n, "src") || !strcmp(n, "dst")) {
				Layout *lay = val && val->kind == V_LAYOUT ? val->layout : NULL;
				*(!strcmp(n, "src") ? &p->src : &p->dst) = lay;
			} else if (!strcmp(n, "src_base")) {
				p->src_base = x;
			} else if (!strcmp(n, "dst_base")) {
				p->dst_base = x;
			} else if (!strcmp(n, "why")) {
				p->why = x->str;
			} else if (val && val->kind == V_INT) {
				if (!strcmp(n, "vec"))
					p->vec = val->i;
				else if (!strcmp(n, "threads"))
					p->threads = val->i;
				else if (!strcmp(n, "outer"))
					p->outer = val->i;
			}
		}
	}
	*out = v;
	return l->nargs;
}

Plan *find_plan(Plan *v, int n, const char *variant)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i].variant, variant) == 0)
			return &v[i];
	return NULL;
}

static Expr *str_expr(const char *s)
{
	Expr *e = new_expr(E_STR, (Pos){0});
	e->str = s;
	return e;
}

void write_plans(Expr *call, const Plan *v, int n)
{
	Expr *list = new_expr(E_LIST, (Pos){0});
	for (int i = 0; i < n; i++) {
		const Plan *p = &v[i];
		Expr *name = str_expr(p->variant);
		Expr *c = ex_call("T.plan", 1, &name);
		if (p->src)
			call_add_kw(c, "src", layout_expr(p->src), (Pos){0});
		if (p->dst)
			call_add_kw(c, "dst", layout_expr(p->dst), (Pos){0});
		if (p->src_base)
			call_add_kw(c, "src_base", p->src_base, (Pos){0});
		if (p->dst_base)
			call_add_kw(c, "dst_base", p->dst_base, (Pos){0});
		if (p->vec)
			call_add_kw(c, "vec", ex_int(p->vec), (Pos){0});
		if (p->threads)
			call_add_kw(c, "threads", ex_int(p->threads), (Pos){0});
		if (p->outer)
			call_add_kw(c, "outer", ex_int(p->outer), (Pos){0});
		if (p->why)
			call_add_kw(c, "why", str_expr(p->why), (Pos){0});
		vpush(list->args, list->nargs, c);
	}
	set_kw(call, "plans", n ? list : NULL);
}

void set_kw(Expr *call, const char *name, Expr *value)
{
	for (int i = 0; i < call->nkws; i++) {
		if (strcmp(call->kws[i].name, name) != 0)
			continue;
		if (value) {
			call->kws[i].value = value;
		} else {
			memmove(&call->kws[i], &call->kws[i + 1], sizeof(Kw) * (size_t)(call->nkws - i - 1));
			call->nkws--;
		}
		return;
	}
	if (value)
		call_add_kw(call, name, value, (Pos){0});
}

/* ---- aligning the operands (txc-align) ----------------------------------------- */

static bool is_const(const Expr *e, int64_t *v)
{
	if (e->kind == E_INT) {
		*v = e->ival;
		return true;
	}
	if (e->val && e->val->kind == V_INT) {
		*v = e->val->i;
		return true;
	}
	return false;
}

/* The region of one operand as a layout over its elements in row-major
 * order, and the storage offset of its first element beyond the layout's
 * own offset (an expression of launch ids and loop variables). */
static Layout *region_layout(const Value *r, Expr **base, const char **why)
{
	const Buffer *b = r->buffer;
	const Layout *l = buffer_layout(b);
	int nd = b->ndim;
	int64_t start[LAYOUT_MAX_ITERS];
	Expr *sym[LAYOUT_MAX_ITERS];
	for (int d = 0; d < nd; d++) {
		sym[d] = NULL;
		if (!is_const(r->starts[d], &start[d])) {
			start[d] = 0;
			sym[d] = r->starts[d];
		}
	}
	Layout *s = layout_slice(l, b->shape, nd, start, r->extents, why);
	if (!s)
		return NULL;
	*base = ex_int(0);
	int dims[LAYOUT_MAX_ITERS + 1];
	Layout *g = layout_group(l, b->shape, nd, dims, why);
	if (!g)
		return NULL;
	for (int d = 0; d < nd; d++) {
		if (!sym[d])
			continue;
		/* the start falls on whole inner iters: it moves the outermost */
		int64_t inner = 1;
		int first = dims[d];
		while (first < dims[d + 1] && g->shard[first].extent == 1)
			first++;
		if (first == dims[d + 1]) {
			*why = xprintf("dimension %d of '%s' has no iters", d, b->name);
			return NULL;
		}
		for (int k = first + 1; k < dims[d + 1]; k++)
			inner *= g->shard[k].extent;
		const Iter *outer = &g->shard[first];
		if (outer->axis != AX_M) {
			*why = xprintf("a symbolic start on dimension %d of '%s', which is spread over threads", d, b->name);
			return NULL;
		}
		if (inner > 1 && (!expr_divisible(sym[d], inner) || r->extents[d] % inner)) {
			*why = xprintf("the start '%s' of dimension %d of '%s' is not provably a multiple of %lld, "
			               "the inner extent of its layout", expr_str(sym[d]), d, b->name, (long long)inner);
			return NULL;
		}
		*base = ex_add(*base, ex_mul(ex_div(sym[d], inner), ex_int(outer->stride)));
	}
	return s;
}

static bool fuses(const Iter *outer, const Iter *inner)
{
	int64_t run;
	return outer->axis == inner->axis && mul_ok(inner->extent, inner->stride, &run) && run == outer->stride;
}

bool plan_align(Plan *p, const Value *dst, const Value *src, bool sort, bool dst_is_global, const char **why)
{
	Expr *db, *sb;
	Layout *d = region_layout(dst, &db, why);
	Layout *s = d ? region_layout(src, &sb, why) : NULL;
	if (!s)
		return false;
	if (!layout_refine(d, s, why)) {
		/* regions shaped otherwise (6x4 and 4x6) may still refine once
		 * each side's continuing iters are fused */
		Layout *fd = layout_canonical(region_layout(dst, &db, why));
		Layout *fs = layout_canonical(region_layout(src, &sb, why));
		if (!layout_refine(fd, fs, why))
			return false;
		d = fd, s = fs;
	}
	int n = d->nshard;
	if (sort) {
		/* stable insertion sort of the iter pairs by the global stride */
		Layout *key = dst_is_global ? d : s;
		for (int i = 1; i < n; i++)
			for (int k = i; k > 0 && key->shard[k - 1].stride < key->shard[k].stride; k--) {
				Iter t = d->shard[k];
				d->shard[k] = d->shard[k - 1], d->shard[k - 1] = t;
				t = s->shard[k];
				s->shard[k] = s->shard[k - 1], s->shard[k - 1] = t;
			}
	}
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (m > 0 && fuses(&d->shard[m - 1], &d->shard[i]) && fuses(&s->shard[m - 1], &s->shard[i])) {
			d->shard[m - 1].extent *= d->shard[i].extent;
			d->shard[m - 1].stride = d->shard[i].stride;
			s->shard[m - 1].extent *= s->shard[i].extent;
			s->shard[m - 1].stride = s->shard[i].stride;
			continue;
		}
		d->shard[m] = d->shard[i];
		s->shard[m] = s->shard[i];
		m++;
	}
	d->nshard = s->nshard = m;
	p->dst = d;
	p->src = s;
	p->dst_base = db;
	p->src_base = sb;
	return true;
}

/* ---- the vector (txc-vectorize) ------------------------------------------------ */

/* Offsets of a side: the layout's own and the symbolic base. */
static bool base_ok(const Layout *l, const Expr *base, int64_t vec)
{
	if (l->off[AX_M] % vec)
		return false;
	return !base || expr_divisible(base, vec);
}

/* A swizzled side: a vector may not cross a 2^M-element chunk. */
static bool swizzle_ok(const Layout *l, int64_t vec)
{
	return !l->swizzled || vec <= ((int64_t)1 << l->swz_m);
}

/* Memory-axis strides other than the innermost iter's, multiples of vec;
 * for a register plan, thread strides of the memory side too. */
static bool strides_ok(const Layout *l, int skip, int64_t vec)
{
	for (int i = 0; i < l->nshard; i++) {
		if (i == skip || l->shard[i].extent == 1)
			continue;
		if (axes[l->shard[i].axis].kind == AXK_THREAD)
			continue;
		if (l->shard[i].stride % vec)
			return false;
	}
	return true;
}

/* The index of the innermost iter that carries data for one thread: the
 * last iter, or for a register plan the last one the register side holds
 * on m (thread iters are spread over threads, not over one access). */
static int innermost(const Layout *reg)
{
	for (int i = reg->nshard - 1; i >= 0; i--)
		if (axes[reg->shard[i].axis].kind != AXK_THREAD)
			return i;
	return -1;
}

const char *plan_vec_why(const Plan *p, const Layout *reg, int64_t vec, int64_t threads, int64_t elements)
{
	const Layout *d = p->dst, *s = p->src;
	int in = reg ? innermost(reg) : d->nshard - 1;
	if (in < 0)
		return "no elements per thread";
	const Iter *di = &d->shard[in], *si = &s->shard[in];
	if (vec > 1) {
		if (di->axis != AX_M || si->axis != AX_M || di->stride != 1 || si->stride != 1)
			return "the innermost iter is not contiguous on both sides";
		if (di->extent % vec)
			return "the contiguous run is shorter than the vector";
		if (!strides_ok(d, in, vec) || !strides_ok(s, in, vec))
			return "a stride is not a multiple of the vector";
		if (!base_ok(d, p->dst_base, vec) || !base_ok(s, p->src_base, vec))
			return "an offset is not provably a multiple of the vector";
		if (!swizzle_ok(d, vec) || !swizzle_ok(s, vec))
			return "the vector would cross a swizzle chunk";
		if (reg) {
			/* every thread's memory-side start aligned: its thread strides */
			const Layout *mem = reg == d ? s : d;
			for (int i = 0; i < reg->nshard; i++)
				if (axes[reg->shard[i].axis].kind == AXK_THREAD && reg->shard[i].extent > 1 &&
				    mem->shard[i].stride % vec)
					return "a thread's start on the memory side is not a multiple of the vector";
		}
	}
	if (!reg && elements % (threads * vec))
		return "the elements do not divide over threads x vector";
	if (reg) {
		int64_t per = 1;
		for (int i = 0; i < reg->nshard; i++)
			if (axes[reg->shard[i].axis].kind != AXK_THREAD)
				per *= reg->shard[i].extent;
		if (per % vec)
			return "the elements of a thread do not divide by the vector";
	}
	return NULL;
}

/* ---- proving a plan (txc-lower) -------------------------------------------------- */

/* A plan's two layouts as pairs of iters, order and splits forgotten: the
 * iters of extent 1 dropped, the rest sorted (outermost first, by the first
 * side's axis and stride, then the second's) and fused where both sides
 * continue. Two pairings of the same elements reach the same form however
 * their iters were ordered, split or fused; side may be NULL (one layout). */
typedef struct Pair { Iter a, b; } Pair;

static int iter_cmp(const Iter *x, const Iter *y)
{
	if (x->axis != y->axis)
		return x->axis < y->axis ? 1 : -1;
	if (x->stride != y->stride)
		return x->stride < y->stride ? 1 : -1;
	return x->extent < y->extent ? 1 : x->extent > y->extent ? -1 : 0;
}

static int pair_cmp(const void *x, const void *y)
{
	const Pair *p = x, *q = y;
	int c = iter_cmp(&p->a, &q->a);
	return c ? c : iter_cmp(&p->b, &q->b);
}

static int normal_form(const Layout *a, const Layout *b, Pair **out)
{
	Pair *v = xalloc(sizeof(Pair) * (size_t)(a->nshard + 1));
	int n = 0;
	for (int k = 0; k < a->nshard; k++)
		if (a->shard[k].extent != 1)
			v[n++] = (Pair){ a->shard[k], b ? b->shard[k] : (Iter){ a->shard[k].extent, 0, AX_M } };
	qsort(v, (size_t)n, sizeof(Pair), pair_cmp);
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (m > 0 && fuses(&v[m - 1].a, &v[i].a) && (!b || fuses(&v[m - 1].b, &v[i].b))) {
			v[m - 1].a.extent *= v[i].a.extent;
			v[m - 1].a.stride = v[i].a.stride;
			v[m - 1].b.extent *= v[i].b.extent;
			v[m - 1].b.stride = v[i].b.stride;
			continue;
		}
		v[m++] = v[i];
	}
	*out = v;
	return m;
}

static bool same_form(const Layout *a, const Layout *b, const Layout *ca, const Layout *cb)
{
	Pair *x, *y;
	int n = normal_form(a, b, &x), m = normal_form(ca, cb, &y);
	if (n != m)
		return false;
	for (int i = 0; i < n; i++)
		if (pair_cmp(&x[i], &y[i]) != 0)
			return false;
	return true;
}

/* One side of a plan against the truth: its offsets on every axis (the
 * storage one with the symbolic base), its replicas and its swizzle. */
static const char *side_why(const char *side, const Layout *l, Expr *base, const Layout *t, Expr *tbase)
{
	for (int a = 0; a < AX_COUNT; a++)
		if (a != AX_M && l->off[a] != t->off[a])
			return xprintf("its %s layout's offset on %s is %lld, not %lld", side, axes[a].name,
			               (long long)l->off[a], (long long)t->off[a]);
	int64_t diff;
	Expr *start = ex_add(base ? base : ex_int(0), ex_int(l->off[AX_M]));
	Expr *tstart = ex_add(tbase ? tbase : ex_int(0), ex_int(t->off[AX_M]));
	if (!expr_const_diff(start, tstart, &diff) || diff != 0)
		return xprintf("its %s region starts at storage offset %s, not %s", side, expr_str(start), expr_str(tstart));
	if (l->swizzled != t->swizzled ||
	    (l->swizzled && (l->swz_m != t->swz_m || l->swz_b != t->swz_b || l->swz_s != t->swz_s)))
		return xprintf("its %s layout is %s, but the buffer's is %s", side,
		               l->swizzled ? xprintf("swizzled (%d, %d, %d)", l->swz_m, l->swz_b, l->swz_s) : "not swizzled",
		               t->swizzled ? xprintf("swizzled (%d, %d, %d)", t->swz_m, t->swz_b, t->swz_s) : "not");
	bool reps = l->nrep == t->nrep;
	for (int i = 0; reps && i < l->nrep; i++)
		reps = iter_cmp(&l->rep[i], &t->rep[i]) == 0;
	if (!reps)
		return xprintf("its %s layout's replicas are not the buffer's", side);
	return NULL;
}

/* The access widths of a variant include this many bits (one element when
 * its narrowest width is 8 bits, as txc-vectorize allows). */
static bool width_ok(const Variant *va, int64_t bits, int64_t elem_bits, int64_t vec)
{
	const char *w = va->vbits;
	bool scalar = false;
	while (*w) {
		int64_t b = atoll(w);
		if (b == bits)
			return true;
		scalar = b == 8;
		w += strcspn(w, " ");
		w += strspn(w, " ");
	}
	return vec == 1 && scalar && elem_bits <= 64;
}

/* A region as the user would write it: A[r * 128:r * 128 + 128, 0:64]. */
static const char *region_str(const Value *r)
{
	Buf b = {0};
	bprintf(&b, "%s[", r->buffer->name);
	for (int d = 0; d < r->ndim; d++) {
		const char *lo = expr_str(r->starts[d]);
		int64_t v;
		bool num = r->starts[d]->kind == E_INT || (r->starts[d]->val && r->starts[d]->val->kind == V_INT);
		v = !num ? 0 : r->starts[d]->kind == E_INT ? r->starts[d]->ival : r->starts[d]->val->i;
		bprintf(&b, "%s%s:%s", d ? ", " : "", lo,
		        num ? xprintf("%lld", (long long)(v + r->extents[d])) : xprintf("%s + %lld", lo, (long long)r->extents[d]));
	}
	bputc(&b, ']');
	return b.s;
}

const char *plan_prove(const Plan *p, const Variant *va, const Value *dst, const Value *src, int64_t threads)
{
	Plan t = { .variant = p->variant };
	const char *why = NULL;
	bool dst_global = scopes[dst->buffer->scope].flags & SCF_GLOBAL;
	if (!plan_align(&t, dst, src, va->plan == PLAN_GS, dst_global, &why))
		return xprintf("its operands cannot be aligned to check it against: %s", why);
	if (p->dst->nshard != p->src->nshard)
		return xprintf("its dst layout has %d iters and its src layout %d; they must run over one iteration space",
		               p->dst->nshard, p->src->nshard);
	for (int k = 0; k < p->dst->nshard; k++)
		if (p->dst->shard[k].extent != p->src->shard[k].extent)
			return xprintf("iter %d has extent %lld in its dst layout but %lld in its src layout", k,
			               (long long)p->dst->shard[k].extent, (long long)p->src->shard[k].extent);
	if ((why = side_why("dst", p->dst, p->dst_base, t.dst, t.dst_base)) ||
	    (why = side_why("src", p->src, p->src_base, t.src, t.src_base)))
		return why;
	const char *dname = region_str(dst), *sname = region_str(src);
	if (!same_form(p->dst, NULL, t.dst, NULL))
		return xprintf("its dst layout %s is not the layout of %s, %s (a plan may order, split and fuse iters, "
		               "not change what they reach)", layout_str(p->dst), dname, layout_str(t.dst));
	if (!same_form(p->src, NULL, t.src, NULL))
		return xprintf("its src layout %s is not the layout of %s, %s (a plan may order, split and fuse iters, "
		               "not change what they reach)", layout_str(p->src), sname, layout_str(t.src));
	if (!same_form(p->dst, p->src, t.dst, t.src))
		return xprintf("its layouts do not pair the elements of %s with those of %s", dname, sname);
	int bits = dtypes[dst->buffer->dtype].bits;
	int64_t access;
	if (!mul_ok(p->vec, bits, &access) || !width_ok(va, access, bits, p->vec))
		return xprintf("its vec %lld (%lld bits) is not an access width of %s (%s bits)", (long long)p->vec,
		               (long long)(p->vec * (int64_t)bits), va->name, va->vbits);
	const Layout *reg = va->plan == PLAN_REG ? plan_registers(p, dst) : NULL;
	if ((why = plan_vec_why(p, reg, p->vec, threads, region_elements(dst))))
		return xprintf("its vec %lld is not legal: %s", (long long)p->vec, why);
	return NULL;
}

/* ---- the tile ops of a module ------------------------------------------------ */

typedef struct Walk {
	OpFn fn;
	void *ctx;
	OpSite site;
	Expr *conds[64];
	bool negs[64];
	int nconds;
	bool ok;
} Walk;

static void walk_block(Walk *w, Stmt ***body, int *n)
{
	Stmt **out = NULL; /* the rebuilt block, from the first replaced op on */
	int nout = 0;
	for (int i = 0; i < *n; i++) {
		Stmt *s = (*body)[i];
		switch (s->kind) {
		case S_EXPR:
			if (s->value->kind == E_CALL &&
			    (s->value->intrin == IN_COPY || s->value->intrin == IN_COPY_ASYNC)) {
				OpSite *o = &w->site;
				o->stmt = s;
				o->call = s->value;
				o->conds = w->conds;
				o->negs = w->negs;
				o->nconds = w->nconds;
				o->repl = NULL;
				o->nrepl = -1;
				if (w->fn(o, w->ctx) < 0)
					w->ok = false;
				if (o->nrepl >= 0) {
					if (!out)
						for (int k = 0; k < i; k++)
							vpush(out, nout, (*body)[k]);
					for (int k = 0; k < o->nrepl; k++)
						vpush(out, nout, o->repl[k]);
					if (!out) /* replaced by nothing, and first */
						out = xalloc(sizeof *out);
					continue;
				}
			}
			break;
		case S_IF:
			if (w->nconds < 63) {
				w->conds[w->nconds] = s->value;
				w->negs[w->nconds++] = false;
				walk_block(w, &s->body, &s->nbody);
				w->negs[w->nconds - 1] = true;
				walk_block(w, &s->orelse, &s->norelse);
				w->nconds--;
			}
			break;
		case S_FOR:
			walk_block(w, &s->body, &s->nbody);
			break;
		default:
			break;
		}
		if (out)
			vpush(out, nout, s);
	}
	if (out) {
		*body = out;
		*n = nout;
	}
}

void op_replace(OpSite *o, Stmt **v, int n)
{
	o->repl = xalloc(sizeof(Stmt *) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		o->repl[i] = v[i];
	o->nrepl = n;
}

bool walk_tile_ops(Module *m, OpFn fn, void *ctx)
{
	Walk w = { .fn = fn, .ctx = ctx, .ok = true };
	for (int i = 0; i < m->nbody; i++) {
		Stmt *s = m->body[i];
		if (s->kind != S_FUNC || !s->func)
			continue;
		w.site.func = s->func;
		w.site.fstmt = s;
		walk_block(&w, &s->body, &s->nbody);
	}
	return w.ok;
}

int64_t scope_threads(const Func *f, int es)
{
	switch (es) {
	case ES_THREAD: return 1;
	case ES_WARP: return 32;
	case ES_WARPGROUP: return 128;
	default: return f->threads;
	}
}

int64_t region_elements(const Value *r)
{
	int64_t n = 1;
	for (int i = 0; i < r->ndim; i++)
		n *= r->extents[i];
	return n;
}

const Layout *buffer_layout(const Buffer *b)
{
	if (b->layout)
		return b->layout;
	if (!b->row_major) {
		Layout *l = layout_new();
		layout_default(l, b->shape, b->ndim);
		((Buffer *)b)->row_major = l; /* made once, on first use */
	}
	return b->row_major;
}

void stmt_insert(Stmt ***body, int *n, int at, Stmt *s)
{
	size_t cap = 1;
	while (cap < (size_t)(*n + 2))
		cap *= 2;
	Stmt **v = xalloc(sizeof(Stmt *) * cap);
	if (at)
		memcpy(v, *body, sizeof(Stmt *) * (size_t)at);
	v[at] = s;
	if (*n > at)
		memcpy(v + at + 1, *body + at, sizeof(Stmt *) * (size_t)(*n - at));
	*body = v;
	(*n)++;
}

const Layout *plan_registers(const Plan *p, const Value *dst)
{
	return dst->buffer->scope == SC_LOCAL ? p->dst : p->src;
}

const char *plan_check(const Plan *p, int64_t elements, bool per_thread)
{
	if (!p->vec || !p->threads || !p->outer || !p->src || !p->dst)
		return "the plan is incomplete (src, dst, vec, threads and outer are needed)";
	int64_t covered;
	if (!mul_ok(p->outer, p->vec, &covered) || (!per_thread && !mul_ok(covered, p->threads, &covered)) ||
	    (!per_thread && covered != elements) || covered > elements)
		return xprintf("the plan's outer %lld x %svec %lld does not cover the %lld elements of the region",
		               (long long)p->outer, per_thread ? "" : xprintf("threads %lld x ", (long long)p->threads),
		               (long long)p->vec, (long long)elements);
	return NULL;
}
