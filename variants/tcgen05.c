/* The tcgen05 family: a warpgroup moves a tensor-memory tile to or from its
 * registers with tcgen05.ld / tcgen05.st (seed 000; issue 11).
 *
 * The register operand's layout picks the instruction shape: it is
 * compared with tcgen05_atom_layout(shape, (rows, cols), dtype) for
 * .16x64b, .16x128b, .16x256b and .32x32b in that order, and the first that
 * is the same layout is taken, with the repetition count num it implies
 * (the atom's own arithmetic, ir/layout.c). The copy may take a column
 * slice of the fragment, whole repetitions of a power-of-two count: num is
 * the slice's, and its registers start at its first repetition's in each
 * slab. The tensor-memory operand's layout is one of the datapaths
 * tmem_datapath_layout gives (D: 128 rows, F: 64 rows in one 16-lane half
 * of each warp's quarter, sub_slab 0 or 1; B: 64 rows whose two column
 * halves live in lanes 0-63 and 64-127; G: 32 rows whose four column
 * quarters live in the four warps' quarters; A, C and E are D, F and B),
 * and the pair must be one the hardware serves:
 *   D x .32x32b (128 rows)       one issue at row 0
 *   D x .16x*b  (128 rows)       two issues, rows 0 and 16
 *   D x .16x*b  (64 rows)        one issue at row 0: rows [0:64] of D, the
 *                                low half-slab (TVM's convention: row r in
 *                                lane 32 (r / 16) + r % 16)
 *   F x .16x*b  (64 rows)        one issue at row 16 * sub_slab
 *   B x .32x32b (64 rows, N)     one issue, num = N / 2 (32-bit elements)
 *   G x .32x32b (32 rows, N)     one issue, num = N / 4 (32-bit elements)
 * A 16-bit tensor memory whose layout is a datapath's with the TCol
 * strides doubled holds one element per 32-bit column (the low half): the
 * instruction is the same shape and num with .pack::16b / .unpack::16b,
 * which doubles the columns each register covers, and the column is the
 * element's. The row argument stays in the IR as the seed writes it; the
 * warp's lane quarter (32 x (warp % 4)) is the backend's, the hardware's
 * rule. Register r of the instruction is the 32-bit word at storage
 * element r * (32 / bits) of the registers' root buffer. Completion is the
 * caller's: wait.ld, wait.st. */
#include <string.h>

#include "family.h"

typedef struct Ldst {
	bool ld;
	const Value *tm, *lo;   /* the tensor-memory and register regions */
	const Tcgen05Shape *s;
	int64_t num, slabs, regs; /* one issue's repetitions and 32-bit registers; issues */
	int64_t slab_regs;      /* registers of one slab of the whole fragment */
	Expr *reg0;             /* the first register of a column slice within its slab */
	int64_t row0;           /* the first issue's row */
	Expr *col;              /* the columns' 32-bit start */
	int64_t pack;           /* elements per 32-bit register */
	bool unpacked;          /* a 16-bit element per 32-bit column: .pack::16b / .unpack::16b */
	bool half_slab;         /* rows [0:64] of datapath D: its low half-slab (TVM's convention) */
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

static bool pow2(int64_t n) { return n > 0 && !(n & (n - 1)); }

/* The columns [start:start + w] as the program writes them. */
static const char *span(const Expr *start, int64_t w)
{
	int64_t c;
	if (expr_int(start, &c))
		return xprintf("[%lld:%lld]", (long long)c, (long long)(c + w));
	return xprintf("[%s:%s + %lld]", expr_str(start), expr_str(start), (long long)w);
}

/* The datapath of tensor-memory buffer b: "D", "F" (with *sub), "B", "G",
 * or NULL; *unpacked when its 16-bit elements each have a 32-bit column
 * (the datapath's TCol strides doubled). A, C and E are D, F and B. */
static const char *datapath(const Buffer *b, int64_t *sub, bool *unpacked)
{
	static const char *const dps[] = { "D", "F", "B", "G" };
	const Layout *l = buffer_layout(b);
	int bits = dtypes[b->dtype].bits;
	for (int u = 0; u < (bits == 16 ? 2 : 1); u++)
		for (size_t k = 0; k < sizeof dps / sizeof dps[0]; k++)
			for (int64_t s = 0; s < (strcmp(dps[k], "F") ? 1 : 2); s++) {
				Layout *c = layout_new();
				if (b->ndim != 2 || layout_tmem_datapath(c, dps[k], b->shape[0], b->shape[1], s))
					continue;
				for (int i = 0; u && i < c->nshard; i++)
					if (c->shard[i].axis == AX_TCOL)
						c->shard[i].stride *= 2;
				if (same_layout(l, c)) {
					*sub = s;
					*unpacked = u;
					return dps[k];
				}
			}
	return NULL;
}

/* Rows of tensor memory a .32x32b fragment of each datapath has. */
static int64_t dp_rows(const char *dp) { return !strcmp(dp, "D") ? 128 : !strcmp(dp, "B") ? 64 : !strcmp(dp, "G") ? 32 : 64; }

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
	if (bits != 8 && bits != 16 && bits != 32)
		return xprintf("tcgen05.ld/st move 32-bit words: %s elements are not 8, 16 or 32 bits", dtypes[dt].name);
	x->pack = 32 / bits;
	if (lb->ndim != 2 || x->lo->ndim != 2)
		return xprintf("the register fragment '%s' is (rows, cols), not %d-dimensional", lb->name, lb->ndim);
	if (!is_zero(x->lo->starts[0]) || x->lo->extents[0] != lb->shape[0])
		return xprintf("not supported yet: a part of the rows of the register fragment '%s'; copy all of them",
		               lb->name);
	int64_t rows = lb->shape[0], cols = lb->shape[1];
	/* the shape: the first atom layout the registers' layout is; a
	 * buffer of a repetition count no instruction takes may still give a
	 * slice that one does (TVM's sliced register tiles) */
	Buf why = { 0 };
	bputs(&why, "");
	int64_t n = 0, per_rep = 0;
	static const int order[] = { TC_16X64B, TC_16X128B, TC_16X256B, TC_32X32B };
	for (size_t k = 0; k < sizeof order / sizeof order[0] && !x->s; k++) {
		const Tcgen05Shape *s = &tcgen05_shapes[order[k]];
		Layout *a = layout_new();
		const char *e = layout_tcgen05_atom_num(a, s->name, rows, cols, dt, true);
		if (!e && same_layout(buffer_layout(lb), a)) {
			x->s = s;
			per_rep = s->lanes == 32 ? s->cols * 128 / rows : s->cols;
			n = cols * bits / 32 / per_rep;
			x->slabs = s->lanes == 16 ? rows / 64 : 1;
			x->slab_regs = s->regs * n;
			break;
		}
		bprintf(&why, "%s.%s: %s", why.n ? "; " : "", s->name,
		        e ? e : xprintf("not tcgen05_atom_layout(\"%s\", (%lld, %lld), \"%s\")", s->name, (long long)rows,
		                        (long long)cols, dtypes[dt].name));
	}
	if (!x->s)
		return xprintf("the layout of the registers '%s' is no tcgen05.ld/st shape's (%s)", lb->name, why.s);
	/* a column slice of the fragment: whole repetitions, a power of two;
	 * its start may be a run-time multiple of a repetition */
	Expr *se = x->lo->starts[1];
	int64_t s0 = 0, w = x->lo->extents[1], rep_elems = per_rep * x->pack;
	bool sconst = expr_int(se, &s0);
	x->reg0 = ex_int(0);
	if (w != cols || !sconst || s0 != 0) {
		if (x->s->lanes == 32 && rows < 128)
			return xprintf("the register fragment '%s' is a %lld-row .32x32b fragment, whose columns are split "
			               "across the warps: only all %lld columns of it are one transfer, not %s", lb->name,
			               (long long)rows, (long long)cols, span(se, w));
		if (w % rep_elems || !pow2(w / rep_elems) || (sconst ? s0 % rep_elems != 0 : !expr_divisible(se, rep_elems)))
			return xprintf("the columns %s of the register fragment '%s' are not whole repetitions of .%s (%lld %s "
			               "columns each, a power of two of them, starting at a multiple%s)", span(se, w), lb->name,
			               x->s->name, (long long)rep_elems, dtypes[dt].name,
			               sconst ? "" : xprintf(": txc cannot prove that %s is one", expr_str(se)));
		x->num = w / rep_elems;
		x->reg0 = sconst ? ex_int(s0 / rep_elems * x->s->regs) : ex_mul(ex_div(se, rep_elems), ex_int(x->s->regs));
	} else {
		x->num = n;
	}
	if (!pow2(x->num) || x->num > x->s->max_num)
		return xprintf("the columns %s of the register fragment '%s' are %lld repetitions of .%s; one instruction takes a "
		               "power of two of them, at most %d", span(se, w), lb->name, (long long)x->num, x->s->name,
		               x->s->max_num);
	x->regs = x->s->regs * x->num;
	/* the tensor memory: a datapath the shape serves, a column window */
	int64_t sub = 0;
	const char *dp = datapath(tb, &sub, &x->unpacked);
	if (!dp)
		return xprintf("the layout of the tensor memory '%s' is none of tmem_datapath_layout's D (128 rows), F (64 "
		               "rows), B (64 rows) or G (32 rows)%s", tb->name,
		               bits == 16 ? ", with one or two float16 elements per 32-bit column" : "");
	bool wide = x->s->lanes == 16;
	/* TVM's convention: rows [0:64] of a datapath D buffer, copied with a
	 * 64-row .16x*b fragment, are its low half-slab (row r in lane
	 * 32 (r / 16) + r % 16), what the instruction at row 0 reaches */
	x->half_slab = !strcmp(dp, "D") && wide && rows == 64 && x->tm->ndim == 2 && is_zero(x->tm->starts[0]) &&
	               x->tm->extents[0] == 64;
	int64_t r0;
	if (x->tm->ndim != 2 || !is_zero(x->tm->starts[0]) || (x->tm->extents[0] != tb->shape[0] && !x->half_slab))
		return xprintf("not supported yet: rows [%s:%s] of the tensor memory '%s'%s", expr_str(x->tm->starts[0]),
		               expr_int(x->tm->starts[0], &r0) ? xprintf("%lld", (long long)(r0 + x->tm->extents[0])) :
		               xprintf("%s + %lld", expr_str(x->tm->starts[0]), (long long)x->tm->extents[0]), tb->name,
		               !strcmp(dp, "D") && wide && rows == 64 ?
		               " (a 64-row .16x*b fragment reads rows [0:64] of a datapath D buffer, its low half-slab)" :
		               ": copy all of its rows");
	if (!strcmp(dp, "F") && rows == 128)
		return xprintf("a 128-row register fragment against the 64-row datapath F of '%s': F holds the low or the "
		               "high 16 lanes of each warp's quarter, and a 128-row fragment reads both", tb->name);
	if (!strcmp(dp, "F") && !wide)
		return xprintf("datapath F of '%s' with .32x32b: F uses 16 of each warp's 32 lanes, and .32x32b reads all 32",
		               tb->name);
	if (!strcmp(dp, "B") && wide)
		return xprintf("datapath B of '%s' with a .%s fragment: B splits the columns into two halves in lanes 0-63 "
		               "and 64-127, which only a .32x32b (64, N) fragment reads", tb->name, x->s->name);
	if (!strcmp(dp, "G") && wide)
		return xprintf("datapath G of '%s' with a .%s fragment: G splits the columns into four quarters, one per "
		               "warp's lanes, which only a .32x32b (32, N) fragment reads", tb->name, x->s->name);
	if (!wide && rows != dp_rows(dp))
		return xprintf("a %lld-row .32x32b fragment against the %lld-row datapath %s of '%s' (that fragment is "
		               "datapath %s's)", (long long)rows, (long long)dp_rows(dp), dp, tb->name,
		               rows == 128 ? "D" : rows == 64 ? "B" : "G");
	Expr *ce = x->tm->starts[1];
	int64_t c0 = 0, width = x->tm->extents[1];
	bool cconst = expr_int(ce, &c0);
	if ((!strcmp(dp, "B") || !strcmp(dp, "G")) && (!cconst || c0 != 0 || width != tb->shape[1]))
		return xprintf("datapath %s on the column sub-window [:, %s of '%s': %s's columns are split in %s, so only "
		               "the full (%lld, N) tile, (%lld, %lld), is one transfer", dp, span(ce, width) + 1, tb->name, dp,
		               !strcmp(dp, "B") ? "two halves" : "four quarters", (long long)tb->shape[0],
		               (long long)tb->shape[0], (long long)tb->shape[1]);
	if (width != w)
		return xprintf("the tensor-memory window is %lld columns wide and the register fragment%s %lld", (long long)width,
		               w != cols ? "'s slice" : "", (long long)w);
	if (x->unpacked) {
		x->col = ce; /* an element per column */
	} else if (cconst) {
		if (c0 % x->pack)
			return xprintf("the tensor-memory window starts at column %lld, inside a 32-bit column of %lld %s",
			               (long long)c0, (long long)x->pack, dtypes[dt].name);
		x->col = ex_int(c0 / x->pack);
	} else {
		if (!expr_divisible(ce, x->pack))
			return xprintf("the tensor-memory window starts at column %s, which txc cannot prove a multiple of %lld: "
			               "a 32-bit column holds %lld %s", expr_str(ce), (long long)x->pack, (long long)x->pack,
			               dtypes[dt].name);
		x->col = ex_div(ce, x->pack);
	}
	x->row0 = wide ? 16 * sub : 0;
	/* the registers' storage and the tensor memory's address */
	x->root = buffer_root((Buffer *)lb);
	const Buffer *a = tb;
	while (a && !a->alloc_addr)
		a = a->base;
	if (!a)
		return xprintf("tensor memory '%s' has no allocated_addr=", tb->name);
	x->taddr = a->alloc_addr;
	int64_t need = x->slabs * x->slab_regs * x->pack, have = 0;
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

bool tcgen05_half_slab(const Value *dst, const Value *src)
{
	Ldst x;
	return !plan(&x, dst, src) && x.half_slab;
}

/* Register r: the 32-bit word at storage element r x pack of the calling
 * thread's registers, `regs` (the root itself when it is their storage, a
 * name for ROOT.local() otherwise). */
static Expr *reg(const Ldst *x, const char *regs, Expr *r)
{
	Expr *k = ex_mul(r, ex_int(x->pack));
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
	const char *regs = lower_registers(L, o, x.root, &v[nv]);
	if (v[nv])
		nv++;
	for (int64_t s = 0; s < x.slabs; s++) {
		int n = 0;
		Expr **args = xalloc(sizeof(Expr *) * (size_t)(6 + x.regs));
		Expr *shape = new_expr(E_STR, (Pos){0});
		shape->str = x.s->name;
		args[n++] = x.taddr;
		args[n++] = ex_int(x.row0 + 16 * s);
		args[n++] = x.col;
		args[n++] = shape;
		args[n++] = ex_int(x.num);
		args[n++] = new_expr(x.unpacked ? E_TRUE : E_FALSE, (Pos){0});
		for (int64_t r = 0; r < x.regs; r++)
			args[n++] = reg(&x, regs, ex_add(ex_int(s * x.slab_regs + r), x.reg0));
		Stmt *c = new_stmt(S_EXPR, o->stmt->pos);
		c->value = ex_call(x.ld ? "T.ptx.tcgen05.ld" : "T.ptx.tcgen05.st", n, args);
		v[nv++] = c;
	}
	op_replace(o, v, nv);
	return 0;
}

const Family family_tcgen05 = { NULL, NULL, NULL, NULL, NULL, lower };
