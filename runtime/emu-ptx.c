/* The builtins of the PTX dialect that act on shared memory, as the
 * emulator runs them in lockstep: mbarriers, named barriers and the vector
 * shared-memory accesses.
 *
 * An mbarrier lives in the 8 bytes of shared memory the program gives it:
 * bits 0-20 the pending arrivals, 21-41 the expected arrivals, 42-62 the
 * transaction count (signed), bit 63 the phase. A phase completes when
 * its pending arrivals reach 0 with no transaction outstanding; the phase
 * bit flips and the pending arrivals start again from the expected count.
 * Waiting for the phase of parity p is done when the phase bit differs
 * from p. A wait that is not done when a thread reaches it can never be
 * done in lockstep (every thread that could arrive has run up to the same
 * statement, or runs only after the waiting branch): it is an error. In a
 * cluster the other CTAs run on (emu.c) until the wait is done, or until
 * none of them can move: a deadlock, reported then.
 *
 * Whether an mbarrier was initialized is kept beside shared memory
 * (E->minit, set by init and cleared by inval), so that an mbarrier that
 * was never initialized is an error whatever its bytes hold. */
#include <string.h>

#include "emu-impl.h"

#define FIELD ((int64_t)1 << 21)

static uint64_t get(uint64_t w, int k) { return w >> (21 * k) & (FIELD - 1); }
static uint64_t put(uint64_t w, int k, uint64_t v)
{
	return (w & ~((uint64_t)(FIELD - 1) << (21 * k))) | (v & (FIELD - 1)) << (21 * k);
}
static int64_t tx_of(uint64_t w)
{
	int64_t v = (int64_t)get(w, 2);
	return v >= FIELD / 2 ? v - FIELD : v;
}

static const char *name(int id) { return intrins[id].path; }

/* The flag of the mbarrier at bar in the shared memory of its CTA. */
static uint8_t *init_flag(Emu *E, const uint8_t *bar)
{
	Emu *O = emu_owner(E, bar);
	return &O->minit[(bar - O->sdata) / 8];
}

uint8_t *emu_mbar_at(Emu *E, const CExpr *x, int t, const char *op)
{
	EVal v;
	if (!emu_eval(E, x, t, &v) || !emu_check_ptr(E, x->at, t, v, 8, 8, op, "mbarrier"))
		return NULL;
	if (v.mem->space != SP_SHARED) {
		emu_fail(E, x->at, t, "%s: the mbarrier, byte %lld of %s, is not in shared memory", op, (long long)v.i,
		         emu_mem_str(v.mem));
		return NULL;
	}
	return v.mem->data + v.i;
}

/* arrivals (0 or 1) and tx bytes more (expect_tx) or fewer (complete_tx)
 * on the initialized mbarrier word *w; x: the operand errors point at. */
static bool update(Emu *E, const CExpr *x, Pos p, int t, uint64_t *w, int arrivals, int64_t tx, const char *op,
                   bool *flipped)
{
	*flipped = false;
	if (!get(*w, 1))
		return emu_fail(E, x->at, t, "%s: the mbarrier is not initialized", op);
	tx += tx_of(*w);
	if (tx <= -FIELD / 2 || tx >= FIELD / 2)
		return emu_fail(E, p, t, "%s: the transaction count leaves its range (+-%lld): %lld", op,
		                (long long)(FIELD / 2 - 1), (long long)tx);
	if (arrivals && get(*w, 0) == 0)
		return emu_fail(E, x->at, t, "%s: more arrivals than the phase expects", op);
	*w = put(put(*w, 2, (uint64_t)tx), 0, get(*w, 0) - (uint64_t)arrivals);
	if (get(*w, 0) == 0 && tx == 0) {
		*w = put(*w ^ (uint64_t)1 << 63, 0, get(*w, 1));
		*flipped = true;
	}
	return true;
}

bool emu_mbar_complete_tx(Emu *E, const CExpr *x, Pos p, int t, uint8_t *bar, int64_t bytes, const char *op,
                          int *parity, bool *flipped)
{
	uint64_t w;
	memcpy(&w, bar, 8);
	*parity = (int)(w >> 63);
	if (!*init_flag(E, bar))
		return emu_fail(E, x->at, t, "%s: the mbarrier is not initialized", op);
	emu_race_arrive(E, bar, t); /* the copy's writes are ordered before the phase's waiters */
	if (!update(E, x, p, t, &w, 0, -bytes, op, flipped))
		return false;
	memcpy(bar, &w, 8);
	if (*flipped)
		emu_mbar_flipped(E, bar);
	return true;
}

bool emu_mbar_arrive(Emu *E, const CExpr *x, Pos p, int t, uint8_t *bar, const char *op)
{
	uint64_t w;
	bool flipped;
	memcpy(&w, bar, 8);
	if (!*init_flag(E, bar))
		return emu_fail(E, x->at, t, "%s: the mbarrier is not initialized", op);
	emu_race_arrive(E, bar, t);
	if (!update(E, x, p, t, &w, 1, 0, op, &flipped))
		return false;
	memcpy(bar, &w, 8);
	if (flipped)
		emu_mbar_flipped(E, bar);
	return true;
}

static bool done(uint64_t w, int64_t parity) { return (int64_t)(w >> 63) != (parity & 1); }

/* An element a builtin writes: its address x (an X_ADDR of the element). */
static bool write_element(Emu *E, const CExpr *x, int t, int from, EVal val, const char *op)
{
	EVal d;
	int dt = x->acc ? x->acc->dtype : DT_NONE;
	if (!dt)
		return emu_fail(E, x->at, t, "%s: the destination is not a buffer element", op);
	if (!emu_eval(E, x, t, &d) || !emu_check_ptr(E, x->at, t, d, dtype_bytes(dt), dtype_bytes(dt), op, "destination"))
		return false;
	emu_store(d.mem->data + d.i, dt, emu_conv(val, from, dt));
	return true;
}

bool emu_mbarrier(Emu *E, const CStmt *s, int t)
{
	uint8_t *p = emu_mbar_at(E, s->a, t, name(s->op));
	bool flipped = false;
	int64_t n = 0;
	if (!p || (s->n && !emu_eval_int(E, s->n, t, &n)))
		return false;
	uint64_t w;
	memcpy(&w, p, 8);
	if (s->op != IN_MBAR_INIT && !*init_flag(E, p))
		return emu_fail(E, s->a->at, t, "%s: the mbarrier is not initialized", name(s->op));
	switch (s->op) {
	case IN_MBAR_INIT:
		if (n < 1 || n >= FIELD / 2)
			return emu_fail(E, s->n->at, t, "%s: the arrival count is from 1 to %lld, not %lld", name(s->op),
			                (long long)(FIELD / 2 - 1), (long long)n);
		w = put(put(0, 0, (uint64_t)n), 1, (uint64_t)n);
		*init_flag(E, p) = 1;
		emu_race_mbar_init(E, p);
		break;
	case IN_MBAR_INVAL:
		w = 0;
		*init_flag(E, p) = 0;
		break;
	case IN_MBAR_ARRIVE: case IN_MBAR_EXPECT:
		emu_race_arrive(E, p, t);
		if (!update(E, s->a, s->n ? s->n->at : s->pos, t, &w, 1, n, name(s->op), &flipped))
			return false;
		break;
	case IN_MBAR_WAIT:
		/* in a cluster the other CTAs run on until the phase is done; in a
		 * warp-specialized CTA, the branches running beside this one */
		if (!done(w, n) && (E->cl || emu_fibers(E))) {
			EVal v;
			if (!emu_eval(E, s->a, t, &v))
				return false;
			int r = 1;
			while (!done(w, n) && r > 0) {
				const char *state = xprintf("the phase of parity %lld of the mbarrier at byte %lld of %s has %lld of "
				                            "%lld arrivals and %lld transaction bytes pending", (long long)(n & 1),
				                            (long long)v.i, emu_mem_str(v.mem), (long long)get(w, 0),
				                            (long long)get(w, 1), (long long)tx_of(w));
				const char *why = xprintf("%s wait at line %d, where %s", emu_threads_str(E->act, E->nact),
				                          s->pos.line, state);
				if (E->cl && r == 1 && !(r = emu_block(E, CS_WAIT, why)))
					return emu_fail(E, s->pos, t, "%s: deadlock: %s; %s of cta rank %d wait for it, and no CTA of "
					                "the cluster can arrive any more (%s)", name(s->op), state,
					                emu_threads_str(E->act, E->nact), E->rank, emu_cluster_str(E));
				if (!E->cl && !(r = emu_fiber_block(E, why)))
					return emu_fail(E, s->pos, t, "%s: deadlock: %s; %s wait for it, and no other thread of the CTA "
					                "can arrive any more (%s)", name(s->op), state, emu_threads_str(E->act, E->nact),
					                emu_fibers_str(E));
				if (r < 0)
					return false;
				memcpy(&w, p, 8);
			}
		}
		if (!done(w, n)) {
			EVal v;
			if (!emu_eval(E, s->a, t, &v))
				return false;
			return emu_fail(E, s->pos, t, "%s: the phase of parity %lld of the mbarrier at byte %lld of %s has %lld "
			                "of %lld arrivals and %lld transaction bytes pending, and in lockstep no other thread can "
			                "arrive before this wait is run", name(s->op), (long long)(n & 1), (long long)v.i,
			                emu_mem_str(v.mem), (long long)get(w, 0), (long long)get(w, 1), (long long)tx_of(w));
		}
		emu_race_wait(E, p, (int)(n & 1), t);
		return emu_mbar_waited(E, p, (int)(n & 1));
	case IN_MBAR_TRY_PARITY:
		/* in a cluster a try that fails lets the other CTAs run once (a
		 * bounded wait: the program loops on the result) */
		if (!done(w, n) && E->cl) {
			if (emu_block(E, CS_WAIT, xprintf("%s try the mbarrier at line %d", emu_threads_str(E->act, E->nact),
			                                  s->pos.line)) < 0)
				return false;
			E->cl->progress++; /* not blocked: the others must not take the try for a deadlock */
			memcpy(&w, p, 8);
		}
		if (!done(w, n) && !E->cl && emu_fibers(E)) {
			if (emu_fiber_block(E, xprintf("%s try the mbarrier at line %d", emu_threads_str(E->act, E->nact),
			                               s->pos.line)) < 0)
				return false;
			emu_fiber_progress(E); /* not blocked: the others must not take the try for a deadlock */
			memcpy(&w, p, 8);
		}
		/* a TMA load's data arrives with the first wait that sees its phase done */
		if (done(w, n))
			emu_race_wait(E, p, (int)(n & 1), t);
		if (done(w, n) && !emu_mbar_waited(E, p, (int)(n & 1)))
			return false;
		return write_element(E, s->b, t, DT_INT32, (EVal){ done(w, n), NULL }, name(s->op));
	default:
		die("emu_mbarrier: builtin %d", s->op);
	}
	memcpy(p, &w, 8);
	if (flipped)
		emu_mbar_flipped(E, p);
	return true;
}

int64_t emu_cta_mask(Emu *E, const CExpr *x, int t, const char *op)
{
	int64_t mask;
	if (!emu_eval_int(E, x, t, &mask))
		return -1;
	int n = E->cl ? E->cl->n : 1;
	if (mask <= 0 || mask > 0xFFFF) {
		emu_fail(E, x->at, t, "%s: the CTA mask is a 16-bit mask of CTA ranks, not 0x%llx", op, (long long)mask);
		return -1;
	}
	for (int r = 0; r < 16; r++) {
		if (!(mask >> r & 1))
			continue;
		if (r >= n) {
			emu_fail(E, x->at, t, "%s: the CTA mask 0x%llx names cta rank %d, but the cluster has %d CTA%s", op,
			         (long long)mask, r, n, n == 1 ? "" : "s");
			return -1;
		}
		if (E->cl && E->cl->state[r] == CS_DONE) {
			emu_fail(E, x->at, t, "%s: the CTA mask 0x%llx names cta rank %d, which has ended", op, (long long)mask, r);
			return -1;
		}
	}
	return mask;
}

/* barrier.sync a{, b}: in lockstep, a barrier that the threads running it
 * reach together, as many as it counts. */
bool emu_named_barrier(Emu *E, const CStmt *s, const int *act, int nact)
{
	int64_t id, count = E->nthreads;
	if (!emu_eval_int(E, s->a, act[0], &id) || (s->n && !emu_eval_int(E, s->n, act[0], &count)))
		return false;
	if (id < 0 || id > 15)
		return emu_fail(E, s->a->at, act[0], "%s: the barrier is 0 to 15, not %lld", name(s->op), (long long)id);
	if (count != nact)
		return emu_fail(E, s->pos, act[0], "%s: barrier %lld counts %lld threads, but %d reach it together; the "
		                "emulator runs a named barrier only as a barrier of the threads that reach it", name(s->op),
		                (long long)id, (long long)count, nact);
	emu_race_join(E, act, nact); /* orders exactly the threads that took part */
	return true;
}

/* st.shared.v4.f32 / ld.shared.v4.f32: 16 aligned bytes of shared memory. */
bool emu_vec_shared(Emu *E, const CStmt *s, int t)
{
	const char *op = name(s->op);
	EVal a;
	if (!emu_eval(E, s->a, t, &a) || !emu_check_ptr(E, s->a->at, t, a, 16, 16, op, "address"))
		return false;
	if (a.mem->space != SP_SHARED)
		return emu_fail(E, s->a->at, t, "%s: the address, byte %lld of %s, is not in shared memory", op,
		                (long long)a.i, emu_mem_str(a.mem));
	uint8_t *p = a.mem->data + a.i;
	if (!emu_pend_check(E, p, 16, s->op == IN_ST_SHARED_V4, s->pos, t))
		return false;
	EVal v[4];
	for (int k = 0; k < 4; k++) {
		if (s->op == IN_LD_SHARED_V4)
			v[k] = emu_load(p + 4 * k, DT_FLOAT32);
		else if (!emu_eval(E, s->idx[k], t, &v[k]))
			return false;
	}
	for (int k = 0; k < 4; k++) {
		if (s->op == IN_ST_SHARED_V4)
			emu_store(p + 4 * k, DT_FLOAT32, emu_conv(v[k], s->idx[k]->dtype, DT_FLOAT32));
		else if (!write_element(E, s->idx[k], t, DT_FLOAT32, v[k], op))
			return false;
	}
	return true;
}

/* ldmatrix / stmatrix .m8n8 .b16, warp by warp of act, each warp whole
 * (the instructions are .sync.aligned). Row r of matrix q is the 16 bytes
 * at the address lane 8q + r gives (the other lanes' addresses are not
 * read); register q of lane l holds the two 16-bit elements (row l / 4,
 * column 2 (l % 4) + h) of matrix q, or with .trans (row 2 (l % 4) + h,
 * column l / 4), h = 0 in the low half. A row is read (written) by the
 * lane that gave its address, for the race checker. */
bool emu_matrix(Emu *E, const CStmt *s, const int *act, int nact)
{
	const char *op = name(s->op);
	bool ld = s->op == IN_LDMATRIX;
	int first, have, need;
	int w = emu_partial_warp(E, act, nact, &first, &have, &need);
	if (w >= 0)
		return emu_fail(E, s->pos, first, "%s is warp-collective (.sync.aligned): all %d threads of warp %d run it "
		                "together, but only %d do", op, need, w, have);
	for (int i = 0; i < nact; i += ES_WARP_SIZE) {
		const int *lane = act + i;
		if (nact - i < ES_WARP_SIZE)
			return emu_fail(E, s->pos, lane[0], "%s needs a warp of 32 threads; warp %d of this CTA has %d", op,
			                lane[0] / ES_WARP_SIZE, nact - i);
		uint8_t *row[32];
		uint32_t val[32][4] = { { 0 } };
		for (int l = 0; l < 8 * s->tc_num; l++) {
			int t = lane[l];
			EVal a;
			if (!emu_eval(E, s->a, t, &a) || !emu_check_ptr(E, s->a->at, t, a, 16, 16, op, "row address"))
				return false;
			if (a.mem->space != SP_SHARED)
				return emu_fail(E, s->a->at, t, "%s: the row address, byte %lld of %s, is not in shared memory", op,
				                (long long)a.i, emu_mem_str(a.mem));
			row[l] = a.mem->data + a.i;
			if (!emu_pend_check(E, row[l], 16, !ld, s->pos, t))
				return false;
		}
		for (int l = 0; !ld && l < ES_WARP_SIZE; l++)
			for (int q = 0; q < s->tc_num; q++) {
				EVal v;
				const CExpr *x = s->idx[q];
				if (!emu_eval(E, x, lane[l], &v))
					return false;
				if (x->kind == X_ADDR) {
					if (!emu_check_ptr(E, x->at, lane[l], v, 4, 4, op, "register") ||
					    !emu_pend_check(E, v.mem->data + v.i, 4, false, s->pos, lane[l]))
						return false;
					val[l][q] = (uint32_t)emu_load(v.mem->data + v.i, DT_UINT32).i;
				} else {
					val[l][q] = (uint32_t)emu_conv(v, x->dtype, dt_float(x->dtype) ? DT_FLOAT32 : DT_UINT32).i;
				}
			}
		for (int l = 0; l < ES_WARP_SIZE; l++)
			for (int q = 0; q < s->tc_num; q++)
				for (int h = 0; h < 2; h++) {
					int r = s->trans ? 2 * (l % 4) + h : l / 4, c = s->trans ? l / 4 : 2 * (l % 4) + h;
					uint8_t *p = row[8 * q + r] + 2 * c;
					if (ld)
						val[l][q] |= (uint32_t)emu_load(p, DT_UINT16).i << (16 * h);
					else
						emu_store(p, DT_UINT16, (EVal){ (int64_t)((val[l][q] >> (16 * h)) & 0xFFFF), NULL });
				}
		for (int l = 0; ld && l < ES_WARP_SIZE; l++)
			for (int q = 0; q < s->tc_num; q++) {
				EVal d;
				if (!emu_eval(E, s->idx[q], lane[l], &d) ||
				    !emu_check_ptr(E, s->idx[q]->at, lane[l], d, 4, 4, op, "register") ||
				    !emu_pend_check(E, d.mem->data + d.i, 4, true, s->pos, lane[l]))
					return false;
				emu_store(d.mem->data + d.i, DT_UINT32, (EVal){ (int64_t)val[l][q], NULL });
			}
	}
	return true;
}
