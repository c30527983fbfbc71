/* The fallback family: one thread of the scope copies element by element,
 * whatever the memories and layouts, as long as one thread reaches every
 * element. It plans nothing. */
#include "family.h"

const char *pred_element_access(const Try *t)
{
	const Value *v[2] = { t->dst, t->src };
	for (int i = 0; i < 2; i++)
		if (v[i]->buffer->layout && layout_uses_axis_kind(v[i]->buffer->layout, AXK_THREAD))
			return xprintf("the elements of '%s' are spread over threads; one thread cannot reach them",
			               v[i]->buffer->name);
	return NULL;
}

/* The common refinement of the two regions' shapes (extent-1 dimensions
 * dropped), innermost first split where one extent divides the other, in
 * out (outermost first); 0 when neither divides the other somewhere. Equal
 * shapes refine to themselves. */
static int refine_shapes(const Value *a, const Value *b, int64_t *out)
{
	int64_t tmp[2 * LAYOUT_MAX_ITERS];
	int n = 0, i = a->ndim - 1, j = b->ndim - 1;
	int64_t ea = 1, eb = 1;
	for (;;) {
		while (ea == 1 && i >= 0)
			ea = a->extents[i--];
		while (eb == 1 && j >= 0)
			eb = b->extents[j--];
		if (ea == 1 || eb == 1)
			break;
		int64_t e = ea < eb ? ea : eb;
		if ((ea > eb ? ea % eb : eb % ea) != 0 || n == 2 * LAYOUT_MAX_ITERS)
			return 0;
		tmp[n++] = e;
		ea /= e, eb /= e;
	}
	for (int k = 0; k < n; k++)
		out[k] = tmp[n - 1 - k];
	return n;
}

/* One thread of the scope copies element by element, pairing the elements
 * of the two regions in the row-major order of each: the loops run over the
 * common refinement of their shapes (the extents other than 1 when the
 * shapes agree), or over one flat loop when there is none. */
static int lower(Lower *L, OpSite *o, const Variant *va, const Plan *p)
{
	(void)va, (void)p;
	const Value *dst = o->call->args[0]->val, *src = o->call->args[1]->val;
	Expr *di[LAYOUT_MAX_ITERS], *si[LAYOUT_MAX_ITERS];
	const Value *sides[2] = { dst, src };
	Expr **idx[2] = { di, si };
	int64_t ext[2 * LAYOUT_MAX_ITERS];
	const char *var[2 * LAYOUT_MAX_ITERS];
	int nl = refine_shapes(dst, src, ext);
	bool flat = nl == 0 && region_elements(dst) > 1;
	if (flat)
		ext[nl++] = region_elements(dst);
	int64_t inner[2 * LAYOUT_MAX_ITERS]; /* elements after loop k */
	for (int k = nl - 1; k >= 0; k--)
		inner[k] = k == nl - 1 ? 1 : inner[k + 1] * ext[k + 1];
	for (int k = 0; k < nl; k++) {
		var[k] = lower_fresh(L, xprintf("i%d", k));
		lower_take(L, var[k]);
	}
	for (int s = 0; s < 2; s++) {
		const Value *r = sides[s];
		int64_t sigma = 1; /* elements of the region after dimension d */
		for (int d = r->ndim - 1; d >= 0; d--) {
			Expr *e = r->starts[d];
			int64_t span = sigma * r->extents[d];
			if (r->extents[d] > 1 && flat) {
				Expr *x = ex_div(ex_name(var[0]), sigma);
				e = ex_add(e, span == region_elements(r) ? x : ex_mod(x, r->extents[d]));
			} else if (r->extents[d] > 1) {
				for (int k = 0; k < nl; k++)
					if (inner[k] >= sigma && inner[k] < span)
						e = ex_add(e, ex_mul(ex_name(var[k]), ex_int(inner[k] / sigma)));
			}
			idx[s][d] = e;
			sigma = span;
		}
	}
	Stmt *st = new_stmt(S_ASSIGN, (Pos){0});
	vpush(st->targets, st->ntargets, ex_index(ex_name(dst->buffer->name), dst->ndim, di));
	st->value = ex_index(ex_name(src->buffer->name), src->ndim, si);
	/* a buffer of symbolic extent m: rows from m on are not there; a
	 * read there gives zero, a write there is not made */
	for (int s = 1; s >= 0; s--) {
		const Buffer *b = sides[s]->buffer;
		if (!b->dyn)
			continue;
		Stmt *g = new_stmt(S_IF, (Pos){0});
		Expr *c = new_expr(E_CMP, (Pos){0});
		c->op = OP_LT;
		c->a = expr_copy(idx[s][0]);
		c->b = ex_name(b->dyn->name);
		if (b->dyn->dtype != DT_INT32) { /* m: T.int64 (or unsigned): both sides in 64 bits */
			Expr *ra[] = { c->a, ex_str("int64") }, *ma[] = { c->b, ex_str("int64") };
			c->a = ex_call("T.cast", 2, ra);
			c->b = ex_call("T.cast", 2, ma);
		}
		g->value = c;
		vpush(g->body, g->nbody, st);
		if (s == 1) {
			Stmt *z = new_stmt(S_ASSIGN, (Pos){0});
			vpush(z->targets, z->ntargets, ex_index(ex_name(dst->buffer->name), dst->ndim, di));
			Expr *ca[] = { ex_int(0), ex_str(dtypes[dst->buffer->dtype].name) };
			z->value = ex_call("T.cast", 2, ca);
			vpush(g->orelse, g->norelse, z);
		}
		st = g;
	}
	for (int k = nl - 1; k >= 0; k--) {
		st = lower_loop(var[k], ext[k], st);
	}
	if (scope_threads(L->func, o->call->es) > 1) {
		Stmt *g = new_stmt(S_IF, (Pos){0});
		Expr *c = new_expr(E_CMP, (Pos){0});
		c->op = OP_EQ;
		c->a = lower_scope_index(L, o->call->es);
		c->b = ex_int(0);
		g->value = c;
		vpush(g->body, g->nbody, st);
		st = g;
	}
	st->pos = o->stmt->pos;
	op_replace(o, &st, 1);
	return 0;
}

const Family family_fallback = { NULL, NULL, NULL, NULL, NULL, lower };
