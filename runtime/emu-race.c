/* Races in shared memory (and tensor memory): two threads of a CTA touch
 * the same byte (cell), at least one of them writes it, and nothing orders
 * the two accesses.
 *
 * Lockstep emulation runs a racy program in one legal order and may give
 * the right answer where the GPU does not (a copy into shared memory read
 * by other warps without cta_sync). So every access of a CTA's own shared
 * memory (every one that emu_pend_check sees) is checked against a
 * happens-before relation built from the program's ordering events, with
 * vector clocks:
 *
 * - each thread t has a clock c[t][t] and knows c[t][u] of every other
 *   thread u: the last clock of u that is ordered before t's present.
 *   An access of t is stamped (t, c[t][t]); an earlier access (u, k) is
 *   ordered before t's present when k <= c[t][u] (or u == t).
 * - a barrier of some threads (bar.sync id, n; __syncwarp of a warp) joins
 *   their clocks (the element-wise maximum) and then advances each one's
 *   own: every access of each before it is ordered before every access of
 *   each after it. cta_sync and cluster_sync, every thread of the CTA, do
 *   the same by starting a new generation (below), in O(1).
 * - an mbarrier keeps, beside its 8 bytes, the join of the clocks of the
 *   threads that arrived in the phase in progress (arrive, arrive.expect_tx,
 *   a complete_tx, tcgen05.commit's arrive), each arriving thread then
 *   advancing its own; when the phase completes that join becomes the
 *   phase's, and a thread whose wait sees the phase complete joins it.
 * - asynchronous writes: a cp.async copy lands when its thread's
 *   wait_group retires it, stamped with that thread's present (so ordered
 *   for it, and for the others only after a barrier); a copy completing on
 *   an mbarrier (TMA, copy_async mbar=) lands stamped with its issuing
 *   thread's clock as its complete_tx joined it into the phase: ordered
 *   for every thread that waited on that phase, for no other.
 *
 * - tcgen05.alloc, warp-collective and .sync.aligned, orders the warp's
 *   lanes among themselves (they read the address it wrote).
 *
 * Nothing else orders: not the lockstep of a warp's lanes running one
 * statement (two lanes writing one word, or a lane reading what another
 * wrote, without __syncwarp, race on the GPU), not fences, not elect.
 *
 * Per byte of the CTA's shared memory (Cell): the last write (thread,
 * clock, line) and the reads since it, up to RK distinct threads (a byte
 * read by more keeps the last RK readers: a write racing with an earlier,
 * fifth reader can be missed, never invented). A cell belongs to a
 * generation: cta_sync starts a new one, and a cell of an older one is
 * empty (everything in it is ordered before everything after the
 * barrier), so the barrier clears nothing. Memory: sizeof(Cell) per byte
 * of shared memory (68: 15 MiB for 228 KiB) and nthreads^2 clocks
 * (4 MiB for 1024 threads), per CTA of a cluster.
 *
 * Not checked: accesses of another CTA's shared memory (distributed shared
 * memory; a multicast copy into this CTA lands unstamped), the async
 * proxy's reads of shared memory except those emu_pend_check sees
 * (tcgen05.mma / tcgen05.cp operands are stamped as reads of the issuing
 * thread).
 *
 * Tensor memory: the same per 32-bit cell (lane * 512 + column), made at
 * the first access: a warp-collective tcgen05.ld / st (and the tile op) is
 * the warp's, stamped with its first thread; an MMA or tcgen05.cp, its
 * issuing thread's at the issue (ordered for a reader through the mbarrier
 * that tcgen05.commit arrives on). */
#include <stdlib.h>
#include <string.h>

#include "emu-impl.h"

#define RK 4

typedef struct Cell {
	uint32_t gen;        /* the generation the rest belongs to */
	uint32_t wclk;       /* the last write: its clock, */
	int32_t wline;       /* its line, */
	uint16_t wt;         /* 1 + its thread (0: none since the generation began) */
	uint16_t wn;         /* its threads: a collective copy's wt-1 .. wt-1+wn-1 */
	uint8_t nr, rnext;   /* reads kept, and the next to replace when full */
	uint16_t rt[RK], rn[RK]; /* the reads: thread (and threads), clock, line */
	uint32_t rclk[RK];
	int32_t rline[RK];
} Cell;

/* The clocks of an mbarrier (per 8 bytes of shared memory, made at its
 * first arrival): the phase in progress, and the last completed phase of
 * each parity. */
typedef struct MbarClk {
	uint32_t *acc, *done[2];
} MbarClk;

struct Race {
	int n;               /* threads */
	uint32_t *vc;        /* n x n: vc[t * n + u] */
	Cell *cell;          /* per byte of shared memory */
	Cell *tcell;         /* per 32-bit cell of tensor memory (lane * 512 + column), made at its first access */
	int64_t bytes;
	uint32_t gen;
	MbarClk **mb;        /* per 8 bytes of shared memory, or NULL */
};

static uint32_t *vc(Race *R, int t) { return R->vc + (size_t)t * (size_t)R->n; }

bool emu_race_init(Emu *E)
{
	if (E->race || !E->race_on)
		return true;
	Race *R = calloc(1, sizeof *R);
	if (!R)
		return false;
	E->race = R;
	R->n = E->nthreads;
	R->bytes = E->p->smem_bytes;
	R->vc = calloc((size_t)R->n * (size_t)R->n, sizeof(uint32_t));
	R->cell = calloc((size_t)(R->bytes ? R->bytes : 1), sizeof(Cell));
	R->mb = calloc((size_t)(R->bytes / 8 + 1), sizeof(MbarClk *));
	if (!R->vc || !R->cell || !R->mb)
		return false;
	/* own clocks start at 1: a clock of 0 is ordered before everything */
	for (int t = 0; t < R->n; t++)
		vc(R, t)[t] = 1;
	R->gen = 1;
	return true;
}

void emu_race_free(Emu *E)
{
	Race *R = E->race;
	if (!R)
		return;
	for (int64_t i = 0; R->mb && i < R->bytes / 8 + 1; i++)
		if (R->mb[i]) {
			free(R->mb[i]->acc);
			free(R->mb[i]);
		}
	free(R->mb);
	free(R->vc);
	free(R->cell);
	free(R->tcell);
	free(R);
	E->race = NULL;
}

void emu_race_barrier(Emu *E)
{
	if (E->race)
		E->race->gen++;
}

void emu_race_join(Emu *E, const int *thr, int n)
{
	Race *R = E->race;
	if (!R || n < 2)
		return;
	uint32_t *m = E->race_tmp;
	memcpy(m, vc(R, thr[0]), (size_t)R->n * sizeof(uint32_t));
	for (int i = 1; i < n; i++) {
		const uint32_t *v = vc(R, thr[i]);
		for (int u = 0; u < R->n; u++)
			if (v[u] > m[u])
				m[u] = v[u];
	}
	for (int i = 0; i < n; i++) {
		uint32_t *v = vc(R, thr[i]);
		memcpy(v, m, (size_t)R->n * sizeof(uint32_t));
		v[thr[i]]++;
	}
}

uint32_t emu_race_clock(Emu *E, int t) { return E->race ? vc(E->race, t)[t] : 0; }

/* The clocks of the mbarrier at bar, one of this CTA's (NULL: not tracked). */
static MbarClk *mbar(Emu *E, const uint8_t *bar, bool make)
{
	Race *R = E->race;
	if (!R || !E->sdata || bar < E->sdata || bar >= E->sdata + R->bytes)
		return NULL;
	MbarClk **m = &R->mb[(bar - E->sdata) / 8];
	if (!*m && make) {
		MbarClk *c = calloc(1, sizeof *c);
		uint32_t *v = c ? calloc(3 * (size_t)R->n, sizeof(uint32_t)) : NULL;
		if (!v) {
			free(c);
			return NULL; /* not tracked: fewer orderings, so a race may be reported that is not one */
		}
		c->acc = v;
		c->done[0] = v + R->n;
		c->done[1] = v + 2 * R->n;
		*m = c;
	}
	return *m;
}

void emu_race_mbar_init(Emu *E, const uint8_t *bar)
{
	MbarClk *c = mbar(E, bar, false);
	if (c)
		memset(c->acc, 0, 3 * (size_t)E->race->n * sizeof(uint32_t));
}

void emu_race_arrive(Emu *E, const uint8_t *bar, int t)
{
	MbarClk *c = mbar(E, bar, true);
	if (!c)
		return;
	Race *R = E->race;
	uint32_t *v = vc(R, t);
	for (int u = 0; u < R->n; u++)
		if (v[u] > c->acc[u])
			c->acc[u] = v[u];
	v[t]++;
}

void emu_race_flip(Emu *E, const uint8_t *bar)
{
	MbarClk *c = mbar(E, bar, false);
	if (!c)
		return;
	uint64_t w;
	memcpy(&w, bar, 8);
	int done = (int)(w >> 63) ^ 1; /* the parity of the phase that completed */
	uint32_t *d = c->done[done];
	memcpy(d, c->acc, (size_t)E->race->n * sizeof(uint32_t));
	memset(c->acc, 0, (size_t)E->race->n * sizeof(uint32_t));
}

void emu_race_wait(Emu *E, const uint8_t *bar, int parity, int t)
{
	MbarClk *c = mbar(E, bar, false);
	if (!c)
		return;
	Race *R = E->race;
	uint32_t *v = vc(R, t);
	const uint32_t *d = c->done[parity & 1];
	for (int u = 0; u < R->n; u++)
		if (d[u] > v[u])
			v[u] = d[u];
}

uint32_t emu_race_phase_clock(Emu *E, const uint8_t *bar, int parity, int t)
{
	MbarClk *c = mbar(E, bar, false);
	return c && t >= 0 && t < E->race->n ? c->done[parity & 1][t] : 0;
}

static Cell *cell(Race *R, int64_t off)
{
	Cell *c = &R->cell[off];
	if (c->gen != R->gen) {
		c->gen = R->gen;
		c->wt = 0;
		c->nr = 0;
		c->rnext = 0;
	}
	return c;
}

void emu_race_async(Emu *E, const uint8_t *p, int64_t n)
{
	Emu *O = emu_owner(E, p); /* a multicast lands in another CTA: not stamped there */
	Race *R = O->race;
	if (!R || !O->sdata || p < O->sdata || p + n > O->sdata + R->bytes)
		return;
	int64_t off = p - O->sdata;
	for (int64_t k = 0; k < n; k++) {
		Cell *c = cell(R, off + k);
		c->nr = 0;
		c->rnext = 0;
		c->wt = (uint16_t)(O == E ? E->race_wt + 1 : 0); /* -1: not stamped */
		c->wclk = E->race_wc;
		c->wline = E->race_wline;
		c->wn = 1;
	}
}

/* "A_smem[3, 5]" or "A_smem storage element 17": the element of the
 * shared root holding byte off. */
static const char *element(Emu *E, int64_t off)
{
	for (int i = 0; i < E->p->nshared; i++) {
		const Mem *m = &E->smem[i];
		if (off < m->base || off >= m->base + m->size)
			continue;
		const Buffer *b = m->buf;
		int64_t es = dtype_bytes(b->dtype), k = (off - m->base) / (es > 0 ? es : 1);
		int64_t total = 1;
		for (int d = 0; d < b->ndim; d++)
			total = total > 0 && b->shape[d] > 0 && total <= INT64_MAX / b->shape[d] ? total * b->shape[d] : -1;
		if (b->layout || b->ndim < 1 || total < 1 || total * es != m->size)
			return xprintf("%s storage element %lld", b->name, (long long)k);
		int64_t idx[EMU_MAX_DIMS];
		for (int d = b->ndim - 1; d >= 0; d--) {
			idx[d] = k % b->shape[d];
			k /= b->shape[d];
		}
		Buf s = { 0 };
		bprintf(&s, "%s[", b->name);
		for (int d = 0; d < b->ndim; d++)
			bprintf(&s, "%s%lld", d ? ", " : "", (long long)idx[d]);
		bputc(&s, ']');
		return s.s;
	}
	return xprintf("shared byte %lld", (long long)off);
}

/* "thread 7", "threads 0-127 (one collective copy)", or in tensor
 * memory "warp 2 (threads 64-95)" */
static const char *who(int t, int n, bool tm)
{
	if (tm && n == 32)
		return xprintf("warp %d (threads %d-%d)", t / 32, t, t + 31);
	return n > 1 ? xprintf("threads %d-%d (one collective copy)", t, t + n - 1) : xprintf("thread %d", t);
}

/* tm: off is a cell of tensor memory (lane * 512 + column), else a byte
 * of shared memory */
static bool report(Emu *E, bool tm, int64_t off, Pos pos, int t, int tn, bool write, int u, int un, bool uwrote,
                   int uline)
{
	const char *what = tm ? xprintf("tensor-memory race on lane %lld, column %lld (address 0x%llx)",
	                                (long long)(off / 512), (long long)(off % 512),
	                                (unsigned long long)((off / 512) << 16 | off % 512))
	                      : xprintf("shared-memory race on %s (shared address 0x%llx)", element(E, off),
	                                (unsigned long long)off);
	return emu_fail(E, pos, t, "%s: %s %s it at line %d, %s %s it at line %d with no barrier between", what,
	                who(u, un, tm), uwrote ? "wrote" : "read", uline, who(t, tn, tm), write ? "writes" : "reads", pos.line);
}

static bool check(Emu *E, bool tm, int64_t off, int64_t n, bool write, Pos pos, int t, int gn);

bool emu_race_access(Emu *E, int64_t off, int64_t n, bool write, Pos pos, int t)
{
	if (off < 0 || off + n > E->race->bytes)
		return true;
	return check(E, false, off, n, write, pos, t, E->race_thr >= 0 ? 1 : E->race_gn);
}

bool emu_race_tmem(Emu *E, int lane, int col, int n, bool write, Pos pos, int t, bool warp)
{
	Race *R = E->race;
	if (!R || lane < 0 || lane >= 128 || col < 0 || col + n > 512 || t < 0 || t >= R->n)
		return true;
	if (!R->tcell && !(R->tcell = calloc(128 * 512, sizeof(Cell))))
		return true; /* not checked */
	if (warp) /* the warp's access, stamped with its first thread */
		t -= t % 32;
	return check(E, true, (int64_t)lane * 512 + col, n, write, pos, t, warp ? 32 : 1);
}

static bool check(Emu *E, bool tm, int64_t off, int64_t n, bool write, Pos pos, int t, int gn)
{
	Race *R = E->race;
	const uint32_t *v = vc(R, t);
	uint32_t now = v[t];
	Cell *base = tm ? R->tcell : R->cell;
	for (int64_t k = 0; k < n; k++) {
		Cell *c = &base[off + k];
		if (c->gen != R->gen) {
			c->gen = R->gen;
			c->wt = 0;
			c->nr = 0;
			c->rnext = 0;
		}
		int w = c->wt - 1;
		if (w >= 0 && w != t && c->wclk > v[w])
			return report(E, tm, off + k, pos, t, gn, write, w, c->wn, true, c->wline);
		if (write) {
			for (int i = 0; i < c->nr; i++)
				if (c->rt[i] != t && c->rclk[i] > v[c->rt[i]])
					return report(E, tm, off + k, pos, t, gn, true, c->rt[i], c->rn[i], false, c->rline[i]);
			c->wt = (uint16_t)(t + 1);
			c->wn = (uint16_t)gn;
			c->wclk = now;
			c->wline = pos.line;
			c->nr = 0;
			c->rnext = 0;
			continue;
		}
		int i = 0;
		while (i < c->nr && c->rt[i] != t)
			i++;
		if (i == c->nr) {
			if (c->nr < RK)
				c->nr++;
			else
				i = c->rnext++ % RK;
		}
		c->rt[i] = (uint16_t)t;
		c->rn[i] = (uint16_t)gn;
		c->rclk[i] = now;
		c->rline[i] = pos.line;
	}
	return true;
}

/* ---- schedules ---------------------------------------------------------------------------- */

const int *emu_sched(Emu *E, const int *act, int nact, int *buf)
{
	if (E->sched == EMU_SCHED_LOCKSTEP || nact < 2 || nact > EMU_MAX_THREADS)
		return act;
	if (E->sched == EMU_SCHED_REVERSE) {
		for (int i = 0; i < nact; i++)
			buf[i] = act[nact - 1 - i];
		return buf;
	}
	memcpy(buf, act, (size_t)nact * sizeof(int));
	for (int i = nact - 1; i > 0; i--) {
		/* xorshift64*, from the seed: the same run each time */
		uint64_t x = E->rng;
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		E->rng = x;
		int j = (int)((x * 0x2545F4914F6CDD1Dull >> 33) % (uint64_t)(i + 1));
		int tmp = buf[i];
		buf[i] = buf[j];
		buf[j] = tmp;
	}
	return buf;
}

bool emu_sched_swap(Emu *E)
{
	if (E->sched == EMU_SCHED_REVERSE)
		return true;
	if (E->sched != EMU_SCHED_RANDOM)
		return false;
	uint64_t x = E->rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	E->rng = x;
	return (x * 0x2545F4914F6CDD1Dull) >> 63;
}
