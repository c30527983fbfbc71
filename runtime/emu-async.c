/* Asynchronous copies: T.ptx.cp_async with its groups, and the cp.async
 * kind of copy_async (global -> shared, no mbar=), as ptx.md describes
 * them for an emulator.
 *
 * Each thread keeps the copies it issued since its last commit_group (the
 * open list) and a queue of committed groups, oldest first. commit_group
 * closes the open list into a group (an empty group is fine); wait_group N
 * completes the oldest groups until at most N remain pending (copies not
 * committed yet are not waited for). A copy is performed when its group
 * completes, and the source is read then; from issue to completion its
 * destination bytes hold 0xAB (EMU_POISON), so that a read before the wait
 * shows up as wrong data. The results are visible to the issuing thread at
 * once and to the others after a barrier, which lockstep emulation gives
 * with nothing more. Copies never waited for are performed at the end of
 * the CTA, as the GPU completes them before the kernel ends.
 *
 * A cp.async is an item of its thread. A collective copy_async (warp,
 * warpgroup, CTA; a thread-scope one is per thread) is issued once per
 * group of threads and is ONE item that joins the open list of every
 * thread of the group: each thread's next commit_group commits it, and it
 * is performed the first time any of them retires it (later retirements of
 * it do nothing). Items are counted by the queues that hold them.
 *
 * Room for what comes later: a TMA load would be another kind of Async,
 * completed by its mbarrier's complete_tx rather than by a group; the bulk
 * groups of TMA stores a second AsyncQueue per thread; tcgen05 copies
 * items completed by tcgen05.commit or wait::ld / wait::st. */
#include <stdlib.h>
#include <string.h>

#include "emu-impl.h"

enum { A_BYTES, A_TILE };

typedef struct Async {
	int kind;
	int refs;           /* the queues that hold it */
	bool done;
	/* A_BYTES: n bytes to dst: nsrc from src, then zeros */
	uint8_t *dst;
	const uint8_t *src;
	int n, nsrc;
	/* A_TILE: the regions of copy_async s starting at ds and ss, for the
	 * threads first .. first+nthr-1 (tf: the thread errors name) */
	const CStmt *s;
	int first, nthr, tf;
	bool zero;          /* its predicate= was false: zero-filled, the source not read */
	int64_t *ds, *ss;
	int64_t starts[];
} Async;

struct AsyncQueue {
	Async **item;       /* item[head .. n-1]: the committed groups' copies,
	                     * oldest first, then the open list */
	int head, n, cap;
	int *group;         /* group[ghead .. ng-1]: the sizes of the committed
	                     * groups, oldest first */
	int ghead, ng, gcap;
	int committed;      /* the items of item[head ..] in committed groups */
};

static bool no_memory(Emu *E, Pos p, int t)
{
	return emu_fail(E, p, t, "cannot allocate memory to emulate the asynchronous copies");
}

/* Thread t's queue; NULL (reported) when there is no memory. */
static AsyncQueue *queue(Emu *E, Pos p, int t)
{
	if (!E->async && !(E->async = calloc((size_t)E->nthreads, sizeof(AsyncQueue)))) {
		no_memory(E, p, t);
		return NULL;
	}
	return &E->async[t];
}

/* Room for one more entry in v[head .. n-1] (entries of size es): moves
 * them to the front when the retired ones fill half the array, else
 * doubles it. */
static bool room(void **v, int *head, int *n, int *cap, size_t es)
{
	if (*n < *cap)
		return true;
	if (*head > 0 && *head >= *cap / 2) {
		memmove(*v, (char *)*v + (size_t)*head * es, (size_t)(*n - *head) * es);
		*n -= *head;
		*head = 0;
		return true;
	}
	int c = *cap ? 2 * *cap : 16;
	void *w = realloc(*v, (size_t)c * es);
	if (!w)
		return false;
	*v = w;
	*cap = c;
	return true;
}

static bool push(Emu *E, Pos p, int t, Async *a)
{
	AsyncQueue *q = queue(E, p, t);
	if (!q)
		return false;
	void *v = q->item;
	bool ok = room(&v, &q->head, &q->n, &q->cap, sizeof(Async *));
	q->item = v;
	if (!ok)
		return no_memory(E, p, t);
	q->item[q->n++] = a;
	a->refs++;
	return true;
}

static void drop(Async *a)
{
	if (--a->refs == 0)
		free(a);
}

static bool perform(Emu *E, Async *a)
{
	if (a->done)
		return true;
	a->done = true;
	if (a->kind == A_TILE)
		return emu_copy_region(E, a->s, a->first, a->nthr, a->tf, a->ds, a->ss, a->zero ? 0 : -1);
	if (a->nsrc)
		memmove(a->dst, a->src, (size_t)a->nsrc);
	memset(a->dst + a->nsrc, 0, (size_t)(a->n - a->nsrc));
	return true;
}

/* ---- cp.async ------------------------------------------------------------------------ */

/* The constant -1 of an optional operand: none. */
static bool none(const CExpr *x) { return x->kind == X_CONST && !dt_float(x->dtype) && x->k.i == -1; }

bool emu_cp_async(Emu *E, const CStmt *s, int t)
{
	const char *op = "T.ptx.cp_async";
	EVal d, src, v;
	int64_t n, size;
	if (!emu_eval(E, s->a, t, &d) || !emu_eval(E, s->b, t, &src) || !emu_eval_int(E, s->n, t, &n))
		return false;
	/* sema checked the size (4, 8, 16), the cache operator and the L2
	 * prefetch size (a constant: no effect on the data) */
	const CExpr *x = s->opt[CP_POLICY];
	if (x && !emu_eval(E, x, t, &v)) /* an L2 hint: no effect on the data */
		return false;
	size = n;
	if ((x = s->opt[CP_SRC_SIZE]) && !none(x)) {
		if (!emu_eval_int(E, x, t, &size))
			return false;
		if (size < 0 || size > n)
			return emu_fail(E, x->at, t, "%s of %lld bytes: the source size is %lld, not from 0 to %lld (-1: all)", op,
			                (long long)n, (long long)size, (long long)n);
	}
	if ((x = s->opt[CP_PRED]) && !none(x)) {
		if (!emu_eval(E, x, t, &v))
			return false;
		if (!emu_conv(v, x->dtype, DT_BOOL).i)
			size = 0; /* copies nothing and zero-fills */
	}
	if (!d.mem)
		return emu_fail(E, s->a->at, t, "%s: the destination is not an address", op);
	if (!src.mem)
		return emu_fail(E, s->b->at, t, "%s: the source is not an address", op);
	if (d.mem->space != SP_SHARED)
		return emu_fail(E, s->a->at, t, "%s: the destination, byte %lld of %s, is not in shared memory (cp.async copies global -> shared)",
		                op, (long long)d.i, emu_mem_str(d.mem));
	if (src.mem->space != SP_GLOBAL)
		return emu_fail(E, s->b->at, t, "%s: the source, byte %lld of %s, is not in global memory (cp.async copies global -> shared)",
		                op, (long long)src.i, emu_mem_str(src.mem));
	/* the source is checked over the bytes read: none when the predicate
	 * is false, which is what lets a masked copy point anywhere */
	if (!emu_check_ptr(E, s->a->at, t, d, n, n, op, "destination") ||
	    !emu_check_ptr(E, s->b->at, t, src, size, n, op, "source"))
		return false;
	Async *a = calloc(1, sizeof *a);
	if (!a)
		return no_memory(E, s->pos, t);
	a->kind = A_BYTES;
	a->dst = d.mem->data + d.i;
	a->src = size ? src.mem->data + src.i : NULL;
	a->n = (int)n;
	a->nsrc = (int)size;
	memset(a->dst, EMU_POISON, (size_t)n);
	if (!push(E, s->pos, t, a)) {
		free(a);
		return false;
	}
	return true;
}

bool emu_cp_commit(Emu *E, const CStmt *s, int t)
{
	AsyncQueue *q = queue(E, s->pos, t);
	if (!q)
		return false;
	void *v = q->group;
	bool ok = room(&v, &q->ghead, &q->ng, &q->gcap, sizeof(int));
	q->group = v;
	if (!ok)
		return no_memory(E, s->pos, t);
	int open = q->n - q->head - q->committed;
	q->group[q->ng++] = open;
	q->committed += open;
	return true;
}

bool emu_cp_wait(Emu *E, const CStmt *s, int t)
{
	/* N from 0 to 63: sema checked it */
	AsyncQueue *q = queue(E, s->pos, t);
	if (!q)
		return false;
	while (q->ng - q->ghead > s->wait) {
		int k = q->group[q->ghead++];
		for (int i = 0; i < k; i++) {
			Async *a = q->item[q->head++];
			q->committed--;
			bool ok = perform(E, a);
			drop(a);
			if (!ok)
				return false;
		}
	}
	return true;
}

/* ---- copy_async ---------------------------------------------------------------------- */

bool emu_async_tile(Emu *E, const CStmt *s, int first, int n, int tf, const int64_t *ds, const int64_t *ss)
{
	/* TVM's predicate= (with fill_mode="zero"; thread scope only, sema
	 * checked): where it is false the region is zero-filled */
	EVal pv = { 0 };
	const CExpr *pred = s->opt[CP_PRED];
	if (pred && !emu_eval(E, pred, tf, &pv))
		return false;
	bool zero = pred && !emu_conv(pv, pred->dtype, DT_BOOL).i;
	if (!emu_copy_region(E, s, first, n, tf, ds, ss, EMU_POISON))
		return false;
	int nd = s->dst.ndim, ns = s->src.ndim;
	Async *a = calloc(1, sizeof *a + sizeof(int64_t) * (size_t)(nd + ns));
	if (!a)
		return no_memory(E, s->pos, tf);
	a->kind = A_TILE;
	a->zero = zero;
	a->s = s;
	a->first = first;
	a->nthr = n;
	a->tf = tf;
	a->ds = a->starts;
	a->ss = a->starts + nd;
	memcpy(a->ds, ds, sizeof(int64_t) * (size_t)nd);
	memcpy(a->ss, ss, sizeof(int64_t) * (size_t)ns);
	a->refs = 1; /* held here until every thread has it */
	bool ok = true;
	for (int t = first; ok && t < first + n; t++)
		ok = push(E, s->pos, t, a);
	drop(a);
	return ok;
}

/* ---- the end of a CTA ----------------------------------------------------------------- */

bool emu_async_end(Emu *E, bool perform_them)
{
	bool ok = true;
	for (int t = 0; E->async && t < E->nthreads; t++) {
		AsyncQueue *q = &E->async[t];
		for (int i = q->head; i < q->n; i++) {
			if (perform_them && ok)
				ok = perform(E, q->item[i]);
			drop(q->item[i]);
		}
		q->head = q->n = q->ghead = q->ng = q->committed = 0;
	}
	return ok;
}

void emu_async_free(Emu *E)
{
	emu_async_end(E, false);
	for (int t = 0; E->async && t < E->nthreads; t++) {
		free(E->async[t].item);
		free(E->async[t].group);
	}
	free(E->async);
	E->async = NULL;
}
