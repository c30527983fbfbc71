/* The toolkit of the families' lowerings (txc-lower, doc/txir.md section
 * 12): the kernel's names, the thread index, addresses from layouts, the
 * loop of accesses, and --verify's enumeration of every access against
 * the layouts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

/* ---- names -------------------------------------------------------------------- */

/* A name shorter than a pointer as one integer, its bytes from the lowest
 * on: equal names, and only they, give equal integers, never 0. A kernel
 * has thousands of short names (r0, c17, S3); an integer is hashed in a
 * step and compared in one, where the Map hashes and compares strings. */
static bool short_key(const char *s, const void **key)
{
	uintptr_t k = 0;
	for (size_t i = 0; i < sizeof k; i++) {
		if (!s[i]) {
			*key = (const void *)k;
			return i > 0;
		}
		k |= (uintptr_t)(unsigned char)s[i] << (8 * i);
	}
	return false;
}

static bool taken(Lower *L, const char *s)
{
	const void *k;
	return short_key(s, &k) ? ptrmap_get(&L->short_names, k) != NULL : map_get(&L->names, s) != NULL;
}

void lower_take(Lower *L, const char *s)
{
	const void *k;
	L->names_gen++;
	if (short_key(s, &k))
		ptrmap_put(&L->short_names, k, (void *)s);
	else
		map_put(&L->names, s, (void *)s);
}

/* A name no statement of the kernel uses; lowered loops are siblings, so
 * the same fresh name serves every op. The answer depends on the base's
 * text and on the names alone, which change only by lower_take
 * (names_gen): an answer for the same text kept since is the same. */
const char *lower_fresh(Lower *L, const char *base)
{
	enum { N = sizeof L->fresh / sizeof L->fresh[0] };
	for (int i = 0; i < N; i++) {
		struct Fresh *m = &L->fresh[i];
		if (m->key == base && m->gen == L->names_gen && strcmp(m->text, base) == 0)
			return m->name;
	}
	const char *s = base;
	for (int k = 1; taken(L, s); k++)
		s = xprintf("%s_%d", base, k);
	L->fresh[L->nfresh++ % N] = (struct Fresh){ base, xstrdup(base), s, L->names_gen };
	return s;
}

/* The name of the thread index: the one bound to T.thread_id, else a
 * T.thread_id statement gets one, else one is declared after
 * T.device_entry(). Done before the walk, which must not see the kernel's
 * top-level statements move. */
static void bind_thread_index(Lower *L)
{
	Stmt *f = L->fstmt;
	int entry = -1;
	for (int i = 0; i < f->nbody; i++) {
		Stmt *s = f->body[i];
		Expr *call = s->value;
		if (s->kind == S_EXPR && call && call->kind == E_CALL && call->intrin == IN_DEVICE_ENTRY)
			entry = i;
		if (!call || call->kind != E_CALL || call->intrin != IN_THREAD_ID)
			continue;
		Expr *t = s->kind == S_ASSIGN && s->ntargets == 1 ? s->targets[0] : NULL;
		if (t && t->kind == E_TUPLE && !t->paren && t->nargs == 1) /* tid, = T.thread_id([n]) */
			t = t->args[0];
		if (t && t->kind == E_NAME) {
			L->tid = t->str;
			return;
		}
		if (s->kind == S_EXPR) {
			s->kind = S_ASSIGN;
			L->tid = lower_fresh(L, "tid");
			vpush(s->targets, s->ntargets, ex_name(L->tid));
			return;
		}
	}
	L->tid = lower_fresh(L, "tid");
	Expr *ext = new_expr(E_LIST, (Pos){0});
	vpush(ext->args, ext->nargs, ex_int(L->func->threads));
	Stmt *s = new_stmt(S_ASSIGN, (Pos){0});
	vpush(s->targets, s->ntargets, ex_name(L->tid));
	s->value = ex_call("T.thread_id", 1, &ext);
	stmt_insert(&f->body, &f->nbody, entry + 1, s);
}


void lower_begin(Lower *L, Stmt *f)
{
	L->func = f->func;
	L->fstmt = f;
	L->names = (Map){ 0 };
	L->short_names = (PtrMap){ 0 };
	L->names_gen++; /* lower_fresh's answers were of the last kernel */
	memset(L->index, 0, sizeof L->index);
	memset(L->callee, 0, sizeof L->callee);
	memset(L->range, 0, sizeof L->range);
	memset(L->size, 0, sizeof L->size);
	/* the names as verify_module listed them (Func's used, sema.c) */
	if (!f->func->used_kept)
		func_list_used(f->func);
	const char *const *used = func_used(f->func);
	for (int i = 0; i < f->func->nused; i++)
		lower_take(L, used[i]);
	for (int i = 0; i < f->nparams; i++) /* a scalar parameter the body does not use */
		lower_take(L, f->params[i].name);
	bind_thread_index(L);
}

Stmt *lower_loop(const char *var, int64_t n, Stmt *body)
{
	Stmt *loop = new_stmt(S_FOR, (Pos){0});
	vpush(loop->targets, loop->ntargets, ex_name(var));
	Expr *e = ex_int(n);
	loop->value = ex_call("range", 1, &e);
	vpush(loop->body, loop->nbody, body);
	return loop;
}

/* ---- shared nodes ------------------------------------------------------------- */

/* The ops of a kernel lower to the same few subtrees again and again: the
 * callees (T.pointer_offset, T.cuda.copy_bytes), the thread index and its
 * digits (tid % 8 * 8, tid // 8 * 64), integers, range(4). One node of
 * each serves every op of the kernel (a copy of a long kernel took 52
 * new nodes, now 21). A node may have several parents when what is
 * written into it later is the same for each:
 * - sema annotates a node (val, var, dtype) from its subtree and from
 *   what its names mean. The thread index's name is bound once, at the
 *   kernel's top level, and a kernel's blocks may not hide a name
 *   (define_hashed): it means one Var wherever a lowered op is; an
 *   integer means itself. A callee's names and attributes get nothing
 *   (eval reads them; the call's own node takes intrin). An integer is
 *   shared only among places sema treats alike: the operands of
 *   runtime arithmetic, whole offsets and loop bounds, which scalar()
 *   annotates (lower_int); an access's size operand, which check_args
 *   evaluates (the size cache). range(n) is annotated by check_args, the
 *   same for every loop (the loop's variable is its target's).
 * - the rewrites in place (`*e = *x` and the like: tvm.c's layouts,
 *   T.meta_var, X.data, allocated_addr, views among a call's operands;
 *   calls.c's address operands; desugar's calls and builtins, range not
 *   one of them; T.grid loops; ptx_rewrite, which gives the call a new
 *   callee) change calls, buffer names and attributes other than these:
 *   none is a name of the thread index, an integer, an operator node, a
 *   callee or range(n) here; lowering and the passes after it build new
 *   nodes over these, never into them.
 * - the backends' memos by node (txc-ptx's sums and divisions) depend on
 *   the tree and its names' ranges alone, the same for every parent.
 * The printers read the tree: the text is the same. */

/* An integer where scalar() will annotate it (above), shared by value: by
 * any kernel, since it means itself in each; a plan's count may be the
 * same node (plan.c), whose value is the one scalar() gives. */
static Expr *lower_int(int64_t v) { return ex_int_shared(v); }

/* The callee of path (ex_call's names and attributes), one per kernel. */
static Expr *callee(Lower *L, const char *path)
{
	enum { N = sizeof L->callee / sizeof L->callee[0] };
	for (int i = 0; i < N; i++) {
		if (!L->callee[i].path) {
			L->callee[i].path = path;
			return L->callee[i].e = ex_call(path, 0, NULL)->a;
		}
		if (L->callee[i].path == path || strcmp(L->callee[i].path, path) == 0)
			return L->callee[i].e;
	}
	return ex_call(path, 0, NULL)->a;
}

/* ex_call(path, n, args) with the kernel's callee node. */
static Expr *call(Lower *L, const char *path, int n, Expr **args)
{
	Expr *c = new_call((Pos){0}, callee(L, path));
	expr_set_args(c, args, n);
	return c;
}

/* The kernel's node of n among two kept in c (the newer second). */
typedef struct Kept Kept;

static Expr **kept(Kept *c, int64_t n)
{
	if (c[0].e && c[0].n == n)
		return &c[0].e;
	if (c[1].e && c[1].n == n)
		return &c[1].e;
	c[0] = c[1];
	c[1] = (Kept){ n, NULL };
	return &c[1].e;
}

/* range(n), the kernel's */
static Expr *range_call(Lower *L, int64_t n)
{
	Expr **e = kept(L->range, n);
	if (!*e) {
		Expr *x = lower_int(n);
		*e = call(L, "range", 1, &x);
	}
	return *e;
}

/* an access's size operand of n bytes, the kernel's */
static Expr *size_int(Lower *L, int64_t n)
{
	Expr **e = kept(L->size, n);
	return *e ? *e : (*e = ex_int(n));
}

/* The digit terms made lately, by what they were made of: x (a node's
 * address, never another node's: the arena frees nothing), inner, the
 * remainder's extent (0: none) and the stride. A term is made from x and
 * the numbers alone, and nothing is written into x or the term after
 * (the list above): a hit is the tree digit() would make again, over the
 * same x, so the term is shared exactly where x is. A term another takes
 * the place of is only made anew. The set is chosen by the address, so
 * a kernel's few terms (two or three per layout) meet in one set in some
 * runs and not in others: with one slot a set, two that met (one run in
 * about fifty) were made anew at every copy, a sixth more arena for the
 * lowering and no node shared for the memos after it. Four ways a set,
 * taken in turn, keep up to four terms that meet. */
enum { DIGIT_SETS = 16, DIGIT_WAYS = 4 };
static struct DigitMemo {
	const Expr *x;
	int64_t inner, mod, stride;
	Expr *e;
} digits[DIGIT_SETS][DIGIT_WAYS];
static unsigned char digit_next[DIGIT_SETS]; /* the way the set's next new term takes */

static Expr *digit_term(Expr *x, int64_t inner, int64_t mod, int64_t stride)
{
	uint64_t h = (uint64_t)(uintptr_t)x >> 4;
	h = (h ^ (uint64_t)inner * 0x9E3779B97F4A7C15u ^ (uint64_t)mod * 0xC2B2AE3D27D4EB4Fu ^ (uint64_t)stride) *
	    0x9E3779B97F4A7C15u;
	unsigned set = (unsigned)(h >> 60);
	struct DigitMemo *m = digits[set];
	for (int w = 0; w < DIGIT_WAYS; w++)
		if (m[w].x == x && m[w].inner == inner && m[w].mod == mod && m[w].stride == stride)
			return m[w].e;
	Expr *c = ex_div(x, inner);
	if (mod)
		c = ex_mod(c, mod);
	c = stride == 1 ? c : ex_mul(c, lower_int(stride));
	m[digit_next[set]] = (struct DigitMemo){ x, inner, mod, stride, c };
	digit_next[set] = (unsigned char)((digit_next[set] + 1) % DIGIT_WAYS);
	return c;
}

/* ---- expressions ------------------------------------------------------------- */

/* The index of the thread within the op's scope (the kernel's node for
 * a scope of g threads). */
Expr *lower_scope_index(Lower *L, int es)
{
	enum { N = sizeof L->index / sizeof L->index[0] };
	int64_t g = scope_threads(L->func, es);
	if (g == 1)
		return ex_int(0);
	for (int i = 0; i < N; i++) {
		if (L->index[i].g == g)
			return L->index[i].e;
		if (!L->index[i].e) {
			Expr *t = ex_name(L->tid);
			L->index[i].g = g;
			return L->index[i].e = g >= L->func->threads ? t : ex_mod(t, g);
		}
	}
	Expr *t = ex_name(L->tid);
	return g >= L->func->threads ? t : ex_mod(t, g);
}

/* The value of thread axis `axis` for the current thread, and how many
 * values it takes. */
Expr *lower_axis_value(Lower *L, int axis, int64_t *count)
{
	Expr *t = ex_name(L->tid);
	int64_t n = L->func->threads, mod = axis_mod(axis), div = axis_div(axis);
	*count = axis_count(axis, n);
	if (mod && n > mod)
		t = ex_mod(t, mod);
	return div > 1 ? ex_div(t, div) : t;
}

/* Iter k's digit of x, (x // inner) % extent * stride (no % for the
 * first of the range, lo), or NULL where it is 0 (an iter of one or of
 * another axis). */
static Expr *digit(const Iter *it, int k, int lo, Expr *x, int64_t inner)
{
	if (it->extent <= 1 || it->axis != AX_M)
		return NULL;
	return digit_term(x, inner, k != lo ? it->extent : 0, it->stride);
}

/* sum over iters [lo, hi) of layout l of (x // inner) % extent * stride on
 * axis m, inner running over the iters after each one in the range. */
Expr *lower_digits(const Layout *l, int lo, int hi, Expr *x)
{
	Expr *sum = NULL; /* 0 + t and t * 1 are t (ex_add, ex_mul): not made */
	int64_t inner = 1;
	for (int k = hi - 1; k >= lo; k--) {
		Expr *t = digit(&l->shard[k], k, lo, x, inner);
		if (t)
			sum = sum ? ex_add(sum, t) : t;
		inner *= l->shard[k].extent;
	}
	return sum ? sum : ex_int(0);
}

/* Why the tree is lower_digits's added to acc: with x neither a constant
 * nor a sum, each digit is a product, quotient or remainder of x, or
 * x, never a sum, and a constant digit is 0; ex_add(acc, s + d), s the
 * digits before d, is ex_add(ex_add(acc, s), d), and adding 0 leaves a
 * sum as it is, so adding the digits in turn makes the same nodes. */
Expr *lower_digits_onto(Expr *acc, const Layout *l, int lo, int hi, Expr *x)
{
	if (x->kind == E_INT || (x->kind == E_BIN && x->op == OP_ADD)) /* digits that may fold otherwise */
		return ex_add(acc, lower_digits(l, lo, hi, x));
	int64_t inner = 1;
	for (int k = hi - 1; k >= lo; k--) {
		Expr *t = digit(&l->shard[k], k, lo, x, inner);
		if (t)
			acc = ex_add(acc, t);
		inner *= l->shard[k].extent;
	}
	return acc;
}

/* (ex_add(base or 0, off), without the 0s it would drop) */
Expr *lower_start(const Layout *l, Expr *base)
{
	int64_t off = l->off[AX_M];
	return !base ? lower_int(off) : off || (base->kind == E_INT && base->ival == 0) ? ex_add(base, lower_int(off)) : base;
}

Expr *lower_address(const Layout *l, Expr *base, Expr *sum)
{
	return ex_swizzle(l, ex_add(lower_start(l, base), sum));
}

const char *lower_registers(Lower *L, OpSite *o, Buffer *root, Stmt **assign)
{
	*assign = NULL;
	if (root->ndim == 1 && !root->layout)
		return root->name;
	/* a laid-out register buffer: the thread's own storage, in order */
	const char *regs = lower_fresh(L, xprintf("%s_regs", root->name));
	lower_take(L, regs);
	Expr *f = new_expr(E_ATTR, o->stmt->pos);
	f->a = ex_name(root->name);
	f->str = "local";
	Stmt *a = new_stmt(S_ASSIGN, o->stmt->pos);
	vpush(a->targets, a->ntargets, ex_name(regs));
	a->value = new_call(o->stmt->pos, f);
	*assign = a;
	return regs;
}

/* s's one target t, in the array vpush would have made for it. */
static void stmt_targets(Stmt *s, Expr *t)
{
	s->targets = xalloc(sizeof(Expr *));
	s->targets[0] = t;
	s->ntargets = 1;
}

static const char *ptr_name(const Buffer *b)
{
	int sc = buffer_root((Buffer *)b)->scope;
	return sc == SC_GLOBAL ? "g_ptr" : sc == SC_LOCAL ? "r_ptr" : "s_ptr";
}

/* e's sums and products computed in 64 bits: their other operands cast
 * to int64 (a name, or a quotient or remainder of small values, which
 * keep their 32-bit ranges). */
static Expr *widen(const Expr *e)
{
	if (e->kind == E_INT)
		return expr_copy(e);
	if (e->kind == E_BIN && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL)) {
		Expr *w = expr_copy(e);
		w->a = widen(e->a);
		w->b = widen(e->b);
		return w;
	}
	Expr *a[] = { expr_copy(e), ex_str("int64") };
	return ex_call("T.cast", 2, a);
}

/* An access at element `addr` of a buffer whose outermost extent is a
 * scalar parameter m (Buffer.dyn) lies inside it when addr < m x (the
 * elements of a row): the condition, or NULL for a buffer of constant
 * shape. The access's vector never crosses the end (txc-vectorize makes
 * the width divide the elements of a row times m's known divisor). */
Expr *lower_inside(const Buffer *b, Expr *addr)
{
	const Buffer *r = buffer_root((Buffer *)b);
	if (!r->dyn)
		return NULL;
	int64_t inner = 1;
	for (int d = 1; d < r->ndim; d++)
		inner *= r->shape[d];
	Expr *c = new_expr(E_CMP, (Pos){0});
	c->op = OP_LT;
	c->a = expr_copy(addr);
	c->b = ex_mul(ex_name(r->dyn->name), ex_int(inner));
	if (r->dyn->dtype != DT_INT32 || r->dyn_bound * inner > INT32_MAX) {
		/* in 64 bits: m x the row's elements, and the address, may pass
		 * 2^31 (the address as the backends compute a pointer offset) */
		Expr *b[] = { ex_name(r->dyn->name), ex_str("int64") };
		c->a = widen(addr);
		c->b = ex_mul(ex_call("T.cast", 2, b), ex_int(inner));
	}
	return c;
}

static Expr *both(Expr *a, Expr *b)
{
	if (!a || !b)
		return a ? a : b;
	Expr *e = new_expr(E_AND, (Pos){0});
	e->a = a;
	e->b = b;
	return e;
}

/* cp.async's source size for a vector of `bytes` at element addr of a
 * buffer of symbolic extent m: the bytes of it before the end, clamped
 * to 0 .. bytes: min(max((m x row - addr) x esize, 0), bytes). */
static Expr *src_size(const Buffer *b, Expr *addr, int64_t esize, int64_t bytes)
{
	const Buffer *r = buffer_root((Buffer *)b);
	int64_t inner = 1;
	for (int d = 1; d < r->ndim; d++)
		inner *= r->shape[d];
	bool wide = r->dyn->dtype != DT_INT32 || r->dyn_bound * inner * esize > INT32_MAX;
	Expr *m = ex_name(r->dyn->name);
	if (wide) {
		Expr *ca[] = { m, ex_str("int64") };
		m = ex_call("T.cast", 2, ca);
	}
	Expr *left = ex_op(OP_SUB, ex_mul(m, ex_int(inner)), wide ? widen(addr) : expr_copy(addr));
	Expr *mx[] = { ex_mul(left, ex_int(esize)), ex_int(0) };
	Expr *mn[] = { ex_call("T.max", 2, mx), ex_int(bytes) };
	Expr *n = ex_call("T.min", 2, mn);
	if (wide) { /* at most `bytes`: back to 32 bits */
		Expr *ca[] = { n, ex_str("int32") };
		n = ex_call("T.cast", 2, ca);
	}
	return n;
}

/* for f in range(outer): dst_ptr = ..., src_ptr = ..., copy_bytes; or the
 * body alone when outer is 1. Accesses to a buffer of symbolic extent
 * are guarded: a load from past its end zero-fills its destination (as
 * cp.async's ignore-src and TMA's out-of-bounds fill), a store there is
 * not made. */
int lower_emit_loop(Lower *L, OpSite *o, const Variant *va, int64_t outer, const char *f, const Buffer *db, Expr *da,
                     const Buffer *sb, Expr *sa, int64_t bytes)
{
	Expr *store_ok = lower_inside(db, da), *load_ok = lower_inside(sb, sa);
	Expr *dp[] = { ex_name(db->name), da }, *sp[] = { ex_name(sb->name), sa };
	Expr *dptr = call(L, "T.pointer_offset", 2, dp), *sptr = call(L, "T.pointer_offset", 2, sp);
	Stmt *body[3];
	int n = 0;
	if (outer > 1) {
		const char *dn = ptr_name(db), *sn = ptr_name(sb);
		if (strcmp(dn, sn) == 0)
			sn = xprintf("%s_src", sn);
		dn = lower_fresh(L, dn), sn = lower_fresh(L, sn);
		Stmt *a = new_stmt(S_ASSIGN, (Pos){0}), *b = new_stmt(S_ASSIGN, (Pos){0});
		stmt_targets(a, ex_name(dn));
		a->value = dptr;
		stmt_targets(b, ex_name(sn));
		b->value = sptr;
		body[n++] = a;
		body[n++] = b;
		dptr = ex_name(dn);
		sptr = ex_name(sn);
	}
	/* TVM's prefetch_size= and predicate= (tvm.def): cp.async's L2
	 * prefetch and predicate operands (false: no read, zero fill) */
	Kw *pf = va->access == IN_CP_ASYNC ? call_kw(o->call, "prefetch_size") : NULL;
	Kw *pred = va->access == IN_CP_ASYNC ? call_kw(o->call, "predicate") : NULL;
	/* TVM's cache="nc" (tvm.def): copy_bytes's ld.global.nc operand */
	Kw *nc = va->access == IN_COPY_BYTES ? call_kw(o->call, "cache") : NULL;
	bool gload = va->access == IN_COPY_BYTES && buffer_root((Buffer *)sb)->scope == SC_GLOBAL;
	Kw *l1 = gload ? call_kw(o->call, "l1_evict") : NULL, *lpf = gload ? call_kw(o->call, "prefetch_size") : NULL;
	/* the operands past the last one given are left out; those before it
	 * that are not given are 0 (qualifiers, prefetch) and -1 (size) */
	Expr *args[] = { dptr, sptr, size_int(L, bytes), NULL, pf ? pf->value : NULL, NULL, pred ? pred->value : NULL };
	if (nc && !l1 && !lpf) {
		args[3] = nc->value;
	} else if (l1 || lpf) { /* "nc.L1::no_allocate.L2::256B": the load's qualifiers in PTX's order */
		Value *p = lpf ? lpf->value->val : NULL;
		const char *pfs = !p ? "" : p->kind == V_STR ? p->s : xprintf("L2::%lldB", (long long)p->i);
		args[3] = ex_str(xprintf("%s%s%s%s%s", nc ? "nc" : "", nc && (l1 || lpf) ? "." : "", l1 ? l1->value->val->s : "",
		                         l1 && lpf ? "." : "", pfs));
	}
	int64_t esize = dtype_bytes(buffer_root((Buffer *)sb)->dtype), grain = buffer_grain(sb);
	if (va->access == IN_CP_ASYNC && load_ok && grain % (bytes / esize)) {
		/* a vector that may cross the end: its source size, the bytes
		 * before the end (0 to all), the rest zero-filled */
		args[5] = src_size(sb, sa, esize, bytes);
		load_ok = NULL;
	} else if (va->access == IN_CP_ASYNC && load_ok) { /* its predicate: false reads nothing, zero-fills */
		args[6] = both(load_ok, args[6] ? expr_copy(args[6]) : NULL);
		load_ok = NULL;
	}
	Stmt *copy = new_stmt(S_EXPR, (Pos){0});
	bool sized = args[5] != NULL; /* a source size (else -1: all) */
	int nargs = args[6] ? 7 : sized ? 6 : pf ? 5 : nc || l1 || lpf ? 4 : 3;
	if (nargs > 3 && !args[3])
		args[3] = ex_int(0);
	if (nargs > 4 && !args[4])
		args[4] = ex_int(0);
	if (nargs > 5 && !args[5])
		args[5] = ex_int(-1);
	copy->value = call(L, intrins[va->access].path, nargs, args);
	for (int side = 0; side < 2; side++) {
		Expr *ok = side ? store_ok : load_ok;
		if (!ok)
			continue;
		Stmt *g = new_stmt(S_IF, (Pos){0});
		g->value = ok;
		vpush(g->body, g->nbody, copy);
		if (!side) { /* a load past the end: the destination's bytes are zeros */
			Stmt *z = new_stmt(S_EXPR, (Pos){0});
			Expr *za[] = { expr_copy(dptr), ex_int(bytes) };
			z->value = ex_call("T.cuda.zero_bytes", 2, za);
			vpush(g->orelse, g->norelse, z);
		}
		copy = g;
	}
	body[n++] = copy;
	body[0]->pos = o->stmt->pos; /* the user's line, for the next pass */
	if (outer == 1) {
		op_replace(o, body, n);
		return 0;
	}
	/* The op's own statement becomes the loop, at its line: op_replace
	 * takes it out of its block, and nothing else holds a statement (the
	 * op's plans are kept by its call, which is left as it is; the
	 * family reads o->stmt's position alone after this), so it is dead
	 * there, and a long kernel's copy takes one statement (192 bytes)
	 * fewer. */
	Stmt *loop = o->stmt;
	Pos pos = loop->pos;
	*loop = (Stmt){ .kind = S_FOR, .pos = pos };
	stmt_targets(loop, ex_name(f));
	loop->value = range_call(L, outer);
	loop->body = xalloc_vec(sizeof(Stmt *), n);
	memcpy(loop->body, body, sizeof(Stmt *) * (size_t)n);
	loop->nbody = n;
	op_replace(o, &loop, 1);
	return 0;
}


int lower_fail(Lower *L, OpSite *o, const char *why)
{
	error_at(L->d, o->call->pos, "cannot lower %s: %s", expr_str(o->call->a), why);
	return -1;
}

static bool lower_vfail(Lower *L, OpSite *o, const char *why)
{
	lower_fail(L, o, why);
	return false;
}

/* ---- --verify: every access of a lowered copy, against the layouts ------------ */

/* Values for the names of an address: the loop variable, the thread index,
 * and launch ids and loop variables of the program at sample values. */
typedef struct Env {
	const char *f, *tid;
	int64_t fval, tidval;
	Var *vars[16];
	int64_t vals[16];
	int nvars;
	bool high;
	int64_t budget;     /* nodes left to visit: definitions can nest exponentially */
} Env;

static void sample_vars(Env *env, const Expr *e)
{
	if (!e || --env->budget < 0)
		return;
	if (e->kind == E_NAME && e->var && e->var->launch != IN_THREAD_ID) {
		Var *v = e->var;
		if (v->def) {
			sample_vars(env, v->def);
		} else {
			for (int i = 0; i < env->nvars; i++)
				if (env->vars[i] == v)
					return;
			if (env->nvars < 16) {
				env->vars[env->nvars] = v;
				env->vals[env->nvars++] = v->hi > v->lo ? (env->high ? v->hi - 1 : v->lo) : 0;
			}
		}
	}
	sample_vars(env, e->a);
	sample_vars(env, e->b);
	sample_vars(env, e->c);
	for (int i = 0; i < e->nargs; i++)
		sample_vars(env, e->args[i]);
}

static int env_name(IntEnv *ie, const Expr *e, int64_t *out)
{
	Env *env = ie->ctx;
	if (env->f && strcmp(e->str, env->f) == 0) {
		*out = env->fval;
		return IV_KNOWN;
	}
	if (strcmp(e->str, env->tid) == 0 || (e->var && e->var->launch == IN_THREAD_ID)) {
		*out = env->tidval;
		return IV_KNOWN;
	}
	if (!e->var)
		return IV_UNKNOWN;
	if (thread_launch(e->var->launch)) {
		*out = launch_value(thread_launch(e->var->launch), env->tidval);
		return IV_KNOWN;
	}
	if (e->var->def)
		return IV_FOLLOW;
	for (int i = 0; i < env->nvars; i++)
		if (env->vars[i] == e->var) {
			*out = env->vals[i];
			return IV_KNOWN;
		}
	return IV_UNKNOWN;
}

/* One address or start, with a fresh budget. */
static bool evaluate(const Expr *e, Env *env, int64_t *out)
{
	IntEnv ie = { env_name, 100000, env };
	return int_eval(e, &ie, out) == IV_KNOWN;
}

typedef struct Access { int64_t thread, a, b; } Access;

/* --verify holds two lists of accesses per copy: at most this many
 * elements, so that it runs in bounded memory (2 x 96 MiB). */
#define VERIFY_MAX ((int64_t)1 << 22)

static int by_access(const void *x, const void *y)
{
	const Access *p = x, *q = y;
	if (p->thread != q->thread)
		return p->thread < q->thread ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* The thread (within the scope) whose values on the thread axes the
 * register layout uses are those of an element. */
static int64_t owner(const Layout *l, const int64_t *coords, int64_t group)
{
	unsigned used = 0;
	for (int i = 0; i < l->nshard; i++)
		used |= 1u << l->shard[i].axis;
	for (int a = 0; a < AX_COUNT; a++)
		if (l->off[a])
			used |= 1u << a;
	return axes_thread(used, coords, 0, group - 1);
}

/* Expected accesses from the layouts, generated ones from the addresses:
 * both sorted, they must be the same list (every element once), and every
 * generated address aligned to the access. */
static bool check_accesses(Lower *L, OpSite *o, const Plan *p, bool reg, const Value *dst, const Value *src,
                           Expr *da, Expr *sa, const char *f, const Expr *guard, Env *env)
{
	int64_t group = scope_threads(L->func, o->call->es);
	int64_t n = region_elements(dst);
	if (n > VERIFY_MAX)
		return lower_vfail(L, o, xprintf("verify: the copy has %lld elements; --verify enumerates at most %lld (%lld MiB "
		                          "of accesses); check a smaller tile of the same kernel", (long long)n,
		                          (long long)VERIFY_MAX, (long long)(2 * VERIFY_MAX * (int64_t)sizeof(Access) >> 20)));
	bool rd = dst->buffer->scope == SC_LOCAL;
	Access *want = xalloc(sizeof(Access) * (size_t)n), *got = xalloc(sizeof(Access) * (size_t)n);
	const Value *side[2] = { dst, src };
	const Layout *lay[2] = { buffer_layout(dst->buffer), buffer_layout(src->buffer) };
	int64_t start[2][LAYOUT_MAX_ITERS];
	for (int s = 0; s < 2; s++)
		for (int d = 0; d < side[s]->ndim; d++)
			if (!evaluate(side[s]->starts[d], env, &start[s][d]))
				return lower_vfail(L, o, "verify: cannot evaluate a region start");
	for (int64_t e = 0; e < n; e++) {
		int64_t off[2], thread = 0;
		for (int s = 0; s < 2; s++) {
			const Value *r = side[s];
			int64_t idx[LAYOUT_MAX_ITERS], x = e;
			for (int d = r->ndim - 1; d >= 0; d--) {
				idx[d] = start[s][d] + x % r->extents[d];
				x /= r->extents[d];
			}
			int64_t c[AX_COUNT];
			if (!layout_apply_coord(lay[s], r->buffer->shape, r->ndim, idx, c))
				return lower_vfail(L, o, "verify: an element has no address");
			off[s] = c[AX_M];
			if (reg && r->buffer->scope == SC_LOCAL && group > 1)
				thread = owner(lay[s], c, group);
		}
		/* register plans: (thread, register, memory); else (0, dst, src) */
		want[e] = reg ? (Access){ thread, off[rd ? 0 : 1], off[rd ? 1 : 0] } : (Access){ 0, off[0], off[1] };
	}
	int64_t k = 0, bad_align = 0;
	int64_t threads = reg ? group : p->threads;
	for (int64_t t = 0; t < threads; t++) {
		env->tidval = group > 1 ? t : env->tidval;
		int64_t runs = 1;
		env->f = NULL;
		if (guard && !evaluate(guard, env, &runs))
			return lower_vfail(L, o, "verify: cannot evaluate which threads take part");
		for (int64_t fi = 0; fi < p->outer && runs; fi++) {
			env->fval = fi;
			int64_t a, b;
			env->f = f;
			if (!evaluate(da, env, &a) || !evaluate(sa, env, &b))
				return lower_vfail(L, o, "verify: cannot evaluate an address");
			if (a % p->vec || b % p->vec)
				bad_align++;
			for (int64_t v = 0; v < p->vec; v++, k++) /* every access counted: none may be extra */
				if (k < n)
					got[k] = reg ? (Access){ t, (rd ? a : b) + v, (rd ? b : a) + v } :
					               (Access){ 0, a + v, b + v };
		}
	}
	int64_t kept = k < n ? k : n;
	qsort(want, (size_t)n, sizeof(Access), by_access);
	qsort(got, (size_t)kept, sizeof(Access), by_access);
	int64_t diff = k == n ? 0 : 1;
	for (int64_t i = 0; i < kept; i++)
		diff += by_access(&want[i], &got[i]) != 0;
	if (diff || bad_align)
		return lower_vfail(L, o, xprintf("verify: %lld of %lld accesses differ from the layouts, %lld misaligned",
		                          (long long)diff, (long long)n, (long long)bad_align));
	L->accesses += n;
	return true;
}

/* Runs the check with the program's names at their lowest and highest
 * values, and for a thread-scope copy for the first and the last thread. */
bool lower_verify(Lower *L, OpSite *o, const Plan *p, bool reg, const Value *dst, const Value *src, Expr *da,
                   Expr *sa, const char *f)
{
	return lower_verify_when(L, o, p, reg, dst, src, da, sa, f, NULL);
}

bool lower_verify_when(Lower *L, OpSite *o, const Plan *p, bool reg, const Value *dst, const Value *src, Expr *da,
                       Expr *sa, const char *f, const Expr *guard)
{
	for (int high = 0; high < 2; high++) {
		Env env = { .tid = L->tid, .high = high, .budget = 100000 };
		for (int s = 0; s < 2; s++) {
			const Value *r = s ? src : dst;
			for (int d = 0; d < r->ndim; d++)
				sample_vars(&env, r->starts[d]);
		}
		sample_vars(&env, p->src_base);
		sample_vars(&env, p->dst_base);
		env.tidval = high ? L->func->threads - 1 : 0;
		if (!check_accesses(L, o, p, reg, dst, src, da, sa, f, guard, &env))
			return false;
	}
	L->verified++;
	return true;
}

