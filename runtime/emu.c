/* The emulator's machine: runs the compiled kernel (emu-compile.c) for
 * every CTA of the grid, one after the other, and within a CTA runs every
 * thread in lockstep with a list of active threads. A statement runs for
 * each active thread in thread order; `if` runs its then-branch for the
 * threads where the condition holds, then its else-branch for the others;
 * a loop runs while any thread has iterations left, each thread its own
 * count; a barrier must be reached by every thread of the CTA (or of the
 * warp) at once. Program-order lockstep is a legal schedule of a race-free
 * program; races in shared memory are detected (emu-race.c), and
 * EmuOptions.schedule runs each statement's threads in another order.
 *
 * Shared memory (one block per CTA, placed by smem_plan) and registers
 * (one block per thread) start filled with 0xAB bytes, so that reading what
 * was never written shows. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "emu-impl.h"

/* ---- errors -------------------------------------------------------------------------- */

/* "3", or "(1, 2)" / "(1, 2, 0)" for a grid of more dimensions. */
static void cta_str(Emu *E, char *out, size_t n)
{
	const int64_t *g = E->f->grid, *c = E->cta;
	if (g[2] > 1)
		snprintf(out, n, "(%lld, %lld, %lld)", (long long)c[0], (long long)c[1], (long long)c[2]);
	else if (g[1] > 1)
		snprintf(out, n, "(%lld, %lld)", (long long)c[0], (long long)c[1]);
	else
		snprintf(out, n, "%lld", (long long)c[0]);
}

bool emu_fail(Emu *E, Pos p, int t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *msg = xalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	va_end(ap);
	char cta[80];
	cta_str(E, cta, sizeof cta);
	if (t >= 0)
		error_at(E->d, p, "thread (cta %s, thread %d): %s", cta, t, msg);
	else
		error_at(E->d, p, "%s", msg);
	return false;
}

const char *emu_idx_str(const int64_t *idx, int n)
{
	Buf b = { 0 };
	bputc(&b, '(');
	for (int i = 0; i < n; i++)
		bprintf(&b, "%s%lld", i ? ", " : "", (long long)idx[i]);
	bputc(&b, ')');
	return b.s;
}

/* ---- memory --------------------------------------------------------------------------- */

Mem *emu_mem(Emu *E, const Acc *a, int t)
{
	switch (a->space) {
	case SP_GLOBAL: return &E->gmem[a->mem];
	case SP_SHARED: return &E->smem[a->mem];
	default: return &E->lmem[(size_t)t * (size_t)E->p->nlocal + (size_t)a->mem];
	}
}

/* buf[i, j] of thread t: the indices, checked against the shape. */
static bool indices(Emu *E, const Acc *a, CExpr **args, int t, int64_t *idx)
{
	const Buffer *b = a->b;
	for (int d = 0; d < b->ndim; d++) {
		if (!emu_eval_int(E, args[d], t, &idx[d]))
			return false;
		if (idx[d] < 0 || idx[d] >= b->shape[d])
			return emu_fail(E, args[d]->at, t, "index %lld is out of bounds for dimension %d of '%s' (extent %lld)",
			                (long long)idx[d], d, b->name, (long long)b->shape[d]);
	}
	return true;
}

/* Replica r of element idx as thread t sees it: 1 and its bytes, 0 when
 * another thread holds it (registers), -1 after an error. */
static int place(Emu *E, const Acc *a, const int64_t *idx, int t, int64_t r, Pos pos, uint8_t **ptr)
{
	int64_t c[AX_COUNT], m;
	if (a->why) {
		emu_fail(E, pos, t, "%s", a->why);
		return -1;
	}
	if (a->linear) {
		emu_offset(a, idx, &m);
	} else {
		if (!emu_coord(a, idx, c)) {
			emu_fail(E, pos, t, "the storage offset of element %s of '%s' overflows", emu_idx_str(idx, a->b->ndim),
			         a->b->name);
			return -1;
		}
		if (r)
			layout_replica(a->l, r, c);
		int owner;
		if (a->taxes && emu_owners(a, c, E->cb, t, 1, E->nthreads, &owner, 1) == 0)
			return 0;
		m = c[AX_M];
	}
	if (m < 0 || m >= a->storage) {
		emu_fail(E, pos, t, "element %s of '%s' is at storage offset %lld, outside the %lld elements of '%s'",
		         emu_idx_str(idx, a->b->ndim), a->b->name, (long long)m, (long long)a->storage, a->root->name);
		return -1;
	}
	*ptr = emu_mem(E, a, t)->data + m * a->esize;
	return 1;
}

/* The first replica of element idx that thread t holds. */
static bool place1(Emu *E, const Acc *a, const int64_t *idx, int t, Pos pos, uint8_t **ptr)
{
	for (int64_t r = 0; r < a->nrep; r++) {
		int k = place(E, a, idx, t, r, pos, ptr);
		if (k)
			return k > 0;
	}
	return emu_fail(E, pos, t, "element %s of '%s' is held in the registers of another thread",
	                emu_idx_str(idx, a->b->ndim), a->b->name);
}

static bool store(Emu *E, const CStmt *s, int t)
{
	const Acc *a = s->acc;
	int64_t idx[EMU_MAX_DIMS];
	EVal v, cur;
	uint8_t *p;
	if (!emu_eval(E, s->value, t, &v) || !indices(E, a, s->idx, t, idx))
		return false;
	v = emu_conv(v, s->value->dtype, a->dtype);
	if (s->op >= 0) {
		if (!place1(E, a, idx, t, s->tpos, &p) || !emu_pend_check(E, p, a->esize, false, s->pos, t))
			return false;
		cur = emu_load(p, a->dtype);
		const char *err = emu_binop(s->op, a->dtype, cur, v, &v);
		if (err)
			return emu_fail(E, s->pos, t, "%s", err);
	}
	int n = 0;
	for (int64_t r = 0; r < a->nrep; r++) {
		int k = place(E, a, idx, t, r, s->tpos, &p);
		if (k < 0)
			return false;
		if (k) {
			if (!emu_pend_check(E, p, a->esize, true, s->pos, t))
				return false;
			emu_store(p, a->dtype, v);
			n++;
		}
	}
	return n || emu_fail(E, s->tpos, t, "element %s of '%s' is held in the registers of another thread",
	                     emu_idx_str(idx, a->b->ndim), a->b->name);
}

/* ---- expressions ----------------------------------------------------------------------- */

bool emu_eval_int(Emu *E, const CExpr *x, int t, int64_t *out)
{
	EVal v;
	if (!emu_eval(E, x, t, &v))
		return false;
	if (dt_float(x->dtype) || dtypes[x->dtype].kind == DK_HANDLE)
		return emu_fail(E, x->pos, t, "expected an integer here");
	*out = v.i;
	return true;
}

static bool eval2(Emu *E, const CExpr *x, int t, int dt, EVal *a, EVal *b)
{
	if (!emu_eval(E, x->args[0], t, a) || !emu_eval(E, x->args[1], t, b))
		return false;
	*a = emu_conv(*a, x->args[0]->dtype, dt);
	*b = emu_conv(*b, x->args[1]->dtype, dt);
	return true;
}

static bool address(Emu *E, const CExpr *x, int t, EVal *o)
{
	const Acc *a = x->acc;
	if (a->why)
		return emu_fail(E, x->pos, t, "%s", a->why);
	o->mem = emu_mem(E, a, t);
	o->i = 0;
	if (x->kind == X_PTR) {
		int64_t k;
		if (!emu_eval_int(E, x->args[0], t, &k))
			return false;
		if (k < -((int64_t)1 << 48) || k > ((int64_t)1 << 48))
			return emu_fail(E, x->args[0]->at, t, "storage element %lld of '%s' is far outside it", (long long)k,
			                a->b->name);
		o->i = k * a->esize;
	} else if (x->nargs) {
		int64_t idx[EMU_MAX_DIMS];
		uint8_t *p;
		if (!indices(E, a, x->args, t, idx) || !place1(E, a, idx, t, x->pos, &p))
			return false;
		o->i = p - o->mem->data;
	}
	return true;
}

bool emu_eval(Emu *E, const CExpr *x, int t, EVal *o)
{
	EVal a, b;
	const char *err;
	switch (x->kind) {
	case X_CONST:
		*o = x->k;
		return true;
	case X_VAR:
		*o = E->slots[(size_t)t * (size_t)E->p->nslots + (size_t)x->slot];
		return true;
	case X_LOAD: {
		int64_t idx[EMU_MAX_DIMS];
		uint8_t *p;
		if (!indices(E, x->acc, x->args, t, idx) || !place1(E, x->acc, idx, t, x->pos, &p) ||
		    !emu_pend_check(E, p, x->acc->esize, false, x->pos, t))
			return false;
		*o = emu_load(p, x->acc->dtype);
		return true;
	}
	case X_ADDR: case X_PTR:
		return address(E, x, t, o);
	case X_BIN:
		if (!eval2(E, x, t, x->dtype, &a, &b))
			return false;
		if ((err = emu_binop(x->op, x->dtype, a, b, o)))
			return emu_fail(E, x->pos, t, "%s", err);
		return true;
	case X_UN:
		if (!emu_eval(E, x->args[0], t, &a))
			return false;
		*o = emu_unop(x->op, x->dtype, emu_conv(a, x->args[0]->dtype, x->dtype));
		return true;
	case X_CMP:
		if (!eval2(E, x, t, x->cdt, &a, &b))
			return false;
		o->i = emu_cmp(x->op, x->cdt, a, b);
		o->mem = NULL;
		return true;
	case X_AND: case X_OR:
		if (!emu_eval(E, x->args[0], t, &a))
			return false;
		if ((a.i != 0) == (x->kind == X_OR)) {
			o->i = a.i != 0;
			o->mem = NULL;
			return true;
		}
		if (!emu_eval(E, x->args[1], t, &b))
			return false;
		o->i = b.i != 0;
		o->mem = NULL;
		return true;
	case X_NOT:
		if (!emu_eval(E, x->args[0], t, &a))
			return false;
		o->i = a.i == 0;
		o->mem = NULL;
		return true;
	case X_COND: {
		if (!emu_eval(E, x->args[0], t, &a))
			return false;
		const CExpr *y = x->args[a.i ? 1 : 2];
		if (!emu_eval(E, y, t, o))
			return false;
		*o = emu_conv(*o, y->dtype, x->dtype);
		return true;
	}
	case X_CAST:
		if (!emu_eval(E, x->args[0], t, &a))
			return false;
		*o = emu_conv(a, x->args[0]->dtype, x->dtype);
		return true;
	case X_MIN: case X_MAX:
		if (!eval2(E, x, t, x->dtype, &a, &b))
			return false;
		*o = emu_minmax(x->kind == X_MAX, x->dtype, a, b);
		return true;
	case X_ELECT: {
		/* the lowest of the threads of t's warp running this statement */
		int w = t / ES_WARP_SIZE, first = -1;
		for (int i = 0; i < E->nact && first < 0; i++)
			if (E->act[i] / ES_WARP_SIZE == w)
				first = E->act[i];
		o->i = first == t;
		o->mem = NULL;
		return true;
	}
	default:
		return emu_fail(E, x->pos, t, "%s", x->msg ? x->msg : "cannot evaluate this expression");
	}
}

/* ---- statements ------------------------------------------------------------------------- */

static bool exec_block(Emu *E, CStmt **v, int n, const int *act, int nact, int depth);

static bool count(Emu *E, int64_t n, Pos p, int t)
{
	int64_t *steps = E->cl ? &E->cl->steps : &E->steps;
	*steps += n;
	if (E->cl)
		E->cl->progress++;
	if (E->fb)
		emu_fiber_progress(E);
	if (*steps > E->max_steps)
		return emu_fail(E, p, t, "stopped after %lld statement executions (the step limit; see --max-steps)",
		                (long long)E->max_steps);
	return true;
}

const char *emu_threads_str(const int *act, int nact)
{
	if (nact == 1)
		return xprintf("thread %d", act[0]);
	if (act[nact - 1] - act[0] == nact - 1)
		return xprintf("threads %d-%d", act[0], act[nact - 1]);
	return xprintf("%d threads", nact);
}

static void trace(Emu *E, const CStmt *s, const int *act, int nact)
{
	char cta[80];
	cta_str(E, cta, sizeof cta);
	fprintf(E->tout, "cta %s, %s: %d: %s\n", cta, emu_threads_str(act, nact), s->pos.line, s->text);
}

static bool less(int dt, int64_t a, int64_t b) { return dt_unsigned64(dt) ? (uint64_t)a < (uint64_t)b : a < b; }

static bool exec_for(Emu *E, const CStmt *s, const int *act, int nact, int depth)
{
	int n = E->nthreads;
	int *list = E->lists + (size_t)depth * 2 * (size_t)n;
	int64_t *cur = E->loopv + (size_t)depth * 2 * (size_t)n, *end = cur + n, step = 1;
	for (int i = 0; i < nact; i++) {
		int t = act[i];
		EVal lo, hi, st;
		if (!emu_eval(E, s->lo, t, &lo) || !emu_eval(E, s->hi, t, &hi) || !emu_eval(E, s->step, t, &st))
			return false;
		cur[t] = emu_conv(lo, s->lo->dtype, s->dtype).i;
		end[t] = emu_conv(hi, s->hi->dtype, s->dtype).i;
		step = emu_conv(st, s->step->dtype, DT_INT64).i;
		if (step <= 0)
			return emu_fail(E, s->step->pos, t, "the loop step must be positive");
	}
	for (;;) {
		int k = 0;
		for (int i = 0; i < nact; i++)
			if (less(s->dtype, cur[act[i]], end[act[i]]))
				list[k++] = act[i];
		if (!k)
			return true;
		if (!count(E, k, s->pos, list[0]))
			return false;
		if (s->slot >= 0)
			for (int i = 0; i < k; i++) {
				EVal *v = &E->slots[(size_t)list[i] * (size_t)E->p->nslots + (size_t)s->slot];
				v->i = emu_wrap(cur[list[i]], s->dtype);
				v->mem = NULL;
			}
		if (!exec_block(E, s->body, s->nbody, list, k, depth + 1))
			return false;
		for (int i = 0; i < k; i++) {
			int t = list[i];
			bool over = dt_unsigned64(s->dtype) ? (uint64_t)cur[t] + (uint64_t)step < (uint64_t)cur[t]
			                                    : __builtin_add_overflow(cur[t], step, &(int64_t){ 0 });
			cur[t] = over ? end[t] : (int64_t)((uint64_t)cur[t] + (uint64_t)step);
		}
	}
}

/* while c: body, each thread until its c is false; the threads still in
 * the loop run each trip together, a thread that leaves never comes back. */
static bool exec_while(Emu *E, const CStmt *s, const int *act, int nact, int depth)
{
	int *list = E->lists + (size_t)depth * 2 * (size_t)E->nthreads, k = nact;
	const int *from = act;
	for (;;) {
		int n = k;
		k = 0;
		for (int i = 0; i < n; i++) {
			EVal c;
			if (!emu_eval(E, s->value, from[i], &c))
				return false;
			if (c.i)
				list[k++] = from[i];
		}
		from = list;
		if (!k)
			return true;
		if (!count(E, k, s->pos, list[0]))
			return false;
		if (!exec_block(E, s->body, s->nbody, list, k, depth + 1))
			return false;
	}
}

int emu_partial_warp(const Emu *E, const int *act, int nact, int *first, int *have, int *need)
{
	for (int i = 0; i < nact;) {
		int W = ES_WARP_SIZE, w = act[i] / W, j = i;
		while (j < nact && act[j] / W == w)
			j++;
		*need = E->nthreads - W * w < W ? E->nthreads - W * w : W;
		if (j - i != *need) {
			*first = act[i];
			*have = j - i;
			return w;
		}
		i = j;
	}
	return -1;
}

static bool warp_sync(Emu *E, const CStmt *s, const int *act, int nact)
{
	int first, have, need, w = emu_partial_warp(E, act, nact, &first, &have, &need);
	if (w >= 0)
		return emu_fail(E, s->pos, first, "warp barrier in divergent code: %d of the %d threads of warp %d reach it",
		                have, need, w);
	for (int i = 0; E->race && i < nact;) { /* each warp's threads are ordered */
		int j = i;
		while (j < nact && act[j] / ES_WARP_SIZE == act[i] / ES_WARP_SIZE)
			j++;
		emu_race_join(E, act + i, j - i);
		i = j;
	}
	return true;
}

/* ---- clusters ------------------------------------------------------------------------ */

/* The CTAs of a cluster are OS threads of which one runs at a time: the
 * one whose rank is cl->turn. A CTA hands on to the next one that has not
 * ended (by rank, round robin) when it reaches a wait that is not done or
 * the cluster barrier, and when it ends. Each CTA that runs in between
 * either does something (cl->progress moves) or finds its own wait still
 * not done and hands on at once; so when the turn comes back to a waiting
 * CTA with cl->progress where it left it, no CTA can ever move again: a
 * deadlock. The schedule depends only on the program, so runs repeat. */
typedef struct Sync {
	pthread_mutex_t mu;
	pthread_cond_t cv;
} Sync;

/* The next CTA after rank me that has not ended gets the turn (none: -1);
 * under the mutex. */
static void hand_on(Cluster *cl, int me)
{
	Sync *y = cl->sync;
	cl->turn = -1;
	for (int k = 1; k <= cl->n; k++) {
		int r = (me + k) % cl->n;
		if (cl->state[r] != CS_DONE) {
			cl->turn = r;
			break;
		}
	}
	pthread_cond_broadcast(&y->cv);
}

static void await_turn(Cluster *cl, int me)
{
	Sync *y = cl->sync;
	while (cl->turn != me)
		pthread_cond_wait(&y->cv, &y->mu);
}

int emu_block(Emu *E, int state, const char *why)
{
	Cluster *cl = E->cl;
	Sync *y = cl->sync;
	pthread_mutex_lock(&y->mu);
	int64_t seen = cl->progress;
	cl->state[E->rank] = state;
	cl->why[E->rank] = why;
	hand_on(cl, E->rank);
	await_turn(cl, E->rank);
	cl->state[E->rank] = CS_RUN;
	int r = cl->failed ? -1 : cl->progress != seen;
	pthread_mutex_unlock(&y->mu);
	return r;
}

Emu *emu_peer(Emu *E, int r)
{
	if (!E->cl)
		return r == 0 ? E : NULL;
	return r >= 0 && r < E->cl->n ? &E->cl->cta[r] : NULL;
}

Emu *emu_owner(Emu *E, const uint8_t *p)
{
	for (int r = 0; E->cl && r < E->cl->n; r++) {
		Emu *P = &E->cl->cta[r];
		if (p >= P->sdata && p < P->sdata + P->p->smem_bytes)
			return P;
	}
	return E;
}

const char *emu_cluster_str(Emu *E)
{
	Cluster *cl = E->cl;
	Buf b = { 0 };
	bputc(&b, 0);
	b.n = 0;
	for (int r = 0; r < cl->n; r++) {
		if (r == E->rank)
			continue;
		if (b.n)
			bputs(&b, "; ");
		if (cl->state[r] == CS_DONE)
			bprintf(&b, "cta rank %d has ended", r);
		else
			bprintf(&b, "cta rank %d: %s", r, cl->why[r] ? cl->why[r] : "runs");
	}
	return b.s;
}

/* T.cuda.cluster_sync(): every thread of the CTA reaches it together, and
 * the CTA waits until every CTA of the cluster has. */
static bool cluster_sync(Emu *E, const CStmt *s, const int *act, int nact)
{
	Cluster *cl = E->cl;
	if (nact != E->nthreads)
		return emu_fail(E, s->pos, act[0], "%s in divergent code: %d of the CTA's %d threads reach it",
		                cl ? "cluster barrier" : "barrier", nact, E->nthreads);
	emu_race_barrier(E);
	if (!cl)
		return true;
	int64_t gen = cl->gen;
	if (++cl->arrived == cl->n) {
		cl->arrived = 0;
		cl->gen++;
		return true;
	}
	const char *why = xprintf("%s wait at the cluster barrier at line %d", emu_threads_str(act, nact), s->pos.line);
	for (;;) {
		int r = emu_block(E, CS_SYNC, why);
		if (r < 0)
			return false;
		if (cl->gen != gen)
			return true;
		if (r == 0)
			return emu_fail(E, s->pos, act[0], "T.cuda.cluster_sync: deadlock: %d of the cluster's %d CTAs reach "
			                "this cluster barrier, and no other can any more (%s)", cl->arrived, cl->n,
			                emu_cluster_str(E));
	}
}

/* T.ptx.mapa(d, a, b): d gets the address of a in CTA b of the cluster, as
 * a shared::cluster address (the emulator's: 2^24 * (b + 1) + a's shared
 * byte). No emulated builtin takes such an address yet. */
static bool mapa(Emu *E, const CStmt *s, int t)
{
	EVal a, d;
	int64_t r;
	if (!emu_eval(E, s->b, t, &a) || !emu_eval_int(E, s->n, t, &r))
		return false;
	if (!a.mem || a.mem->space != SP_SHARED)
		return emu_fail(E, s->b->at, t, "T.ptx.mapa: the address is not in shared memory");
	int n = E->cl ? E->cl->n : 1;
	if (r < 0 || r >= n)
		return emu_fail(E, s->n->at, t, "T.ptx.mapa: CTA rank %lld is not in the cluster of %d CTA%s", (long long)r, n,
		                n == 1 ? "" : "s");
	int dt = s->a->acc ? s->a->acc->dtype : DT_NONE;
	if (!dt)
		return emu_fail(E, s->a->at, t, "T.ptx.mapa: the destination is not a buffer element");
	if (!emu_eval(E, s->a, t, &d) || !emu_check_ptr(E, s->a->at, t, d, dtype_bytes(dt), dtype_bytes(dt), "T.ptx.mapa",
	                                                 "destination"))
		return false;
	emu_store(d.mem->data + d.i, dt, (EVal){ ((r + 1) << 24) + a.mem->base + a.i, NULL });
	return true;
}

static bool exec_stmt1(Emu *E, const CStmt *s, const int *act, int nact, int depth);

/* "n = 300, m = 2": the kernel's scalar parameters as given. */
static const char *emu_scalars_str(const Emu *E)
{
	Buf b = { 0 };
	bputs(&b, "");
	for (int i = 0; i < E->f->nscalars; i++)
		bprintf(&b, "%s%s = %lld", i ? ", " : "", E->f->scalars[i]->name,
		        (long long)(E->scalars ? emu_wrap(E->scalars[i], E->f->scalars[i]->dtype) : 0));
	return b.s;
}

/* A statement for the threads act, which elect.sync sees. */
static bool exec_stmt(Emu *E, const CStmt *s, const int *act, int nact, int depth)
{
	const int *pa = E->act;
	int pn = E->nact;
	E->act = act;
	E->nact = nact;
	bool ok = exec_stmt1(E, s, act, nact, depth);
	E->act = pa;
	E->nact = pn;
	return ok;
}

static bool exec_stmt1(Emu *E, const CStmt *s, const int *act, int nact, int depth)
{
	if (!count(E, nact, s->pos, act[0]))
		return false;
	if (E->trace && s->text)
		trace(E, s, act, nact);
	/* the order the threads run a per-thread statement in (E->sched) */
	int buf[EMU_MAX_THREADS];
	const int *ord = E->sched && s->kind != C_IF && s->kind != C_FOR && s->kind != C_WHILE ? emu_sched(E, act, nact, buf) : act;
	switch (s->kind) {
	case C_NOP:
		return true;
	case C_LET:
		for (int i = 0; i < nact; i++) {
			EVal v;
			if (!emu_eval(E, s->value, ord[i], &v))
				return false;
			if (s->slot >= 0)
				E->slots[(size_t)ord[i] * (size_t)E->p->nslots + (size_t)s->slot] =
					emu_conv(v, s->value->dtype, s->dtype);
		}
		return true;
	case C_STORE:
		for (int i = 0; i < nact; i++)
			if (!store(E, s, ord[i]))
				return false;
		return true;
	case C_IF: {
		int n = E->nthreads, *yes = E->lists + (size_t)depth * 2 * (size_t)n, *no = yes + n, ny = 0, nn = 0;
		for (int i = 0; i < nact; i++) {
			EVal c;
			if (!emu_eval(E, s->value, act[i], &c))
				return false;
			if (c.i)
				yes[ny++] = act[i];
			else
				no[nn++] = act[i];
		}
		if (s->fork && ny && nn && s->norelse && !E->cl)
			return emu_fork_if(E, s, yes, ny, no, nn, depth);
		if (ny && nn && emu_sched_swap(E)) /* another schedule: the else-branch first */
			return exec_block(E, s->orelse, s->norelse, no, nn, depth + 1) &&
			       exec_block(E, s->body, s->nbody, yes, ny, depth + 1);
		return (!ny || exec_block(E, s->body, s->nbody, yes, ny, depth + 1)) &&
		       (!nn || exec_block(E, s->orelse, s->norelse, no, nn, depth + 1));
	}
	case C_FOR:
		return exec_for(E, s, act, nact, depth);
	case C_WHILE:
		return exec_while(E, s, act, nact, depth);
	case C_SYNC:
		if (nact != E->nthreads)
			return emu_fail(E, s->pos, act[0], "barrier in divergent code: %d of the CTA's %d threads reach it", nact,
			                E->nthreads);
		emu_race_barrier(E);
		return true;
	case C_CLUSTER_SYNC:
		return cluster_sync(E, s, act, nact);
	case C_MAPA:
		for (int i = 0; i < nact; i++)
			if (!mapa(E, s, act[i]))
				return false;
		return true;
	case C_BULK_S2C: case C_DSMEM:
		for (int i = 0; i < nact; i++)
			if (!(s->kind == C_BULK_S2C ? emu_bulk_s2c(E, s, act[i]) : emu_dsmem(E, s, act[i])))
				return false;
		return true;
	case C_WARP_SYNC:
		return warp_sync(E, s, act, nact);
	case C_COPY: case C_COPY_ASYNC:
		return emu_copy(E, s, act, nact);
	case C_CP_ASYNC: case C_CP_COMMIT: case C_CP_WAIT: case C_BULK_COMMIT: case C_BULK_WAIT: case C_TMA:
		for (int i = 0; i < nact; i++)
			if (!(s->kind == C_CP_ASYNC ? emu_cp_async(E, s, ord[i]) :
			      s->kind == C_TMA ? emu_tma(E, s, ord[i]) :
			      s->kind == C_CP_COMMIT || s->kind == C_BULK_COMMIT ? emu_cp_commit(E, s, ord[i]) :
			      emu_cp_wait(E, s, ord[i])))
				return false;
		return true;
	case C_COPY_BYTES: case C_ZERO_BYTES: case C_MBAR: case C_VEC_SHARED:
		E->act = act;
		E->nact = nact;
		for (int i = 0; i < nact; i++)
			if (!(s->kind == C_COPY_BYTES ? emu_copy_bytes(E, s, ord[i]) :
			      s->kind == C_ZERO_BYTES ? emu_zero_bytes(E, s, ord[i]) :
			      s->kind == C_MBAR ? emu_mbarrier(E, s, ord[i]) : emu_vec_shared(E, s, ord[i])))
				return false;
		return true;
	case C_NAMED_BAR:
		return emu_named_barrier(E, s, act, nact);
	case C_MATRIX:
		return emu_matrix(E, s, act, nact);
	case C_TMAP:
		return emu_tmap(E, s, act, nact);
	case C_TCGEN05:
		return emu_tcgen05(E, s, act, nact);
	case C_TCCP:
		return emu_tccp(E, s, act, nact);
	case C_TCMMA:
		return emu_tcmma(E, s, act, nact);
	case C_GEMM:
		return emu_gemm(E, s, act, nact);
	case C_ASSUME: {
		/* the same in every thread: the scalar parameters and constants */
		EVal c;
		if (!emu_eval(E, s->value, act[0], &c))
			return false;
		if (!c.i)
			return emu_fail(E, s->pos, -1, "T.assume(%s) does not hold for the values given (%s): the proofs of this "
			                "kernel rest on it", s->msg, emu_scalars_str(E));
		return true;
	}
	case C_FENCE_ASYNC:
		{
			uint32_t q = atomic_fetch_add_explicit(&emu_fence_seq, 1, memory_order_relaxed) + 1;
			for (int i = 0; i < nact; i++)
				E->fences[act[i]] = q;
		}
		return true;
	default:
		return emu_fail(E, s->pos, act[0], "%s", s->msg ? s->msg : "cannot emulate this statement");
	}
}

bool emu_exec_block(Emu *E, CStmt **v, int n, const int *act, int nact, int depth)
{
	return exec_block(E, v, n, act, nact, depth);
}

static bool exec_block(Emu *E, CStmt **v, int n, const int *act, int nact, int depth)
{
	for (int i = 0; i < n; i++)
		if (!exec_stmt(E, v[i], act, nact, depth))
			return false;
	return true;
}

/* ---- the grid ------------------------------------------------------------------------------ */

/* A CTA's memory and launch values before it starts. */
static void start_cta(Emu *E)
{
	Prog *p = E->p;
	int n = E->nthreads;
	memset(E->sdata, 0xAB, (size_t)p->smem_bytes);
	memset(E->minit, 0, (size_t)p->smem_bytes / 8 + 1);
	memset(E->pend, 0, (size_t)p->smem_bytes * sizeof(uint16_t)); /* no copy owns any of it yet */
	memset(E->gw, 0, (size_t)p->smem_bytes * sizeof(uint16_t));   /* nor a generic write */
	memset(E->fences, 0, (size_t)n * sizeof(uint32_t));
	E->npending = 0;
	E->npend = 0;
	memset(E->nacq, 0, (size_t)n * sizeof(int)); /* a CTA's threads start with no map acquired */
	memset(E->ldata, 0xAB, (size_t)n * (size_t)p->local_bytes);
	emu_race_barrier(E); /* a new CTA: nothing of the last one is unordered */
	for (int i = 0; i < p->nlaunch; i++) {
		const LaunchVar *l = &p->launch[i];
		for (int t = 0; t < n; t++) {
			int d = l->dim < 3 ? l->dim : 0;
			const GridId *g = grid_launch(l->launch);
			int64_t v = g ? grid_value(g, E->cta[d], E->f->cluster[d]) : launch_value(thread_launch(l->launch), t);
			E->slots[(size_t)t * (size_t)p->nslots + (size_t)l->slot] = (EVal){ v, NULL };
		}
	}
	for (int i = 0; i < E->f->nscalars; i++)
		for (int t = 0; t < n && p->scalar_slot[i] >= 0; t++)
			E->slots[(size_t)t * (size_t)p->nslots + (size_t)p->scalar_slot[i]] =
				(EVal){ E->scalars ? emu_wrap(E->scalars[i], E->f->scalars[i]->dtype) : 0, NULL };
}

static bool run_cta(Emu *E, const int *all)
{
	Prog *p = E->p;
	int n = E->nthreads;
	if (!count(E, n, E->f->stmt->pos, 0))
		return false;
	bool ok = exec_block(E, p->body, p->nbody, all, n, 0);
	emu_fibers_end(E, ok);
	ok = emu_async_end(E, ok) && ok;
	return emu_tmem_end(E, ok) && ok;
}

typedef struct CtaArg {
	Emu *E;
	const int *all;
} CtaArg;

/* One CTA of a cluster, in its OS thread. */
static void *cta_main(void *arg)
{
	CtaArg *a = arg;
	Emu *E = a->E;
	Cluster *cl = E->cl;
	Sync *y = cl->sync;
	pthread_mutex_lock(&y->mu);
	await_turn(cl, E->rank);
	bool skip = cl->failed;
	pthread_mutex_unlock(&y->mu);
	bool ok = skip || run_cta(E, a->all);
	pthread_mutex_lock(&y->mu);
	if (!ok)
		cl->failed = true;
	cl->state[E->rank] = CS_DONE;
	cl->progress++;
	hand_on(cl, E->rank);
	pthread_mutex_unlock(&y->mu);
	return NULL;
}

/* The CTAs of one cluster, together; false after an error. */
static bool run_cluster(Cluster *cl, const int *all)
{
	Sync *y = cl->sync;
	pthread_t *th = calloc((size_t)cl->n, sizeof(pthread_t));
	CtaArg *args = calloc((size_t)cl->n, sizeof(CtaArg));
	if (!th || !args) {
		free(th);
		free(args);
		return emu_fail(&cl->cta[0], cl->cta[0].f->stmt->pos, -1, "cannot allocate memory to emulate a cluster");
	}
	cl->failed = false;
	cl->arrived = 0;
	cl->turn = 0;
	int started = 0;
	for (int r = 0; r < cl->n; r++) {
		cl->state[r] = CS_RUN;
		cl->why[r] = NULL;
		start_cta(&cl->cta[r]);
	}
	for (int r = 0; r < cl->n; r++) {
		args[r] = (CtaArg){ &cl->cta[r], all };
		if (pthread_create(&th[r], NULL, cta_main, &args[r]) != 0) {
			pthread_mutex_lock(&y->mu);
			cl->failed = true;
			for (int k = r; k < cl->n; k++)
				cl->state[k] = CS_DONE;
			if (cl->turn >= r)
				hand_on(cl, r);
			pthread_mutex_unlock(&y->mu);
			break;
		}
		started++;
	}
	for (int r = 0; r < started; r++)
		pthread_join(th[r], NULL);
	if (started < cl->n) /* reported once no CTA runs */
		emu_fail(&cl->cta[0], cl->cta[0].f->stmt->pos, -1, "cannot start a thread to emulate CTA rank %d of a cluster",
		         started);
	free(th);
	free(args);
	return !cl->failed;
}

static void *alloc(Emu *E, size_t n, bool *ok)
{
	void *p = *ok ? calloc(n ? n : 1, 1) : NULL;
	if (*ok && !p) {
		emu_fail(E, E->f->stmt->pos, -1, "cannot allocate %zu bytes to emulate kernel '%s'", n, E->f->name);
		*ok = false;
	}
	return p;
}

/* A CTA's own memory: registers, shared memory, the executor's lists. */
static bool cta_alloc(Emu *E)
{
	Prog *p = E->p;
	Func *f = E->f;
	size_t n = (size_t)E->nthreads, levels = (size_t)p->depth + 1;
	bool ok = true;
	E->slots = alloc(E, n * (size_t)(p->nslots ? p->nslots : 1) * sizeof(EVal), &ok);
	E->gmem = alloc(E, (size_t)f->nparams * sizeof(Mem), &ok);
	E->smem = alloc(E, (size_t)p->nshared * sizeof(Mem), &ok);
	E->sdata = alloc(E, (size_t)p->smem_bytes, &ok);
	E->minit = alloc(E, (size_t)p->smem_bytes / 8 + 1, &ok);
	E->pend = alloc(E, (size_t)p->smem_bytes * sizeof(uint16_t), &ok);
	E->gw = alloc(E, (size_t)p->smem_bytes * sizeof(uint16_t), &ok);
	E->gep = alloc(E, (size_t)p->smem_bytes * sizeof(uint32_t), &ok);
	E->fences = alloc(E, n * sizeof(uint32_t), &ok);
	E->lmem = alloc(E, n * (size_t)p->nlocal * sizeof(Mem), &ok);
	E->ldata = alloc(E, n * (size_t)p->local_bytes, &ok);
	E->lists = alloc(E, levels * 2 * n * sizeof(int), &ok);
	E->loopv = alloc(E, levels * 2 * n * sizeof(int64_t), &ok);
	E->acq_mem = alloc(E, n * EMU_TMACQ * sizeof(Mem *), &ok);
	E->acq_off = alloc(E, n * EMU_TMACQ * sizeof(int64_t), &ok);
	E->nacq = alloc(E, n * sizeof(int), &ok);
	E->race_tmp = alloc(E, n * sizeof(uint32_t), &ok);
	if (!ok)
		return false;
	if (!emu_race_init(E))
		return emu_fail(E, E->f->stmt->pos, -1, "cannot allocate the race checker's memory to emulate kernel '%s' "
		                "(--no-race-check runs without it)", E->f->name);
	for (int i = 0; i < p->nshared; i++) {
		Buffer *b = p->shared[i];
		E->smem[i] = (Mem){ E->sdata + b->smem_off, buffer_storage(b) * dtype_bytes(b->dtype), b->smem_off, SP_SHARED,
		                    b, -1 };
	}
	for (size_t t = 0; t < n; t++)
		for (int i = 0; i < p->nlocal; i++) {
			Buffer *b = p->local[i];
			E->lmem[t * (size_t)p->nlocal + (size_t)i] =
				(Mem){ E->ldata + t * (size_t)p->local_bytes + (size_t)p->local_off[i],
				       buffer_storage(b) * dtype_bytes(b->dtype), 0, SP_LOCAL, b, (int)t };
		}
	return true;
}

static void cta_free(Emu *E)
{
	emu_async_free(E);
	emu_tmem_free(E);
	emu_race_free(E);
	free(E->race_tmp);
	free(E->slots);
	free(E->gmem);
	free(E->smem);
	free(E->sdata);
	free(E->minit);
	free(E->pend);
	free(E->gw);
	free(E->gep);
	free(E->fences);
	free(E->pends);
	free(E->lmem);
	free(E->ldata);
	free(E->lists);
	free(E->loopv);
	free(E->acq_mem);
	free(E->acq_off);
	free(E->nacq);
}

/* The rank of the CTA at coordinates cb in a cluster of shape k. */
static int rank_of(const int64_t *cb, const int64_t *k) { return (int)(cb[0] + k[0] * (cb[1] + k[1] * cb[2])); }

bool emu_run(Module *m, Func *f, void **params, Diag *d, const EmuOptions *opt)
{
	EmuOptions o = { 0 };
	if (opt)
		o = *opt;
	Emu E = { .m = m, .f = f, .d = d };
	E.nthreads = f->threads > 0 ? (int)f->threads : 1;
	E.max_steps = o.max_steps > 0 ? o.max_steps : 1000000000;
	E.trace = o.trace;
	E.scalars = o.scalars;
	E.unchecked_async = o.unchecked_async;
	E.tmem_out = o.tmem_out;
	E.tmem_taken = o.tmem_taken;
	E.tout = o.trace_out ? o.trace_out : stderr;
	E.race_on = !o.no_race_check;
	E.sched = o.schedule;
	E.rng = o.sched_seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
	E.race_wt = -1;
	E.race_thr = -1;
	E.race_gn = 1;
	Prog *p = E.p = emu_compile(m, f, o.trace);
	if (p->fail)
		return emu_fail(&E, f->stmt->pos, -1, "%s", p->fail);
	const int64_t *k = f->cluster;
	int csize = (int)(k[0] * k[1] * k[2]);
	size_t n = (size_t)E.nthreads;
	bool ok = true;
	int *all = alloc(&E, n * sizeof(int), &ok);
	for (size_t t = 0; ok && t < n; t++)
		all[t] = (int)t;
	/* one Emu per CTA of a cluster, each with its own memory */
	Cluster cl = { .n = csize };
	Sync sync;
	Emu *ctas = &E;
	if (ok && csize > 1) {
		ctas = alloc(&E, (size_t)csize * sizeof(Emu), &ok);
		cl.state = alloc(&E, (size_t)csize * sizeof(int), &ok);
		cl.why = alloc(&E, (size_t)csize * sizeof(char *), &ok);
		if (ok) {
			pthread_mutex_init(&sync.mu, NULL);
			pthread_cond_init(&sync.cv, NULL);
			cl.sync = &sync;
			cl.cta = ctas;
			for (int r = 0; r < csize; r++) {
				ctas[r] = E;
				ctas[r].cl = &cl;
				ctas[r].rank = r;
			}
		}
	}
	int nctas = csize > 1 ? csize : 1, made = 0;
	for (; ok && made < nctas; made++)
		ok = cta_alloc(&ctas[made]);
	if (ok)
		for (int r = 0; r < nctas; r++)
			for (int i = 0; i < f->nparams; i++)
				ctas[r].gmem[i] =
					(Mem){ params[i], emu_param_bytes(f->params[i]), 0, SP_GLOBAL, f->params[i], -1 };
	/* the grid: cluster after cluster, the CTAs of a cluster together */
	for (int64_t z = 0; ok && z < f->grid[2]; z += k[2])
		for (int64_t y = 0; ok && y < f->grid[1]; y += k[1])
			for (int64_t x = 0; ok && x < f->grid[0]; x += k[0]) {
				int64_t org[3] = { x, y, z };
				for (int64_t cz = 0; cz < k[2]; cz++)
					for (int64_t cy = 0; cy < k[1]; cy++)
						for (int64_t cx = 0; cx < k[0]; cx++) {
							int64_t cb[3] = { cx, cy, cz };
							Emu *C = &ctas[csize > 1 ? rank_of(cb, k) : 0];
							for (int dd = 0; dd < 3; dd++) {
								C->cta[dd] = org[dd] + cb[dd];
								C->cb[dd] = cb[dd];
							}
							if (csize == 1) {
								start_cta(C);
								ok = ok && run_cta(C, all);
							}
						}
				if (csize > 1)
					ok = run_cluster(&cl, all);
			}
	for (int r = 0; r < made; r++)
		cta_free(&ctas[r]);
	if (csize > 1 && cl.sync) {
		pthread_mutex_destroy(&sync.mu);
		pthread_cond_destroy(&sync.cv);
	}
	if (ctas != &E)
		free(ctas);
	free(cl.state);
	free(cl.why);
	free(all);
	return ok;
}

const char *emu_scalar_args(const Func *f, char *const *args, int n, int64_t *out)
{
	bool *given = xalloc(sizeof(bool) * (size_t)(f->nscalars + 1));
	for (int k = 0; k < n; k++) {
		const char *a = args[k], *eq = strchr(a, '=');
		if (!eq || eq == a)
			return xprintf("--arg takes NAME=INTEGER, not '%s'", a);
		const char *name = xstrndup(a, (size_t)(eq - a)), *v = eq + 1;
		int i = 0;
		while (i < f->nscalars && strcmp(f->scalars[i]->name, name) != 0)
			i++;
		if (i == f->nscalars) {
			Buf b = { 0 };
			bputs(&b, "");
			for (int j = 0; j < f->nscalars; j++)
				bprintf(&b, "%s%s", j ? ", " : "", f->scalars[j]->name);
			return xprintf("--arg %s: kernel '%s' has no scalar parameter '%s' (its scalar parameters: %s)", name,
			               f->name, name, f->nscalars ? b.s : "none");
		}
		if (given[i])
			return xprintf("--arg %s is given twice", name);
		given[i] = true;
		int dt = f->scalars[i]->dtype, bits = dtypes[dt].bits;
		bool uns = dtypes[dt].kind == DK_UINT;
		char *end;
		errno = 0;
		int64_t x;
		if (uns) {
			uint64_t u = strtoull(v, &end, 0);
			bool ok = *v && *v != '-' && !*end && !errno && (bits == 64 || u >> bits == 0);
			if (!ok)
				return xprintf("--arg %s=%s: not an integer of %s (0 .. 2^%d - 1)", name, v, dtypes[dt].name, bits);
			x = (int64_t)u;
		} else {
			x = strtoll(v, &end, 0);
			int64_t lim = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
			bool ok = *v && !*end && !errno && x <= lim && x >= -lim - 1;
			if (!ok)
				return xprintf("--arg %s=%s: not an integer of %s (-2^%d .. 2^%d - 1)", name, v, dtypes[dt].name,
				               bits - 1, bits - 1);
		}
		out[i] = x;
	}
	for (int i = 0; i < f->nscalars; i++)
		if (!given[i])
			return xprintf("kernel '%s' has the scalar parameter '%s' (%s): give its value with --arg %s=INTEGER",
			               f->name, f->scalars[i]->name, dtypes[f->scalars[i]->dtype].name, f->scalars[i]->name);
	return NULL;
}

typedef struct ScalarEnv { const Func *f; const int64_t *vals; } ScalarEnv;

static int scalar_name(IntEnv *env, const Expr *e, int64_t *out)
{
	const ScalarEnv *se = env->ctx;
	for (int k = 0; e->var && k < se->f->nscalars; k++)
		if (se->f->scalars[k] == e->var) {
			*out = se->vals[k];
			return IV_KNOWN;
		}
	return IV_UNKNOWN;
}

const char *emu_bind_extents(Func *f, const int64_t *scalars)
{
	ScalarEnv se = { f, scalars };
	for (int d = 0; d < 3; d++) {
		if (!f->grid_dyn[d])
			continue;
		IntEnv ie = { scalar_name, 100000, &se };
		int64_t v;
		if (int_eval(f->grid_dyn[d], &ie, &v) != IV_KNOWN)
			return xprintf("the grid extent '%s' cannot be computed from the scalar parameters' values",
			               expr_str(f->grid_dyn[d]));
		if (v < 0 || v > f->grid[d])
			return xprintf("the grid extent '%s' is %lld for the values given; it must be 0 to %lld (its largest "
			               "value under T.assume)", expr_str(f->grid_dyn[d]), (long long)v, (long long)f->grid[d]);
		f->grid[d] = v;
	}
	for (int i = 0; i < f->nparams; i++) {
		Buffer *b = f->params[i];
		if (!b->dyn)
			continue;
		int k = 0;
		while (k < f->nscalars && f->scalars[k] != b->dyn)
			k++;
		if (k == f->nscalars)
			return xprintf("the extent '%s' of '%s' is not a scalar parameter of '%s'", b->dyn->name, b->name, f->name);
		int64_t v = scalars[k];
		if (v < 0 || v > b->dyn_bound)
			return xprintf("%s = %lld: the extent of '%s' must be 0 to %lld (the bound T.assume gives it)",
			               b->dyn->name, (long long)v, b->name, (long long)b->dyn_bound);
		b->shape[0] = v;
	}
	for (int i = 0; i < f->ntmaps; i++) {
		TensorMap *t = f->tmaps[i];
		if (!t->dyn)
			continue;
		t->dims[t->dyn_dim] = t->buf->shape[0] * t->dyn_mult;
		if (!t->dims[t->dyn_dim])
			return xprintf("%s = 0: tensor map '%s' over '%s' needs at least one row (a dimension of a tensor map is "
			               "1 to 2^32 elements)", t->dyn->name, t->name, t->buf->name);
	}
	return NULL;
}

bool emu_sched_parse(const char *s, int *sched, uint64_t *seed)
{
	*seed = 1;
	if (!strcmp(s, "lockstep"))
		*sched = EMU_SCHED_LOCKSTEP;
	else if (!strcmp(s, "reverse"))
		*sched = EMU_SCHED_REVERSE;
	else if (!strcmp(s, "random"))
		*sched = EMU_SCHED_RANDOM;
	else if (!strncmp(s, "random:", 7) && s[7] >= '0' && s[7] <= '9') {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(s + 7, &end, 10);
		if (*end || errno)
			return false;
		*sched = EMU_SCHED_RANDOM;
		*seed = v;
	} else
		return false;
	return true;
}
