/* The walk over the tile ops of a module, with the conditions of the ifs
 * around each, and the replacement of an op by its lowered statements. */
#include <string.h>

#include "family.h"

/* ---- the tile ops of a module ------------------------------------------------ */

typedef struct Walk {
	OpFn fn;
	void *ctx;
	OpSite site;
	Expr **conds;       /* the ifs around the walk's place, outermost first */
	bool *negs;
	int nconds, cap;
	bool ok;
	int intrin;         /* the ops visited: copy, copy_async and gemm_async (-1), or this builtin */
} Walk;

/* Enters a block that runs where c holds (as deep as the text nests: no
 * limit here). */
static void push_cond(Walk *w, Expr *c)
{
	if (w->nconds == w->cap) {
		int cap = w->cap ? 2 * w->cap : 16;
		Expr **v = xalloc(sizeof(Expr *) * (size_t)cap);
		bool *ng = xalloc(sizeof(bool) * (size_t)cap);
		if (w->nconds) {
			memcpy(v, w->conds, sizeof(Expr *) * (size_t)w->nconds);
			memcpy(ng, w->negs, sizeof(bool) * (size_t)w->nconds);
		}
		w->conds = v, w->negs = ng, w->cap = cap;
	}
	w->conds[w->nconds] = c;
	w->negs[w->nconds++] = false;
}

static void walk_block(Walk *w, Stmt ***body, int *n)
{
	Stmt **out = NULL; /* the rebuilt block, from the first replaced op on */
	int nout = 0;
	for (int i = 0; i < *n; i++) {
		Stmt *s = (*body)[i];
		switch (s->kind) {
		case S_EXPR:
			if (s->value->kind == E_CALL && (w->intrin < 0 ? s->value->intrin == IN_COPY || s->value->intrin == IN_COPY_ASYNC || s->value->intrin == IN_GEMM_ASYNC
			                                               : s->value->intrin == w->intrin)) {
				OpSite *o = &w->site;
				o->stmt = s;
				o->call = s->value;
				o->conds = w->conds;
				o->negs = w->negs;
				o->nconds = w->nconds;
				o->repl = NULL;
				o->nrepl = -1;
				if (w->fn(o, w->ctx) < 0)
					w->ok = false;
				/* replaced by its own statement, made anew in place
				 * (a lowered loop): the block stands as it is */
				if (o->nrepl == 1 && o->repl[0] == s)
					break;
				if (o->nrepl >= 0) {
					if (!out)
						for (int k = 0; k < i; k++)
							vpush(out, nout, (*body)[k]);
					for (int k = 0; k < o->nrepl; k++)
						vpush(out, nout, o->repl[k]);
					if (!out) /* replaced by nothing, and first */
						out = xalloc(sizeof *out);
					continue;
				}
			}
			break;
		case S_IF:
			push_cond(w, s->value);
			walk_block(w, &s->body, &s->nbody);
			w->negs[w->nconds - 1] = true;
			walk_block(w, &s->orelse, &s->norelse);
			w->nconds--;
			break;
		case S_FOR:
			walk_block(w, &s->body, &s->nbody);
			break;
		case S_WHILE: /* the body runs where the condition held */
			push_cond(w, s->value);
			walk_block(w, &s->body, &s->nbody);
			w->nconds--;
			break;
		default:
			break;
		}
		if (out)
			vpush(out, nout, s);
	}
	if (out) {
		*body = out;
		*n = nout;
	}
}

void op_replace(OpSite *o, Stmt **v, int n)
{
	if (n == 1 && v[0] == o->stmt) { /* the op's statement, made anew: the site holds it */
		o->repl = &o->stmt;
		o->nrepl = 1;
		return;
	}
	o->repl = xalloc(sizeof(Stmt *) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		o->repl[i] = v[i];
	o->nrepl = n;
}

static bool walk(Module *m, int intrin, OpFn fn, void *ctx)
{
	Walk w = { .fn = fn, .ctx = ctx, .ok = true, .intrin = intrin };
	for (int i = 0; i < m->nbody; i++) {
		Stmt *s = m->body[i];
		if (s->kind != S_FUNC || !s->func)
			continue;
		w.site.func = s->func;
		w.site.fstmt = s;
		walk_block(&w, &s->body, &s->nbody);
	}
	return w.ok;
}

bool walk_tile_ops(Module *m, OpFn fn, void *ctx) { return walk(m, -1, fn, ctx); }

bool walk_calls(Module *m, int intrin, OpFn fn, void *ctx) { return walk(m, intrin, fn, ctx); }

void stmt_insert(Stmt ***body, int *n, int at, Stmt *s)
{
	size_t cap = 1;
	while (cap < (size_t)(*n + 2))
		cap *= 2;
	Stmt **v = xalloc(sizeof(Stmt *) * cap);
	if (at)
		memcpy(v, *body, sizeof(Stmt *) * (size_t)at);
	v[at] = s;
	if (*n > at)
		memcpy(v + at + 1, *body + at, sizeof(Stmt *) * (size_t)(*n - at));
	*body = v;
	(*n)++;
}
