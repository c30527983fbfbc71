/* Warp specialization on the emulator: the branches of a CTA that wait
 * for each other.
 *
 * The emulator runs a CTA's threads in lockstep, statement by statement,
 * and the two sides of a divergent `if` one after the other. That cannot
 * run a warp-specialized kernel: a producer warp and a consumer warp that
 * take turns through mbarriers (seed 004's load, MMA and epilogue
 * partitions) each wait for the other inside its own branch, so whichever
 * branch runs first waits for ever.
 *
 * So an `if` whose branches both run (some threads take each side) and
 * may wait on an mbarrier (emu-compile.c marks it: C_IF's `fork`) runs its
 * else-branch as a fiber of its own: an OS thread of which, with the rest
 * of the CTA's fibers, exactly one runs at a time, as the CTAs of a
 * cluster do (emu.c). The then-branch goes on in the fiber that reached
 * the `if`, as it always did; at the end of the `if` that fiber waits
 * until the else-fiber has finished (a join). A fiber hands on to the
 * next one (round robin, in the order they were made) only when it
 * reaches a wait that is not done, or the join while the other side still
 * runs. When the turn comes back to a waiting fiber and no fiber has done
 * anything since it handed on, none ever can: a deadlock, reported with
 * what each fiber waits for. Nothing in this depends on timing, so runs
 * repeat; a program that never waits across the branches runs exactly as
 * before (the else-fiber only starts at the join).
 *
 * A fiber has its own lists of threads (E->lists, per nesting depth); the
 * loop counters (E->loopv) and everything else the executor keeps are per
 * thread, and the branches' threads are disjoint. The fields of E that
 * name the running threads (act, nact, lists) are the running fiber's: a
 * fiber restores them when it gets the turn back.
 *
 * Not in a cluster launch (the CTAs of a cluster already take turns, and
 * the two schedules are not combined): there an `if` runs as before. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "emu-impl.h"

typedef struct Fiber {
	pthread_t th;
	bool thread;        /* th was started (the root fiber is the emulator's own thread) */
	int state;          /* CS_RUN, CS_WAIT, CS_DONE */
	const char *why;    /* what it waits for, for a deadlock report */
	int *lists;         /* its own lists of threads (the root: the CTA's) */
	const int *act;     /* saved when it hands on */
	int nact;
	/* an else-fiber's work */
	CStmt **body;
	int nbody, depth, nthr;
	int *thr;
	bool ok;
	Emu *E;
	int id;
} Fiber;

struct Fibers {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	Fiber **f;
	int n, cap;
	int turn;           /* the fiber that runs */
	int cur;            /* the fiber whose fields E holds */
	int64_t progress;   /* statements run; unchanged over a round: a deadlock */
	bool failed;
};

static void hand_on(Fibers *F, int me)
{
	F->turn = me;
	for (int k = 1; k <= F->n; k++) {
		int r = (me + k) % F->n;
		if (F->f[r]->state != CS_DONE) {
			F->turn = r;
			break;
		}
	}
	pthread_cond_broadcast(&F->cv);
}

static void await_turn(Fibers *F, int me)
{
	while (F->turn != me)
		pthread_cond_wait(&F->cv, &F->mu);
}

/* The fields of E that are the running fiber's. */
static void enter(Emu *E, Fiber *f)
{
	E->lists = f->lists;
	E->act = f->act;
	E->nact = f->nact;
	E->fb->cur = f->id;
}

static void leave(Emu *E, Fiber *f)
{
	f->act = E->act;
	f->nact = E->nact;
}

void emu_fiber_progress(Emu *E)
{
	if (E->fb)
		E->fb->progress++;
}

bool emu_fibers(const Emu *E)
{
	if (!E->fb)
		return false;
	int live = 0;
	for (int i = 0; i < E->fb->n; i++)
		live += E->fb->f[i]->state != CS_DONE;
	return live > 1;
}

int emu_fiber_block(Emu *E, const char *why)
{
	Fibers *F = E->fb;
	Fiber *me = F->f[F->cur];
	pthread_mutex_lock(&F->mu);
	int64_t seen = F->progress;
	me->state = CS_WAIT;
	me->why = why;
	leave(E, me);
	hand_on(F, me->id);
	await_turn(F, me->id);
	me->state = CS_RUN;
	me->why = NULL;
	enter(E, me);
	int r = F->failed ? -1 : F->progress != seen;
	pthread_mutex_unlock(&F->mu);
	return r;
}

const char *emu_fibers_str(Emu *E)
{
	Fibers *F = E->fb;
	Buf b = { 0 };
	bputc(&b, 0);
	b.n = 0;
	for (int i = 0; i < F->n; i++) {
		Fiber *f = F->f[i];
		if (i == F->cur || f->state == CS_DONE)
			continue;
		if (b.n)
			bputs(&b, "; ");
		bputs(&b, f->why ? f->why : "runs");
	}
	return b.n ? b.s : "none";
}

static void *fiber_main(void *arg)
{
	Fiber *f = arg;
	Emu *E = f->E;
	Fibers *F = E->fb;
	pthread_mutex_lock(&F->mu);
	await_turn(F, f->id);
	enter(E, f);
	bool skip = F->failed;
	pthread_mutex_unlock(&F->mu);
	bool ok = !skip && emu_exec_block(E, f->body, f->nbody, f->thr, f->nthr, f->depth);
	pthread_mutex_lock(&F->mu);
	f->ok = ok;
	if (!ok)
		F->failed = true;
	f->state = CS_DONE;
	F->progress++;
	hand_on(F, f->id);
	pthread_mutex_unlock(&F->mu);
	return NULL;
}

static bool add(Emu *E, Fiber *f)
{
	Fibers *F = E->fb;
	if (F->n == F->cap) {
		int cap = F->cap ? 2 * F->cap : 8;
		Fiber **v = realloc(F->f, (size_t)cap * sizeof *v);
		if (!v)
			return false;
		F->f = v;
		F->cap = cap;
	}
	f->id = F->n;
	F->f[F->n++] = f;
	return true;
}

/* The CTA's first fork makes the schedule, with the running code as fiber 0. */
static bool start(Emu *E)
{
	if (E->fb)
		return true;
	Fibers *F = calloc(1, sizeof *F);
	Fiber *root = calloc(1, sizeof *root);
	if (!F || !root) {
		free(F);
		free(root);
		return false;
	}
	pthread_mutex_init(&F->mu, NULL);
	pthread_cond_init(&F->cv, NULL);
	E->fb = F;
	*root = (Fiber){ .state = CS_RUN, .lists = E->lists, .E = E, .ok = true };
	if (!add(E, root)) {
		free(root);
		return false;
	}
	return true;
}

bool emu_fork_if(Emu *E, const CStmt *s, const int *yes, int ny, const int *no, int nn, int depth)
{
	Pos at = s->pos;
	if (!start(E))
		return emu_fail(E, at, yes[0], "cannot allocate memory for a branch that runs beside the other");
	Fibers *F = E->fb;
	int n = E->nthreads, levels = E->p->depth + 1;
	Fiber *c = calloc(1, sizeof *c);
	int *lists = c ? malloc((size_t)levels * 2 * (size_t)n * sizeof(int)) : NULL;
	int *thr = lists ? malloc((size_t)nn * sizeof(int)) : NULL;
	if (!thr || !add(E, c)) {
		free(c);
		free(lists);
		free(thr);
		return emu_fail(E, at, yes[0], "cannot allocate memory for a branch that runs beside the other");
	}
	memcpy(thr, no, (size_t)nn * sizeof(int));
	*c = (Fiber){ .state = CS_RUN, .lists = lists, .act = thr, .nact = nn, .body = s->orelse, .nbody = s->norelse,
		      .depth = depth + 1, .nthr = nn, .thr = thr, .E = E, .id = c->id };
	pthread_mutex_lock(&F->mu);
	c->thread = pthread_create(&c->th, NULL, fiber_main, c) == 0;
	if (!c->thread)
		c->state = CS_DONE;
	pthread_mutex_unlock(&F->mu);
	if (!c->thread)
		return emu_fail(E, at, no[0], "cannot start a thread to emulate a branch that runs beside the other");
	/* the then-branch here, as ever; then the join */
	bool ok = emu_exec_block(E, s->body, s->nbody, yes, ny, depth + 1);
	const char *why = NULL;
	while (ok && c->state != CS_DONE) {
		if (!why)
			why = xprintf("%s wait at the end of the if at line %d for %s, in its else-branch",
			              emu_threads_str(yes, ny), at.line, emu_threads_str(thr, nn));
		int r = emu_fiber_block(E, why);
		if (r < 0)
			ok = false;
		else if (r == 0 && c->state != CS_DONE)
			ok = emu_fail(E, at, yes[0], "deadlock: %s wait at the end of this if for %s (its else-branch), and "
			              "no thread of the CTA can move any more (%s)", emu_threads_str(yes, ny),
			              emu_threads_str(thr, nn), emu_fibers_str(E));
	}
	if (!ok) {
		pthread_mutex_lock(&F->mu);
		F->failed = true;
		pthread_mutex_unlock(&F->mu);
		return false; /* the fibers unwind; emu_fibers_end joins them */
	}
	pthread_join(c->th, NULL);
	c->thread = false;
	return c->ok;
}

/* At the end of the CTA (ok: it ran without an error): every fiber has
 * ended, after an error too, and the schedule is gone. */
void emu_fibers_end(Emu *E, bool ok)
{
	Fibers *F = E->fb;
	if (!F)
		return;
	Fiber *root = F->f[0];
	pthread_mutex_lock(&F->mu);
	if (!ok)
		F->failed = true;
	for (;;) {
		int live = -1;
		for (int i = 1; i < F->n; i++)
			if (F->f[i]->state != CS_DONE)
				live = i;
		if (live < 0)
			break;
		/* a failed schedule: each fiber unwinds when it gets the turn */
		F->failed = true;
		root->state = CS_WAIT;
		hand_on(F, 0);
		await_turn(F, 0);
	}
	pthread_mutex_unlock(&F->mu);
	for (int i = 1; i < F->n; i++) {
		if (F->f[i]->thread)
			pthread_join(F->f[i]->th, NULL);
		free(F->f[i]->lists);
		free(F->f[i]->thr);
		free(F->f[i]);
	}
	E->lists = root->lists;
	free(root);
	free(F->f);
	pthread_mutex_destroy(&F->mu);
	pthread_cond_destroy(&F->cv);
	free(F);
	E->fb = NULL;
}
