/* The whole-kernel rules of tensor-memory allocation that a compiler can
 * check (PTX ISA, tcgen05 "Tensor Memory Allocation"; shared/reference/
 * ptx.md): tcgen05.alloc, dealloc and relinquish_alloc_permit are
 * .sync.aligned, so every thread of a warp that runs one runs it together;
 * one warp allocates (and frees) a range, since each warp running an alloc
 * would take a range of its own; and a CTA holds at most 512 columns at a
 * time, where an alloc past them waits forever for a dealloc.
 *
 * Which threads run a statement comes from the conditions around it, each
 * evaluated for every thread of the CTA (int_thread_name: launch ids
 * known, loop variables and grid ids uniform). A statement under a
 * condition of run-time data is not judged here; the emulator checks it
 * when it runs. The columns live at each alloc are counted in program
 * order: an alloc adds its n_cols, a dealloc of a constant n_cols takes
 * them away, the two branches of an if are counted apart and the larger
 * goes on, and a loop's body counts once. */
#include <string.h>

#include "sema.h"

enum { TM_COLUMNS = 512, TM_SITES = 16 };

typedef struct Live {
	int64_t cols;
	int n;              /* allocations still live, the first TM_SITES of them */
	Pos at[TM_SITES];
	int64_t size[TM_SITES];
} Live;

typedef struct Walk {
	Sema *S;
	Func *f;
	Expr **conds;
	bool *negs;
	int n, cap;
	bool *on;           /* per thread: runs the statement */
} Walk;

static const char *op_path(int id) { return intrins[id].path; }

/* Which threads run the statement under the conditions on the stack;
 * false when a condition depends on run-time data. */
static bool running(Walk *w)
{
	for (int64_t t = 0; t < w->f->threads; t++) {
		w->on[t] = true;
		for (int c = 0; c < w->n; c++) {
			int64_t v;
			IntEnv env = { int_thread_name, 20000, &t };
			int k = int_eval(w->conds[c], &env, &v);
			if (k == IV_UNKNOWN)
				return false;
			if (k == IV_KNOWN && (v != 0) == w->negs[c])
				w->on[t] = false;
		}
	}
	return true;
}

static const char *under(const Walk *w)
{
	if (!w->n)
		return "";
	Buf b = { 0 };
	bputs(&b, " (under ");
	for (int c = 0; c < w->n; c++)
		bprintf(&b, "%s%s%s%s", c ? " and " : "", w->negs[c] ? "not (" : "'", expr_str(w->conds[c]),
		        w->negs[c] ? ")" : "'");
	bputs(&b, ")");
	return b.s;
}

static bool constant_cols(const Expr *call, int64_t *n)
{
	Kw *k = call_kw(call, "n_cols");
	const Expr *v = k ? k->value : NULL;
	if (v && v->kind == E_INT)
		return *n = v->ival, true;
	if (v && v->val && v->val->kind == V_INT)
		return *n = v->val->i, true;
	return false;
}

/* The warps that run a warp-collective tcgen05 instruction: whole warps,
 * and one warp for alloc and dealloc. */
static void warps(Walk *w, const Expr *e, int id)
{
	if (!running(w))
		return;
	int64_t nt = w->f->threads, nw = 0, first = -1;
	Buf list = { 0 };
	bputs(&list, "");
	for (int64_t g = 0; g < nt; g += 32) {
		int64_t k = 0, end = g + 32 < nt ? g + 32 : nt;
		for (int64_t t = g; t < end; t++)
			k += w->on[t];
		if (!k)
			continue;
		if (k < 32) {
			error_at(w->S->d, e->pos, "%s is warp-collective (.sync.aligned): all 32 threads of a warp run it "
			         "together, but only %lld of warp %lld's 32 threads run%s it%s", op_path(id), (long long)k,
			         (long long)(g / 32), k == 1 ? "s" : "", under(w));
			return;
		}
		bprintf(&list, "%s%lld", nw ? ", " : "", (long long)(g / 32));
		if (first < 0)
			first = g / 32;
		nw++;
	}
	if (nw > 1 && (id == IN_TC_ALLOC || id == IN_TC_DEALLOC))
		error_at(w->S->d, e->pos, "%s runs in %lld warps (%s)%s: one warp %s, %s; put it under a condition such "
		         "as `if warp_id == %lld:`", op_path(id), (long long)nw, list.s, under(w),
		         id == IN_TC_ALLOC ? "allocates" : "frees an allocation",
		         id == IN_TC_ALLOC ? "and each of these would take a range of its own" : "and the others would free it again",
		         (long long)first);
}

static void walk(Walk *w, Stmt **v, int n, Live *live);

static void push(Walk *w, Expr *c, bool neg)
{
	if (w->n == w->cap) {
		int cap = w->cap ? 2 * w->cap : 8;
		w->conds = xrealloc(w->conds, sizeof(Expr *) * (size_t)w->cap, sizeof(Expr *) * (size_t)cap);
		w->negs = xrealloc(w->negs, sizeof(bool) * (size_t)w->cap, sizeof(bool) * (size_t)cap);
		w->cap = cap;
	}
	w->conds[w->n] = c;
	w->negs[w->n++] = neg;
}

static void alloc_cols(Walk *w, const Expr *e, Live *live)
{
	int64_t n;
	if (!constant_cols(e, &n) || n < 32 || n > TM_COLUMNS)
		return; /* calls.c refused a bad constant */
	if (live->cols + n > TM_COLUMNS) {
		Buf b = { 0 };
		bputs(&b, "");
		for (int i = 0; i < live->n; i++)
			bprintf(&b, "%s%lld at %d:%d", i ? ", " : "", (long long)live->size[i], live->at[i].line, live->at[i].col);
		error_at(w->S->d, e->pos, "tcgen05.alloc of %lld columns while %lld are still allocated (%s): a CTA has %d "
		         "columns of tensor memory, and an alloc past them waits for a dealloc forever", (long long)n,
		         (long long)live->cols, b.s, TM_COLUMNS);
		return;
	}
	live->cols += n;
	if (live->n < TM_SITES) {
		live->at[live->n] = e->pos;
		live->size[live->n++] = n;
	}
}

static void dealloc_cols(const Expr *e, Live *live)
{
	int64_t n;
	if (!constant_cols(e, &n))
		return;
	live->cols = live->cols > n ? live->cols - n : 0;
	for (int i = live->n - 1; i >= 0; i--)
		if (live->size[i] == n) {
			memmove(&live->at[i], &live->at[i + 1], sizeof(Pos) * (size_t)(live->n - i - 1));
			memmove(&live->size[i], &live->size[i + 1], sizeof(int64_t) * (size_t)(live->n - i - 1));
			live->n--;
			break;
		}
}

static void stmt(Walk *w, Stmt *s, Live *live)
{
	switch (s->kind) {
	case S_IF: {
		Live other = *live;
		push(w, s->value, false);
		walk(w, s->body, s->nbody, live);
		w->n--;
		push(w, s->value, true);
		walk(w, s->orelse, s->norelse, &other);
		w->n--;
		if (other.cols > live->cols)
			*live = other;
		return;
	}
	case S_FOR:
		walk(w, s->body, s->nbody, live);
		return;
	case S_WHILE:
		push(w, s->value, false);
		walk(w, s->body, s->nbody, live);
		w->n--;
		return;
	case S_EXPR: {
		Expr *e = s->value;
		if (!e || e->kind != E_CALL)
			return;
		int id = call_builtin(e, NULL, NULL);
		if (id != IN_TC_ALLOC && id != IN_TC_DEALLOC && id != IN_TC_RELINQ && id != IN_TC_LD && id != IN_TC_ST)
			return;
		warps(w, e, id);
		if (id == IN_TC_ALLOC)
			alloc_cols(w, e, live);
		else if (id == IN_TC_DEALLOC)
			dealloc_cols(e, live);
		return;
	}
	default:
		return;
	}
}

static void walk(Walk *w, Stmt **v, int n, Live *live)
{
	for (int i = 0; i < n; i++)
		stmt(w, v[i], live);
}

void check_tmem_allocs(Sema *S, Func *f)
{
	if (f->threads <= 0 || f->threads > 4096)
		return;
	Walk w = { .S = S, .f = f, .on = xalloc((size_t)f->threads) };
	Live live = { 0 };
	walk(&w, f->stmt->body, f->stmt->nbody, &live);
}
