/* What the passes share: the table of variants, the plans they record on
 * tile ops (plans=[T.plan(...)]), layouts written back as expressions, and
 * a walk over the tile ops of a module with their enclosing conditions. */
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
