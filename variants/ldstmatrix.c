/* The ldstmatrix family: a warp's (a warpgroup's, a CTA's) copy between its
 * registers and shared memory with ldmatrix / stmatrix .m8n8 .b16, the
 * warp-collective instructions that move 8 x 8 tiles of 16-bit elements
 * and shuffle them into an MMA fragment on the way (TVM tries this variant
 * before reg for every register <-> shared copy, and it declines when the
 * layouts are no such fragment).
 *
 * The fit is found by enumeration, not by matching a layout form: every
 * element of the region gives (thread, register storage offset) on one
 * side and a shared-memory offset on the other. Each thread's elements
 * pair into 32-bit words (two 16-bit elements at an even storage offset),
 * the same words in every thread. A word is one matrix of an instruction
 * when the warp's 32 lanes hold it as the PTX ISA's fragment: lane l holds
 * row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of an 8 x 8 matrix whose
 * rows are 16 aligned bytes each, anywhere in shared memory (.trans: rows
 * 2 (l % 4) and 2 (l % 4) + 1 of column l / 4). Every word must fit one
 * form, the same for all. A thread's words are taken num at a time, num
 * the widest of 4, 2, 1 that divides their count, one .x{num} instruction
 * each; matrix j of an instruction takes its row addresses from lanes
 * 8j .. 8j + 7 (lanes past 8 num repeat the first matrices' rows: they are
 * not read). A lane's row address, before the layout's swizzle, is then a
 * function of its thread index in the scope that is a sum of mixed-radix
 * digits of it, (index // d) % e * c, found and checked by enumeration. */
#include <stdlib.h>
#include <string.h>

#include "family.h"

enum { MAX_DIGITS = 24 };

/* The tables of one fit, freed after it (the arena keeps what it hands
 * out, and dispatch and lowering fit every register <-> shared copy). */
static int64_t *table(int64_t n)
{
	int64_t *p = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
	if (!p)
		die("out of memory");
	return p;
}

/* index // div % ext * coef (ext 0: no modulus) */
typedef struct Digit { int64_t div, ext, coef; } Digit;

typedef struct Inst {
	int64_t c;                  /* the row address of lane 0 of warp 0, before the swizzle */
	Digit d[MAX_DIGITS];
	int nd;
} Inst;

typedef struct Fit {
	bool ld, trans;
	int64_t threads, warps, words, num, insts;
	const Value *sm, *rg;
	int64_t *mword;             /* each word's storage offset in the registers (its first element) */
	Inst *inst;
	Expr *sbase;                /* a run-time storage start of the shared region (NULL: none) */
	Expr *rbase;                /* and of the register region (an unrolled loop's slice; NULL: none) */
	const Layout *sl;           /* the shared region's layout: its swizzle */
} Fit;

/* g over [0, n), g(0) = 0, as a sum of mixed-radix digits of its argument:
 * from the innermost, the longest run on which g is linear that divides
 * what is left, then the same for g at multiples of the run. False when g
 * is not such a sum. */
static bool decompose(const int64_t *g, int64_t n, Inst *in)
{
	int64_t unit = 1;
	in->nd = 0;
	while (unit < n) {
		int64_t left = n / unit, c = g[unit], e = left;
		for (int64_t k = 2; k <= left; k++) /* the longest linear run that divides what is left */
			if (g[k * unit - unit] != (k - 1) * c) {
				e = k - 1;
				break;
			}
		while (left % e)
			e--;
		if (e < 2)
			e = left; /* unreachable: e >= 2 when left >= 2 */
		for (int64_t x = 0; x < n; x += unit) {
			int64_t q = x / unit;
			if (g[x] != g[(q - q % e) * unit] + (q % e) * c)
				return false;
		}
		if (c) {
			if (in->nd == MAX_DIGITS)
				return false;
			in->d[in->nd++] = (Digit){ unit, unit * e >= n ? 0 : e, c };
		}
		unit *= e;
	}
	return true;
}

static const char *fit(Fit *x, const OpSite *o, const Value *dst, const Value *src, int es)
{
	memset(x, 0, sizeof *x);
	x->ld = src->buffer->scope != SC_LOCAL;
	x->sm = x->ld ? src : dst;
	x->rg = x->ld ? dst : src;
	const Buffer *sb = x->sm->buffer, *rb = x->rg->buffer;
	const char *ins = x->ld ? "ldmatrix" : "stmatrix";
	if (es != ES_WARP && es != ES_WARPGROUP && es != ES_CTA)
		return xprintf("%s is warp-collective: a warp's, warpgroup's or CTA's copy, not a %s's", ins,
		               exec_scope_names[es]);
	if (dtypes[rb->dtype].bits != 16 || sb->dtype != rb->dtype)
		return xprintf("%s moves 16-bit elements (.b16); the copy is %s -> %s", ins, dtypes[src->buffer->dtype].name,
		               dtypes[dst->buffer->dtype].name);
	if (!x->ld && !target_has(variant_target, TG_SM90))
		return xprintf("stmatrix needs sm_90; the target is %s", target_names[variant_target]);
	x->threads = scope_threads(o->func, es);
	if (x->threads <= 0 || x->threads % 32)
		return xprintf("the %s has %lld threads, not whole warps", exec_scope_names[es], (long long)x->threads);
	x->warps = x->threads / 32;
	const char *why = NULL;
	Expr *rbase, *sbase;
	Layout *rl = region_layout(x->rg, &rbase, &why);
	Layout *sl = rl ? region_layout(x->sm, &sbase, &why) : NULL;
	if (!sl)
		return why;
	int64_t r0 = 0, s0 = 0;
	if (rbase && !expr_int(rbase, &r0)) {
		/* a slice at a loop variable's place (T.unroll): every thread's
		 * registers move alike, by whole 32-bit words */
		if (!expr_divisible(rbase, 2))
			return xprintf("the register region of '%s' starts at run time at storage element %s, which txc cannot "
			               "prove even (a 32-bit word)", rb->name, expr_str(rbase));
		x->rbase = rbase;
	}
	x->sl = sl;
	if (sbase && !expr_int(sbase, &s0)) {
		/* a run-time start: a multiple of 16 bytes, and of the swizzle's
		 * period, so that it moves every row alike */
		int64_t period = sl->swizzled ? (int64_t)1 << (sl->swz_m + sl->swz_s + sl->swz_b) : 8;
		if (period < 8)
			period = 8;
		if (!expr_divisible(sbase, period))
			return xprintf("the shared region of '%s' starts at %s, which txc cannot prove a multiple of %lld "
			               "elements (16 bytes%s)", sb->name, expr_str(sbase), (long long)period,
			               sl->swizzled ? " and the swizzle's period" : "");
		x->sbase = sbase;
	}
	Layout *plain = layout_copy(sl);
	plain->swizzled = false;
	/* the thread axes the registers use: disjoint digits of the index */
	bool used[AX_COUNT] = { 0 };
	for (int k = 0; k < rl->nshard; k++)
		if (axis_of_thread(rl->shard[k].axis) && rl->shard[k].extent > 1)
			used[rl->shard[k].axis] = true;
	for (int a = 0; a < AX_COUNT; a++)
		used[a] = used[a] || (axis_of_thread(a) && rl->off[a]);
	for (int a = 0; a < AX_COUNT; a++)
		for (int b = a + 1; b < AX_COUNT && used[a]; b++) {
			/* each axis is the digits [div, div * mod) of the thread
			 * index (mod 0: every digit from div up) */
			int64_t da = axis_div(a), ma = axis_mod(a), db = axis_div(b), mb = axis_mod(b);
			bool apart = (ma && da * ma <= db) || (mb && db * mb <= da);
			if (used[b] && !apart)
				return xprintf("the register layout of '%s' uses thread axes %s and %s, which overlap", rb->name,
				               axes[a].name, axes[b].name);
		}
	int64_t n = region_elements(x->rg);
	if (n != region_elements(x->sm) || n <= 0)
		return "the regions differ in size";
	if (n > (1 << 22))
		return xprintf("the region has %lld elements, too many for an ldmatrix fragment", (long long)n);
	int64_t *et = table(n * 3), *em = et + n, *ep = em + n;
	int64_t slots = 0;
	for (int64_t e = 0; e < n; e++) {
		int64_t ro[AX_COUNT], so[AX_COUNT], t = 0;
		if (!layout_apply(rl, e, ro) || !layout_apply(plain, e, so)) {
			free(et);
			return "a layout overflows";
		}
		for (int a = 0; a < AX_COUNT; a++)
			if (used[a])
				t += ro[a] * axis_div(a);
		et[e] = t, em[e] = ro[AX_M] + r0, ep[e] = so[AX_M] + s0;
		if (t < 0 || t >= x->threads || em[e] < 0 || ep[e] < 0) {
			free(et);
			return t < 0 || t >= x->threads ?
			       xprintf("the register layout of '%s' gives an element to thread %lld of a %s of %lld", rb->name,
			               (long long)t, exec_scope_names[es], (long long)x->threads) :
			       "an offset is negative";
		}
		if (em[e] >= slots)
			slots = em[e] + 1;
	}
	/* pre[t * slots + m]: the pre-swizzle shared offset of thread t's
	 * register element m, -1 where it holds none; ldmatrix fragments are
	 * a few dozen registers a thread, so a table past 2^22 entries is no
	 * fragment worth the memory */
	if (slots > 4096 || x->threads * slots > (1 << 22)) {
		free(et);
		return xprintf("a thread's registers of '%s' span %lld elements, too many for an ldmatrix fragment "
		               "(at most 4096)", rb->name, (long long)slots);
	}
	int64_t *pre = table(x->threads * slots);
	for (int64_t i = 0; i < x->threads * slots; i++)
		pre[i] = -1;
	const char *fail = NULL;
	for (int64_t e = 0; e < n && !fail; e++) {
		int64_t *c = &pre[et[e] * slots + em[e]];
		if (*c >= 0)
			fail = xprintf("thread %lld holds register element %lld of '%s' twice", (long long)et[e], (long long)em[e],
			               rb->name);
		*c = ep[e];
	}
	free(et);
	/* the same elements in every thread, in 32-bit words */
	int64_t held = 0;
	for (int64_t m = 0; m < slots && !fail; m++) {
		if (pre[m] < 0)
			continue;
		if (held % 2 == 0 && m % 2)
			fail = xprintf("register element %lld of '%s' starts a 32-bit word at an odd storage offset",
			               (long long)m, rb->name);
		if (held % 2 == 1 && pre[m - 1] < 0)
			fail = xprintf("register elements of '%s' do not pair into 32-bit words", rb->name);
		held++;
	}
	if (!fail && (held % 2 || held * x->threads != n))
		fail = held % 2 ? xprintf("each thread holds %lld elements of '%s', not whole 32-bit words", (long long)held,
		                          rb->name) :
		       xprintf("the %lld threads of the %s do not hold %lld elements of '%s' each", (long long)x->threads,
		               exec_scope_names[es], (long long)held, rb->name);
	for (int64_t t = 1; t < x->threads && !fail; t++)
		for (int64_t m = 0; m < slots && !fail; m++)
			if ((pre[t * slots + m] < 0) != (pre[m] < 0))
				fail = xprintf("threads 0 and %lld hold different register elements of '%s'", (long long)t, rb->name);
	if (fail) {
		free(pre);
		return fail;
	}
	x->words = held / 2;
	x->mword = xalloc(sizeof(int64_t) * (size_t)x->words);
	for (int64_t m = 0, w = 0; m < slots; m++)
		if (pre[m] >= 0 && m % 2 == 0)
			x->mword[w++] = m;
	/* each word a matrix of one form: the row starts, before the swizzle,
	 * row[(wi * words + w) * 8 + r] */
	int64_t nrow = x->warps * x->words * 8;
	int64_t *row = table(nrow);
#define PRE(t, m) pre[(t) * slots + (m)]
/* a run-time start is a multiple of the swizzle's period: it moves
 * every address alike, and the fit is checked at 0 */
#define POST(t, m) layout_swizzle(sl, PRE(t, m))
	const char *whyform[2] = { NULL, NULL };
	for (int form = 0; form < 2; form++) {
		for (int64_t wi = 0; wi < x->warps && !whyform[form]; wi++)
			for (int64_t w = 0; w < x->words && !whyform[form]; w++) {
				int64_t m = x->mword[w], t0 = wi * 32, a[8];
				for (int r = 0; r < 8; r++) {
					int64_t t = form ? t0 + r / 2 : t0 + 4 * r, mm = form ? m + r % 2 : m;
					a[r] = POST(t, mm);
					row[(wi * x->words + w) * 8 + r] = PRE(t, mm);
					if (a[r] % 8)
						whyform[form] = xprintf("row %d of the matrix in word %lld of warp %lld starts at element "
						                        "%lld of '%s', not 16 aligned bytes", r, (long long)w,
						                        (long long)wi, (long long)a[r], sb->name);
				}
				for (int l = 0; l < 32 && !whyform[form]; l++)
					for (int e = 0; e < 2 && !whyform[form]; e++) {
						int64_t want = form ? a[2 * (l % 4) + e] + l / 4 : a[l / 4] + 2 * (l % 4) + e,
						        got = POST(t0 + l, m + e);
						if (got != want)
							whyform[form] = xprintf("lane %d of warp %lld holds element %lld of '%s' in register "
							                        "word %lld (element %lld), where the%s fragment has "
							                        "element %lld", l, (long long)wi, (long long)got, sb->name,
							                        (long long)w, (long long)(m + e), form ? " .trans" : "",
							                        (long long)want);
					}
			}
		if (!whyform[form]) {
			x->trans = form;
			break;
		}
	}
#undef POST
#undef PRE
	free(pre);
	if (whyform[0] && whyform[1]) {
		free(row);
		return xprintf("the registers of '%s' are no m8n8 fragment of the shared tile '%s': %s; .trans: %s", rb->name,
		               sb->name, whyform[0], whyform[1]);
	}
	x->num = x->words % 4 == 0 ? 4 : x->words % 2 == 0 ? 2 : 1;
	x->insts = x->words / x->num;
	/* each instruction's row address as a sum of digits of the thread
	 * index i in the scope: the warp's row of matrix (i % 32 // 8) % num */
	x->inst = xalloc(sizeof(Inst) * (size_t)x->insts);
	int64_t *g = table(x->threads);
	for (int64_t k = 0; k < x->insts && !fail; k++) {
		Inst *in = &x->inst[k];
		in->c = row[(k * x->num) * 8];
		for (int64_t i = 0; i < x->threads; i++) {
			int64_t wi = i / 32, l = i % 32, w = k * x->num + (l / 8) % x->num;
			g[i] = row[(wi * x->words + w) * 8 + l % 8] - in->c;
		}
		if (!decompose(g, x->threads, in))
			fail = xprintf("the row addresses of instruction %lld are no sum of digits of the thread index",
			               (long long)k);
		bool aligned = in->c % 8 == 0;
		for (int d = 0; d < in->nd; d++)
			aligned = aligned && in->d[d].coef % 8 == 0;
		if (!fail && !aligned)
			fail = "the row addresses before the swizzle are not all multiples of 16 bytes";
	}
	free(g);
	free(row);
	return fail;
}

const char *pred_ldstmatrix(const Try *t)
{
	Fit x;
	return fit(&x, t->site, t->dst, t->src, t->call->es);
}

static int lower(Lower *L, OpSite *o, const Variant *va, const Plan *p)
{
	(void)va, (void)p;
	Fit x;
	const char *why = fit(&x, o, o->call->args[0]->val, o->call->args[1]->val, o->call->es);
	if (why)
		return lower_fail(L, o, why);
	Stmt **v = xalloc(sizeof(Stmt *) * (size_t)(x.insts + 1));
	int nv = 0;
	Buffer *root = buffer_root(x.rg->buffer);
	const char *regs = lower_registers(L, o, root, &v[nv]);
	if (v[nv])
		nv++;
	Expr *idx = lower_scope_index(L, o->call->es);
	for (int64_t k = 0; k < x.insts; k++) {
		const Inst *in = &x.inst[k];
		Expr *a = ex_int(in->c);
		if (x.sbase)
			a = ex_add(expr_copy(x.sbase), a);
		for (int d = 0; d < in->nd; d++) {
			const Digit *g = &in->d[d];
			Expr *c = g->div > 1 ? ex_div(idx, g->div) : idx;
			if (g->ext)
				c = ex_mod(c, g->ext);
			a = ex_add(a, ex_mul(c, ex_int(g->coef)));
		}
		Expr *pa[] = { ex_name(x.sm->buffer->name), ex_swizzle(x.sl, a) };
		int n = 0;
		Expr **args = xalloc(sizeof(Expr *) * (size_t)(3 + x.num));
		args[n++] = ex_int(x.num);
		args[n++] = new_expr(x.trans ? E_TRUE : E_FALSE, (Pos){0});
		args[n++] = ex_call("T.pointer_offset", 2, pa);
		for (int64_t j = 0; j < x.num; j++) {
			Expr *m = ex_int(x.mword[k * x.num + j]);
			if (x.rbase)
				m = ex_add(expr_copy(x.rbase), m);
			args[n++] = ex_index(ex_name(regs), 1, &m);
		}
		Stmt *c = new_stmt(S_EXPR, o->stmt->pos);
		c->value = ex_call(x.ld ? "T.ptx.ldmatrix" : "T.ptx.stmatrix", n, args);
		v[nv++] = c;
	}
	op_replace(o, v, nv);
	return 0;
}

const Family family_ldstmatrix = { NULL, NULL, NULL, NULL, NULL, lower };
