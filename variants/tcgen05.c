/* The tcgen05 family: a warpgroup moves a tensor-memory tile to or from its
 * registers with tcgen05.ld / tcgen05.st (seed 000; issue 11).
 *
 * The register operand's layout picks the instruction shape: it is
 * compared with tcgen05_atom_layout(shape, (rows, cols), dtype) for
 * .16x64b, .16x128b, .16x256b and .32x32b in that order, and the first that
 * is the same layout is taken, with the repetition count num it implies
 * (the atom's own arithmetic, ir/layout.c). The tensor-memory operand's
 * layout is one of the datapaths tmem_datapath_layout gives (D: 128 rows,
 * F: 64 rows in one 16-lane half of each warp's quarter, sub_slab 0 or 1;
 * B: 64 rows whose two column halves live in lanes 0-63 and 64-127), and the
 * pair must be one the hardware serves:
 *   D x .32x32b (128 rows)       one issue at row 0
 *   D x .16x*b  (128 rows)       two issues, rows 0 and 16
 *   D x .16x*b  (64 rows)        one issue at row 0 (the low half-slab)
 *   F x .16x*b  (64 rows)        one issue at row 16 * sub_slab
 *   B x .32x32b (64 rows, N)     one issue, num = N / 2
 * The row argument stays in the IR as the seed writes it; the warp's lane
 * quarter (32 x (warp % 4)) is the backend's, the hardware's rule. Register
 * r of the instruction is the 32-bit word at storage element r * (32 /
 * bits) of the registers' root buffer (slab s starts at register s x the
 * slab's registers). Completion is the caller's: wait.ld, wait.st. */
#include <string.h>

#include "family.h"

typedef struct Ldst {
	bool ld;
	const Value *tm, *lo;   /* the tensor-memory and register regions */
	const Tcgen05Shape *s;
	int64_t num, slabs, regs; /* repetitions, issues, 32-bit registers per issue */
	int64_t row0, col32;    /* the first issue's row, the columns' 32-bit start */
	int64_t pack;           /* elements per 32-bit register */
	Buffer *root;           /* the registers' storage */
	Expr *taddr;            /* the tensor memory's address */
} Ldst;

static bool same_layout(const Layout *a, const Layout *b)
{
	return !strcmp(layout_str(layout_canonical(a)), layout_str(layout_canonical(b)));
}

static bool is_zero(const Expr *e)
{
	return (e->kind == E_INT && e->ival == 0) || (e->val && e->val->kind == V_INT && e->val->i == 0);
}

static bool constant(const Expr *e, int64_t *v)
{
	if (e->kind == E_INT)
		return *v = e->ival, true;
	if (e->val && e->val->kind == V_INT)
		return *v = e->val->i, true;
	return false;
}

/* The datapath of tensor-memory buffer b: "D", "F" (with *sub), "B", or
 * NULL. */
static const char *datapath(const Buffer *b, int64_t *sub)
{
	static const char *const dps[] = { "D", "F", "B" };
	const Layout *l = buffer_layout(b);
	for (size_t k = 0; k < sizeof dps / sizeof dps[0]; k++)
		for (int64_t s = 0; s < (strcmp(dps[k], "F") ? 1 : 2); s++) {
			Layout *c = layout_new();
			if (b->ndim == 2 && !layout_tmem_datapath(c, dps[k], b->shape[0], b->shape[1], s) && same_layout(l, c)) {
				*sub = s;
				return dps[k];
			}
		}
	return NULL;
}

static const char *plan(Ldst *x, const Value *dst, const Value *src)
{
	memset(x, 0, sizeof *x);
	x->ld = src->buffer->scope == SC_TMEM;
	x->tm = x->ld ? src : dst;
	x->lo = x->ld ? dst : src;
	const Buffer *lb = x->lo->buffer, *tb = x->tm->buffer;
	int dt = lb->dtype, bits = dtypes[dt].bits;
	if (tb->dtype != dt)
		return xprintf("the registers are %s and the tensor memory %s", dtypes[dt].name, dtypes[tb->dtype].name);
	if (bits != 16 && bits != 32)
		return xprintf("tcgen05.ld/st move 32-bit words: %s elements are neither 16 nor 32 bits", dtypes[dt].name);
	x->pack = 32 / bits;
	if (lb->ndim != 2 || x->lo->ndim != 2)
		return xprintf("the register fragment '%s' is (rows, cols), not %d-dimensional", lb->name, lb->ndim);
	for (int d = 0; d < 2; d++)
		if (!is_zero(x->lo->starts[d]) || x->lo->extents[d] != lb->shape[d])
			return xprintf("not supported yet: a part of the register fragment '%s'; copy all of it", lb->name);
	int64_t rows = lb->shape[0], cols = lb->shape[1];
	/* the shape: the first atom layout the registers' layout is */
	Buf why = { 0 };
	bputs(&why, "");
	static const int order[] = { TC_16X64B, TC_16X128B, TC_16X256B, TC_32X32B };
	for (size_t k = 0; k < sizeof order / sizeof order[0] && !x->s; k++) {
		const Tcgen05Shape *s = &tcgen05_shapes[order[k]];
		Layout *a = layout_new();
		const char *e = layout_tcgen05_atom(a, s->name, rows, cols, dt);
		if (!e && same_layout(buffer_layout(lb), a)) {
			x->s = s;
			int64_t per_rep = s->lanes == 32 ? s->cols * 128 / rows : s->cols;
			x->num = cols * bits / 32 / per_rep;
			x->slabs = s->lanes == 16 ? rows / 64 : 1;
			x->regs = s->regs * x->num;
			break;
		}
		bprintf(&why, "%s.%s: %s", why.n ? "; " : "", s->name,
		        e ? e : xprintf("not tcgen05_atom_layout(\"%s\", (%lld, %lld), \"%s\")", s->name, (long long)rows,
		                        (long long)cols, dtypes[dt].name));
	}
	if (!x->s)
		return xprintf("the layout of the registers '%s' is no tcgen05.ld/st shape's (%s)", lb->name, why.s);
	/* the tensor memory: a datapath the shape serves, a column window */
	int64_t sub = 0;
	const char *dp = datapath(tb, &sub);
	if (!dp)
		return xprintf("the layout of the tensor memory '%s' is none of tmem_datapath_layout's D (128 rows), F (64 "
		               "rows) or B (64 rows)", tb->name);
	if (x->tm->ndim != 2 || !is_zero(x->tm->starts[0]) || x->tm->extents[0] != tb->shape[0])
		return xprintf("not supported yet: a part of the rows of the tensor memory '%s'", tb->name);
	bool wide = x->s->lanes == 16;
	if (!strcmp(dp, "F") && rows == 128)
		return xprintf("a 128-row register fragment against the 64-row datapath F of '%s': F holds the low or the "
		               "high 16 lanes of each warp's quarter, and a 128-row fragment reads both", tb->name);
	if (!strcmp(dp, "F") && !wide)
		return xprintf("datapath F of '%s' with .32x32b: F uses 16 of each warp's 32 lanes, and .32x32b reads all 32",
		               tb->name);
	if (!strcmp(dp, "B") && wide)
		return xprintf("datapath B of '%s' with a .%s fragment: B splits the columns into two halves in lanes 0-63 "
		               "and 64-127, which only a .32x32b (64, N) fragment reads", tb->name, x->s->name);
	if (!strcmp(dp, "D") && !wide && rows != 128)
		return xprintf("a 64-row .32x32b fragment against the 128-row datapath D of '%s' (that fragment is datapath "
		               "B's)", tb->name);
	int64_t c0;
	if (!constant(x->tm->starts[1], &c0))
		return xprintf("not supported yet: a column window of '%s' at a run-time start", tb->name);
	int64_t width = x->tm->extents[1];
	if (!strcmp(dp, "B") && (c0 != 0 || width != tb->shape[1]))
		return xprintf("datapath B on the column sub-window [:, %lld:%lld] of '%s': B's columns are split in two "
		               "halves, so only the whole (64, %lld) tile is one transfer", (long long)c0,
		               (long long)(c0 + width), tb->name, (long long)tb->shape[1]);
	if (width != cols)
		return xprintf("the tensor-memory window is %lld columns wide and the register fragment %lld", (long long)width,
		               (long long)cols);
	if (c0 % x->pack)
		return xprintf("the tensor-memory window starts at column %lld, inside a 32-bit column of two %s", (long long)c0,
		               dtypes[dt].name);
	x->col32 = c0 / x->pack;
	x->row0 = wide ? 16 * sub : 0;
	/* the registers' storage and the tensor memory's address */
	x->root = buffer_root((Buffer *)lb);
	const Buffer *a = tb;
	while (a && !a->alloc_addr)
		a = a->base;
	if (!a)
		return xprintf("tensor memory '%s' has no allocated_addr=", tb->name);
	x->taddr = a->alloc_addr;
	int64_t need = x->slabs * x->regs * x->pack, have = 0;
	if (!layout_span(buffer_layout(x->root), AX_M, &have) || have < need)
		return xprintf("the registers '%s' hold %lld elements; the fragment needs %lld", x->root->name,
		               (long long)have, (long long)need);
	return NULL;
}

const char *pred_tcgen05_ldst(const Try *t)
{
	if (t->call->es != ES_WARPGROUP)
		return xprintf("%s is a warpgroup's copy: write it as Tx.wg.copy_async, not at %s scope", t->va->name,
		               exec_scope_names[t->call->es]);
	Ldst x;
	return plan(&x, t->dst, t->src);
}

/* Register r: the 32-bit word at storage element r x pack of the calling
 * thread's registers, `regs` (the root itself when it is their storage, a
 * name for ROOT.local() otherwise). */
static Expr *reg(const Ldst *x, const char *regs, int64_t r)
{
	Expr *k = ex_int(r * x->pack);
	return ex_index(ex_name(regs), 1, &k);
}

static int lower(Lower *L, OpSite *o, const Variant *va, const Plan *p)
{
	(void)va, (void)p;
	Ldst x;
	const char *why = plan(&x, o->call->args[0]->val, o->call->args[1]->val);
	if (why)
		return lower_fail(L, o, why);
	Stmt **v = xalloc(sizeof(Stmt *) * (size_t)(x.slabs + 1));
	int nv = 0;
	const char *regs = x.root->name;
	if (x.root->ndim != 1 || x.root->layout) {
		/* a laid-out register buffer: the thread's own storage, in order */
		regs = lower_fresh(L, xprintf("%s_regs", x.root->name));
		lower_take(L, regs);
		Expr *f = new_expr(E_ATTR, o->stmt->pos);
		f->a = ex_name(x.root->name);
		f->str = "local";
		Stmt *a = new_stmt(S_ASSIGN, o->stmt->pos);
		vpush(a->targets, a->ntargets, ex_name(regs));
		a->value = new_call(o->stmt->pos, f);
		v[nv++] = a;
	}
	for (int64_t s = 0; s < x.slabs; s++) {
		int n = 0;
		Expr **args = xalloc(sizeof(Expr *) * (size_t)(6 + x.regs));
		Expr *shape = new_expr(E_STR, (Pos){0});
		shape->str = x.s->name;
		args[n++] = x.taddr;
		args[n++] = ex_int(x.row0 + 16 * s);
		args[n++] = ex_int(x.col32);
		args[n++] = shape;
		args[n++] = ex_int(x.num);
		args[n++] = new_expr(E_FALSE, (Pos){0});
		for (int64_t r = 0; r < x.regs; r++)
			args[n++] = reg(&x, regs, s * x.regs + r);
		Stmt *c = new_stmt(S_EXPR, o->stmt->pos);
		c->value = ex_call(x.ld ? "T.ptx.tcgen05.ld" : "T.ptx.tcgen05.st", n, args);
		v[nv++] = c;
	}
	op_replace(o, v, nv);
	return 0;
}

const Family family_tcgen05 = { NULL, NULL, NULL, NULL, NULL, lower };
