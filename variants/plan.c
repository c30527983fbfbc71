/* Plans as the text records them: plans=[T.plan(VARIANT, KEY=VALUE, ...)]
 * on a tile op, read and written field by field from ir/plan.def; layouts
 * written back as expressions; the region and thread counts the families
 * share. */
#include <stdlib.h>
#include <string.h>

#include "family.h"

/* ---- layouts as expressions ----------------------------------------------- */

/* e's n operands in one array as large as vpush would have grown it (as
 * expr_set_args makes it), for the caller to fill. */
static Expr **operands(Expr *e, int n)
{
	e->args = xalloc_vec(sizeof(Expr *), n);
	e->nargs = n;
	return e->args;
}

static Expr *tuple(void)
{
	Expr *t = new_expr(E_TUPLE, (Pos){0});
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
		slice->a = tuple();
		slice->b = tuple();
		Expr **e = operands(slice->a, n), **s = operands(slice->b, n);
		for (int i = 0; i < n; i++) {
			e[i] = ex_int(v[i].extent);
			s[i] = stride_expr(&v[i]);
		}
	}
	Expr *x = new_expr(E_INDEX, (Pos){0});
	x->a = ex_name(name);
	operands(x, 1)[0] = slice;
	return x;
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

/* The layout expression of a plan (write_plans): the tiles of a kernel
 * have a few layouts each written thousands of times, and the expression
 * is there to be printed, the pass after reading the layout from its
 * value. So one tree is made for each layout and the plans share what is
 * below its top node: each gets a top node of its own (the value the
 * caller attaches) over the same operands; a layout with a constant
 * offset gets `TREE + offset`, the tree of the layout at offset 0. A hit
 * is the tree layout_expr would make: it depends on exactly the fields of
 * the key, and a tree is never changed after (the printer and verification only read a plan's
 * layouts: no splat or call in them for desugaring to rewrite; txc-lower
 * drops plans). The templates themselves are never handed out. */
enum { KEY_FIXED = 6 + AX_COUNT, KEY_MAX = KEY_FIXED + 3 * 16 };

/* The fields layout_expr reads, in key (KEY_MAX words); their number, or
 * 0 when they do not fit. */
static int layout_key(const Layout *l, int64_t *key)
{
	int k = 0;
	if (KEY_FIXED + 3 * (l->nshard + l->nrep) > KEY_MAX)
		return 0;
	key[k++] = l->nshard;
	key[k++] = l->nrep;
	key[k++] = l->swizzled;
	key[k++] = l->swz_m;
	key[k++] = l->swz_b;
	key[k++] = l->swz_s;
	for (int a = 0; a < AX_COUNT; a++)
		key[k++] = l->off[a];
	for (int i = 0; i < l->nshard; i++) {
		key[k++] = l->shard[i].extent;
		key[k++] = l->shard[i].stride;
		key[k++] = l->shard[i].axis;
	}
	for (int i = 0; i < l->nrep; i++) {
		key[k++] = l->rep[i].extent;
		key[k++] = l->rep[i].stride;
		key[k++] = l->rep[i].axis;
	}
	return k;
}

static Expr *plan_layout_expr(const Layout *l)
{
	static struct LayoutTree { int64_t *key; int n; uint64_t h; Expr *tree; } *tab;
	static int cap, used;
	int64_t key[KEY_MAX];
	/* The constant offset is layout_expr's last term but for a swizzle
	 * (each tile of a tensor has its own): `TREE + off` over the tree
	 * without it. */
	if (!l->swizzled && l->off[AX_M]) {
		Layout at0 = *l;
		at0.off[AX_M] = 0;
		Expr *top = plan_layout_expr(&at0);
		return ex_op(OP_ADD, top, ex_int(l->off[AX_M]));
	}
	int n = layout_key(l, key);
	if (!n)
		return layout_expr(l); /* a layout of more than 16 iterators: made each time */
	uint64_t h = 1469598103934665603u;
	for (int i = 0; i < n; i++)
		h = (h ^ (uint64_t)key[i]) * 1099511628211u;
	struct LayoutTree *t = NULL;
	for (int i = cap ? (int)(h & (uint64_t)(cap - 1)) : 0; cap && tab[i].tree; i = (i + 1) & (cap - 1))
		if (tab[i].h == h && tab[i].n == n && !memcmp(tab[i].key, key, sizeof(int64_t) * (size_t)n)) {
			t = &tab[i];
			break;
		}
	if (!t) {
		if (2 * (used + 1) > cap) {
			int ncap = cap ? 2 * cap : 64;
			struct LayoutTree *nt = xalloc(sizeof *nt * (size_t)ncap);
			for (int i = 0; i < cap; i++)
				if (tab[i].tree) {
					int j = (int)(tab[i].h & (uint64_t)(ncap - 1));
					while (nt[j].tree)
						j = (j + 1) & (ncap - 1);
					nt[j] = tab[i];
				}
			tab = nt, cap = ncap;
		}
		int i = (int)(h & (uint64_t)(cap - 1));
		while (tab[i].tree)
			i = (i + 1) & (cap - 1);
		int64_t *kept = xalloc(sizeof(int64_t) * (size_t)n);
		memcpy(kept, key, sizeof(int64_t) * (size_t)n);
		tab[i] = (struct LayoutTree){ kept, n, h, layout_expr(l) };
		used++;
		t = &tab[i];
	}
	Expr *top = new_expr(t->tree->kind, (Pos){0});
	*top = *t->tree;
	if (top->nargs)
		memcpy(operands(top, top->nargs), t->tree->args, sizeof(Expr *) * (size_t)top->nargs);
	return top;
}

/* ---- plans ------------------------------------------------------------------- */

enum { PK_LAYOUT, PK_EXPR, PK_COUNT, PK_LIST };
static const struct Field {
	const char *name;
	int kind;
	unsigned fams;
	size_t off;
	const char *by, *doc;
} fields[] = {
#define PLAN_ROW(name, kind, fams, by, doc) { #name, PK_##kind, fams, offsetof(Plan, name), by, doc },
	PLAN_FIELDS(PLAN_ROW)
#undef PLAN_ROW
};
#define NFIELDS (sizeof fields / sizeof fields[0])
static const char why_kw[] = "why"; /* write_plans's name of why= */

static int plan_family(const Expr *call, const char *variant)
{
	int v = variant_lookup(call->intrin, variant);
	return v < 0 ? -1 : variants[v].family;
}

int read_plans(const Expr *call, Plan **out)
{
	return read_plans_in(call, NULL, 0, out);
}

/* ---- plans kept in memory ------------------------------------------------------ */

/* In one process (txc's chain, plans_in_memory), a pass hands its plans to
 * the next as they are: write_plans keeps a copy by the call's node and
 * read_plans_in gives it back, where writing them as expressions and
 * reading them again took two thirds of the passes' time. The expressions
 * are written by plans_flush, before anything else reads the call's
 * keywords: the printer, verification (sema reads plans=) and txc-lower's
 * output (an op it leaves). A kept copy is the plans write_plans was
 * given, exactly what read_plans would read from the expressions it would
 * have written; until the flush, the call's plans= keyword holds a
 * placeholder where the list will go (keep_plans), which nothing reads.
 * txc-lower forgets an op's copy when it replaces the op. */
bool plans_in_memory;

typedef struct KeptPlans {
	int n, cap;
	Plan v[];
} KeptPlans;

static PtrMap kept; /* call -> KeptPlans; NULL once flushed or forgotten */

static void keep_plans(Expr *call, const Plan *v, int n)
{
	/* plans= where the expressions would be, in the order of the
	 * keywords they would make: added at the end when a first plan is
	 * written (before a dispatch= added later), removed with the last;
	 * its value stands for the kept plans until the flush */
	static Expr unwritten = { .kind = E_NONE };
	Kw *kw = call_kw(call, "plans");
	if (n && !kw)
		call_add_kw(call, "plans", &unwritten, (Pos){0});
	else if (!n && kw)
		set_kw(call, "plans", NULL);
	KeptPlans *k = ptrmap_get(&kept, call);
	if (!k || k->cap < n) {
		int cap = n > 2 ? n : 2;
		k = xalloc(sizeof *k + sizeof(Plan) * (size_t)cap);
		k->cap = cap;
		ptrmap_put(&kept, call, k);
	}
	k->n = n;
	if (n) /* v may be NULL then */
		memcpy(k->v, v, sizeof(Plan) * (size_t)n);
}

void plans_forget(const Expr *call)
{
	if (kept.n && ptrmap_get(&kept, call))
		ptrmap_put(&kept, call, NULL);
}

static void write_plans_now(Expr *call, const Plan *v, int n);

void plans_flush(void)
{
	for (int i = 0; i < kept.cap; i++) {
		KeptPlans *k = kept.slots[i].val;
		if (k) {
			kept.slots[i].val = NULL;
			write_plans_now((Expr *)kept.slots[i].key, k->v, k->n);
		}
	}
}

void write_plans(Expr *call, const Plan *v, int n)
{
	if (plans_in_memory)
		keep_plans(call, v, n);
	else
		write_plans_now(call, v, n);
}

int read_plans_in(const Expr *call, Plan *room, int cap, Plan **out)
{
	const KeptPlans *k = kept.n ? ptrmap_get(&kept, call) : NULL;
	if (k) {
		Plan *v = k->n < cap ? room : xalloc(sizeof(Plan) * (size_t)(k->n + 1));
		memcpy(v, k->v, sizeof(Plan) * (size_t)k->n);
		memset(&v[k->n], 0, sizeof(Plan));
		*out = v;
		return k->n;
	}
	Kw *kw = call_kw(call, "plans");
	*out = NULL;
	if (!kw || kw->value->kind != E_LIST)
		return 0;
	Expr *l = kw->value;
	Plan *v;
	if (l->nargs < cap) {
		v = room;
		memset(v, 0, sizeof(Plan) * (size_t)(l->nargs + 1));
	} else {
		v = xalloc(sizeof(Plan) * (size_t)(l->nargs + 1));
	}
	for (int i = 0; i < l->nargs; i++) {
		Expr *c = l->args[i];
		Plan *p = &v[i];
		p->variant = c->nargs ? c->args[0]->str : "";
		p->family = plan_family(call, p->variant);
		size_t next = 0; /* write_plans writes the fields in order: the next one is tried first */
		for (int k = 0; k < c->nkws; k++) {
			const char *n = c->kws[k].name;
			Expr *x = c->kws[k].value;
			size_t f = next;
			if (next < NFIELDS && n == fields[next].name) { /* write_plans's: the next field's name itself */
			} else if (!strcmp(n, "why")) {
				p->why = x->str;
				continue;
			} else {
				size_t i = 0;
				for (; i < NFIELDS; i++) { /* the others, from the next one on */
					f = (next + i) % NFIELDS;
					if (n == fields[f].name || strcmp(n, fields[f].name) == 0)
						break;
				}
				if (i == NFIELDS)
					continue;
			}
			next = f + 1;
			Value *val = x->val;
			char *slot = (char *)p + fields[f].off;
			switch (fields[f].kind) {
			case PK_LAYOUT:
				*(Layout **)slot = val && val->kind == V_LAYOUT ? val->layout : NULL;
				break;
			case PK_EXPR:
				*(Expr **)slot = x;
				break;
			case PK_LIST:
				*(Expr **)slot = x->kind == E_LIST ? x : NULL;
				break;
			default:
				if (val && val->kind == V_INT)
					*(int64_t *)slot = val->i;
			}
		}
	}
	*out = v;
	return l->nargs;
}

Plan *find_plan(Plan *v, int n, const char *variant)
{
	for (int i = 0; i < n; i++)
		if (v[i].variant == variant || (v[i].variant[0] == variant[0] && strcmp(v[i].variant, variant) == 0))
			return &v[i];
	return NULL;
}

static Expr *str_expr(const char *s)
{
	Expr *e = new_expr(E_STR, (Pos){0});
	e->str = s;
	return e;
}

/* The expression of count c in a plan: one node for each value, shared
 * by the plans that have it (a long kernel's plans hold a few counts
 * thousands of times). A count is read by its value (read_plans reads the
 * value set here, the one verification sets) and printed; verifying it
 * sets the same value and dtype at each use, and so does scalar() where
 * the same node is a lowered integer (ex_int_shared, lowering.c). */
static Expr *count_expr(int64_t c)
{
	Expr *x = ex_int_shared(c);
	if (!x->val) /* verification's value (scalar() gives a lowered one the same) */
		x->val = vint(c);
	return x;
}

/* A new T.plan(variant) call. Its callee `T.plan` is one tree for every
 * plan: nothing rewrites a callee, and verifying one gives it the same
 * value each time. */
static Expr *plan_call(const char *variant)
{
	static Expr *callee;
	if (!callee)
		callee = ex_call("T.plan", 0, NULL)->a;
	Expr *c = new_call((Pos){0}, callee);
	Expr *name = str_expr(variant);
	expr_set_args(c, &name, 1);
	return c;
}

/* The T.plan call of the variant among the n calls of an earlier plans=
 * list, the first as read_plans finds them. */
static Expr *old_plan(Expr *const *v, int n, const char *variant)
{
	for (int i = 0; i < n; i++) {
		Expr *c = v[i];
		if (c->kind == E_CALL && c->nargs && c->args[0]->kind == E_STR &&
		    (c->args[0]->str == variant || !strcmp(c->args[0]->str, variant)))
			return c;
	}
	return NULL;
}

/* The value of keyword `name` of the old T.plan call oc, if write_plans
 * made it: no position (not parsed), and named by the very string
 * write_plans names it with (fields[], "why"): another call's keyword
 * is not found, and its value is made anew, as it would be without oc.
 * *at is where the search starts and moves past a hit (write_plans writes
 * the fields in order); a call it made has each keyword once, so the
 * order of the search finds the same one. */
static inline Expr *old_value(const Expr *oc, const char *name, int *at)
{
	if (!oc)
		return NULL;
	if (*at < oc->nkws && oc->kws[*at].name == name) { /* the search's first try, written here */
		Expr *x = oc->kws[*at].value;
		if (x->pos.place)
			return NULL;
		++*at;
		return x;
	}
	for (int i = 0, k = *at; i < oc->nkws; i++, k++) {
		if (k >= oc->nkws)
			k -= oc->nkws;
		if (oc->kws[k].name != name)
			continue;
		if (oc->kws[k].value->pos.place)
			return NULL;
		*at = k + 1;
		return oc->kws[k].value;
	}
	return NULL;
}

/* The fields a plan of family fam (-1: unknown) is written with, in
 * order, ended by -1: fields[]'s rows whose fams has fam, made once. */
static const signed char *family_fields(int fam)
{
	static signed char list[FAM_COUNT + 1][NFIELDS + 1];
	static bool made;
	if (!made) {
		for (int k = 0; k <= FAM_COUNT; k++) {
			int n = 0;
			for (size_t f = 0; f < NFIELDS; f++)
				if (k == FAM_COUNT || (fields[f].fams & (1u << k)))
					list[k][n++] = (signed char)f;
			list[k][n] = -1;
		}
		made = true;
	}
	static const signed char none[] = { -1 }; /* a family of no field */
	return fam < 0 ? list[FAM_COUNT] : fam < FAM_COUNT ? list[fam] : none;
}

/* Keywords n into a new array, sized as call_add_kw would have grown it
 * (a power of two), so that it may add more. */
static void set_kws(Expr *c, const Kw *v, int n)
{
	c->kws = xalloc_vec(sizeof(Kw), n);
	memcpy(c->kws, v, sizeof(Kw) * (size_t)n);
	c->nkws = n;
}

/* Each plan as T.plan(VARIANT, FIELD=..., why=...). In one process (txc's
 * chain) the previous pass's plans= is at hand: a value it wrote (no
 * position) that stands for the same thing is given back, not made
 * again (a layout expression whose value is the same layout, a count
 * of the same value, the same why), and a T.plan whose every keyword is
 * given back is itself, and one that differs is the old T.plan call
 * with its keywords replaced (in place of a new call with its name: the
 * same text, and nothing else holds the call); read from text, every
 * expression has a position and all are made anew. The layouts and
 * counts carry the value verification would give them (check_args),
 * which the next pass reads (read_plans) without verifying again. */
static void write_plans_now(Expr *call, const Plan *v, int n)
{
	Kw *old = call_kw(call, "plans");
	Expr *olist = old && old->value->kind == E_LIST ? old->value : NULL, *list;
	Expr *kept[8], *const *prev = olist ? olist->args : NULL;
	int nprev = olist ? olist->nargs : 0;
	if (olist && !olist->pos.place && n <= nprev && nprev <= (int)(sizeof kept / sizeof kept[0])) {
		/* the list an earlier pass wrote, filled again (its array has
		 * room): nothing else holds it, read_plans keeps only what is
		 * inside it; its calls are searched in a copy */
		memcpy(kept, olist->args, sizeof(Expr *) * (size_t)nprev);
		prev = kept;
		list = olist;
		list->nargs = 0;
	} else {
		list = new_expr(E_LIST, (Pos){0});
		if (n > 0) /* the plans in one array */
			list->args = xalloc_vec(sizeof(Expr *), n);
	}
	for (int i = 0; i < n; i++) {
		const Plan *p = &v[i];
		Expr *oc = old_plan(prev, nprev, p->variant);
		if (oc && (oc->pos.place || oc->nargs != 1 || oc->val))
			oc = NULL;
		/* a call of the list already (two plans of one variant) stays
		 * as it is: the second gets one of its own, as it would */
		for (int k = 0; oc && k < list->nargs; k++)
			if (list->args[k] == oc)
				oc = NULL;
		Kw kws[NFIELDS + 1];
		int nk = 0, at = 0;
		for (const signed char *f = family_fields(p->family); *f >= 0; f++) {
			const char *slot = (const char *)p + fields[*f].off, *name = fields[*f].name;
			Expr *x, *was;
			switch (fields[*f].kind) {
			case PK_LAYOUT: {
				const Layout *l = *(Layout *const *)slot;
				if (!l)
					continue;
				was = old_value(oc, name, &at);
				if (was && was->val && was->val->kind == V_LAYOUT && was->val->layout == l) {
					x = was;
				} else {
					x = plan_layout_expr(l);
					x->val = vnew(V_LAYOUT);
					x->val->layout = *(Layout *const *)slot;
				}
				break;
			}
			case PK_EXPR:
			case PK_LIST:
				if (!(x = *(Expr *const *)slot))
					continue;
				break;
			default: {
				int64_t c = *(const int64_t *)slot;
				if (!c)
					continue;
				was = old_value(oc, name, &at);
				if (was && was->kind == E_INT && was->ival == c && was->val && was->val->kind == V_INT &&
				    was->val->i == c) {
					x = was;
				} else {
					x = count_expr(c);
				}
			}
			}
			kws[nk++] = (Kw){ name, x, (Pos){0} };
		}
		if (p->why) {
			Expr *was = old_value(oc, why_kw, &at);
			Expr *x = was && was->kind == E_STR && was->str && !strcmp(was->str, p->why) ? was : str_expr(p->why);
			kws[nk++] = (Kw){ why_kw, x, (Pos){0} };
		}
		/* every keyword oc's, in its order */
		bool same = oc && nk == oc->nkws;
		for (int k = 0; same && k < nk; k++)
			same = oc->kws[k].value == kws[k].value && oc->kws[k].name == kws[k].name;
		if (same) {
			list->args[list->nargs++] = oc;
			continue;
		}
		Expr *c = oc;
		int room = 0; /* oc's keywords fill an array of a power of two (set_kws) */
		while (c && room < c->nkws)
			room = room ? 2 * room : 1;
		if (c && nk <= room) { /* written over: nothing else holds the array */
			memcpy(c->kws, kws, sizeof(Kw) * (size_t)nk);
			c->nkws = nk;
			list->args[list->nargs++] = c;
			continue;
		}
		if (c) {
			c->kws = NULL;
			c->nkws = 0;
		} else {
			c = plan_call(p->variant);
		}
		if (nk)
			set_kws(c, kws, nk);
		list->args[list->nargs++] = c;
	}
	if (old && n) /* set_kw's keyword: the first plans= */
		old->value = list;
	else
		set_kw(call, "plans", n ? list : NULL);
}

bool plan_count_field(const char *name)
{
	for (size_t f = 0; f < NFIELDS; f++)
		if (!strcmp(fields[f].name, name))
			return fields[f].kind == PK_COUNT;
	return false;
}

void print_plan_fields(Buf *b)
{
	bputs(b, "| keyword | kind | families | set by | meaning |\n|---|---|---|---|---|\n");
	static const char *const kinds[] = { "layout", "expr", "positive int", "list of ints" };
	for (size_t f = 0; f < NFIELDS; f++) {
		bprintf(b, "| `%s=` | %s | ", fields[f].name, kinds[fields[f].kind]);
		bool any = false;
		for (int k = 0; k < FAM_COUNT; k++)
			if (fields[f].fams & (1u << k)) {
				bprintf(b, "%s%s", any ? ", " : "", family_names[k]);
				any = true;
			}
		bprintf(b, " | %s | %s |\n", fields[f].by, fields[f].doc);
	}
	bputs(b, "| `why=` | str | every family | any planning pass | why the variant cannot run the op |\n");
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

/* ---- what the families share ------------------------------------------------- */

int64_t scope_threads(const Func *f, int es) { return level_threads(es, f->threads); }

int64_t region_elements(const Value *r)
{
	int64_t n = 1;
	for (int i = 0; i < r->ndim; i++)
		n *= r->extents[i];
	return n;
}

/* A buffer without a layout of its own has the row-major layout of its
 * shape, made once per buffer and shape (every access check and every
 * slice asks for it). An entry is found by the buffer's address (the
 * arena reuses none) and used only while the buffer still has no layout
 * and the same shape (which the emulator may set), so a hit is the
 * layout layout_default would make now; callers only read it. */
const Layout *buffer_layout(const Buffer *b)
{
	enum { DIMS = 8 };
	struct Default { int ndim; int64_t shape[DIMS]; Layout *l; };
	static PtrMap made;
	if (b->layout)
		return b->layout;
	struct Default *m = b->ndim <= DIMS ? ptrmap_get(&made, b) : NULL;
	if (m && m->ndim == b->ndim && !memcmp(m->shape, b->shape, sizeof(int64_t) * (size_t)b->ndim))
		return m->l;
	Layout *l = layout_new();
	layout_default(l, b->shape, b->ndim);
	if (b->ndim > DIMS)
		return l;
	if (!m) {
		m = xalloc(sizeof *m);
		ptrmap_put(&made, b, m);
	}
	m->ndim = b->ndim;
	memcpy(m->shape, b->shape, sizeof(int64_t) * (size_t)b->ndim);
	m->l = l;
	return l;
}

const char *plan_covers(const Plan *p, int64_t elements, bool per_thread)
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
