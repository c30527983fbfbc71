/* Variables: which names a kernel assigns again (a mutable variable, as in
 * Python and TVMScript), the annotated assignments and declarations
 * (`x: T.let = v`, `x: T.let[T.int32] = v`, `x: T.int32 = v`, `x: T.int32`),
 * and the errors of assigning what is bound once (doc/txir.md, section 5,
 * Device code). */
#include <stdlib.h>
#include <string.h>

#include "sema.h"

/* A name bound in the kernel's blocks (not at module level), or NULL. */
Sym *kernel_lookup(Sema *S, const char *name) { return kernel_lookup_hashed(S, name, str_hash(name)); }

Sym *kernel_lookup_hashed(const Sema *S, const char *name, unsigned h)
{
	for (Env *e = S->env; e && !e->module; e = e->up) {
		Sym *s = env_find_hashed(e, name, h);
		if (s)
			return s;
	}
	return NULL;
}

/* Before a kernel is checked: which first assignments of a name are
 * assigned again later in the name's scope (Python's and TVMScript's: an
 * assignment to a name bound in this block or an enclosing one of the
 * kernel stores to it; a name first bound in a loop or branch body is
 * local to that body). Those targets are marked `rebound`; sema makes them
 * mutable variables when their value is a scalar, and refuses the second
 * assignment of anything else. Parameters and loop variables are bound to
 * `prescan_fixed`: assigning them is refused by sema. */
Expr prescan_fixed;

/* prescan's names: each name's innermost bind, a name hashed once per
 * statement that names it; a loop's or a branch's binds are taken off at
 * its end, uncovering those they hid. The table, its list of taken slots
 * and the binds are prescan's own, from malloc, not from the arena (a
 * kernel of 2,000 names took 340 KB of it at each verify_module): kept
 * for the next prescan, emptied, each slot taken cleared again by the
 * list (the table of a long kernel is 64 KB, of which few slots are
 * taken), so that the next kernel's fills the same memory. */
typedef struct Scan {
	struct ScanName { const char *name; unsigned hash; int top; } *tab; /* top: 1 + its innermost bind; 0: none */
	int names, cap;
	int *taken; /* the slots of the names, in the order made; room for cap / 2 */
	struct ScanBind { int slot; int hidden; Expr *val; } *v; /* hidden: the slot's top before the bind */
	int n, room;
	/* The slots of names met lately, by the name's address: a kernel
	 * spells its names again and again from the same strings (the lexer
	 * interns them, the lowering repeats its own), and prescan writes no
	 * name, so an address names the same string throughout. Emptied when
	 * the table grows, which moves the slots. Two ways a set, the newer
	 * first. */
	struct ScanSeen { const char *name; int slot; } seen[32][2];
} Scan;

static void *scan_alloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

static int scan_find(const Scan *s, const char *name, unsigned h)
{
	unsigned mask = (unsigned)s->cap - 1, i = h & mask;
	while (s->tab[i].name && s->tab[i].name != name && (s->tab[i].hash != h || strcmp(s->tab[i].name, name) != 0))
		i = (i + 1) & mask;
	return (int)i;
}

/* The slot of a name, made on its first use. */
static int scan_name(Scan *s, const char *name)
{
	struct ScanSeen *seen = s->seen[((uintptr_t)name >> 3) * 0x9E3779B97F4A7C15u >> 59];
	if (seen[0].name == name)
		return seen[0].slot;
	if (seen[1].name == name)
		return seen[1].slot;
	unsigned h = str_hash(name);
	if (2 * (s->names + 1) > s->cap) {
		int cap = s->cap ? 2 * s->cap : 64;
		Scan g = { .tab = calloc((size_t)cap, sizeof *g.tab), .names = s->names, .cap = cap,
		           .taken = scan_alloc(s->taken, sizeof(int) * (size_t)(cap / 2 + 1)), .v = s->v, .n = s->n,
		           .room = s->room }; /* nothing seen */
		int *moved = scan_alloc(NULL, sizeof(int) * (size_t)(s->cap + 1));
		if (!g.tab)
			die("out of memory");
		for (int i = 0; i < s->names; i++) {
			int old = g.taken[i];
			g.taken[i] = moved[old] = scan_find(&g, s->tab[old].name, s->tab[old].hash);
			g.tab[moved[old]] = s->tab[old];
		}
		for (int i = 0; i < s->n; i++)
			g.v[i].slot = moved[g.v[i].slot];
		free(moved);
		free(s->tab);
		*s = g;
	}
	int k = scan_find(s, name, h);
	if (!s->tab[k].name) {
		s->tab[k] = (struct ScanName){ name, h, 0 };
		s->taken[s->names++] = k;
	}
	seen[1] = seen[0];
	seen[0] = (struct ScanSeen){ name, k };
	return k;
}

static void scan_bind(Scan *s, int k, Expr *val)
{
	if (s->n == s->room) {
		s->room = s->room ? 2 * s->room : 64;
		s->v = scan_alloc(s->v, sizeof *s->v * (size_t)s->room);
	}
	s->v[s->n++] = (struct ScanBind){ k, s->tab[k].top, val };
	s->tab[k].top = s->n;
}

static void scan_pop(Scan *s, int mark)
{
	while (s->n > mark) {
		struct ScanBind *b = &s->v[--s->n];
		s->tab[b->slot].top = b->hidden;
	}
}

static void scan(Scan *n, Stmt **v, int nv)
{
	for (int i = 0; i < nv; i++) {
		Stmt *s = v[i];
		Expr **t = s->targets;
		int nt = s->ntargets, mark;
		if (nt == 1 && t[0]->kind == E_TUPLE && !t[0]->paren) {
			t = t[0]->args;
			nt = s->targets[0]->nargs;
		}
		switch (s->kind) {
		case S_ASSIGN: case S_DECL: case S_AUGASSIGN:
			for (int k = 0; k < nt; k++) {
				if (t[k]->kind != E_NAME)
					continue;
				int slot = scan_name(n, t[k]->str), top = n->tab[slot].top;
				Expr *d = top ? n->v[top - 1].val : NULL;
				if (!d && s->kind != S_AUGASSIGN)
					scan_bind(n, slot, t[k]);
				else if (d && d != &prescan_fixed && nt == 1 && !s->ann)
					d->rebound = true;
			}
			break;
		case S_FOR:
			mark = n->n;
			if (t[0]->kind == E_NAME)
				scan_bind(n, scan_name(n, t[0]->str), &prescan_fixed);
			scan(n, s->body, s->nbody);
			scan_pop(n, mark);
			break;
		case S_WHILE:
			mark = n->n;
			scan(n, s->body, s->nbody);
			scan_pop(n, mark);
			break;
		case S_IF:
			mark = n->n;
			scan(n, s->body, s->nbody);
			scan_pop(n, mark);
			scan(n, s->orelse, s->norelse);
			scan_pop(n, mark);
			break;
		default:
			break;
		}
	}
}

void prescan(const Stmt *f)
{
	static Scan kept; /* the last prescan's memory, emptied */
	Scan n = { .tab = kept.tab, .cap = kept.cap, .taken = kept.taken, .v = kept.v, .room = kept.room };
	for (int i = 0; i < f->nparams; i++)
		scan_bind(&n, scan_name(&n, f->params[i].name), &prescan_fixed);
	scan(&n, f->body, f->nbody);
	for (int i = 0; i < n.names; i++)
		n.tab[n.taken[i]] = (struct ScanName){ 0 };
	kept = (Scan){ .tab = n.tab, .cap = n.cap, .taken = n.taken, .v = n.v, .room = n.room };
}

/* A runtime scalar bound to target t: a let (def, range and divisor known
 * for the proofs) or a mutable variable (nothing known). */
Value *scalar_var(Expr *t, Expr *value, int dt, bool mut)
{
	Var *var = new_var(t->str, t->pos, dt);
	t->var = var; /* the programs find it at its definition */
	var->mut = mut;
	var->set = value != NULL;
	if (value && !mut) {
		var->def = value;
		var->mult = expr_multiple(value);
		int64_t lo, hi;
		if (expr_range(value, &lo, &hi) && hi < INT64_MAX) {
			var->lo = lo;
			var->hi = hi + 1;
		}
	}
	Value *v = vnew(V_VAR);
	v->var = var;
	return v;
}

/* The dtype a literal gets as a variable: int32 (int64 past it), float32. */
int literal_dtype(Expr *value, int dt)
{
	if (dt == DT_WEAK_INT && value->val && value->val->kind == V_INT &&
	    (value->val->i < INT32_MIN || value->val->i > INT32_MAX))
		return DT_INT64;
	return dt == DT_WEAK_INT ? DT_INT32 : dt == DT_WEAK_FLOAT ? DT_FLOAT32 : dt;
}

/* `x = value`, `x op= value` to a mutable variable: stores to it. */
void reassign(Sema *S, Stmt *s, Expr *t, Var *var, Expr *value, int op)
{
	bool was_set = var->set;
	int vt = scalar(S, value);
	var->set = true; /* after an error too: one report of a read too early */
	if (vt == DT_ERROR)
		return;
	if (op >= 0) {
		if (!was_set)
			error_at(S->d, t->pos, "'%s' is read before it is assigned a value", t->str);
		if (unify(S, s->pos, op_spelling[op], var->dtype, vt) == DT_ERROR)
			return;
	}
	if (!fits(vt, var->dtype)) {
		error_at(S->d, value->pos, "cannot assign %s to %s variable '%s' (line %d); convert with T.cast",
		         dtype_str(vt), dtypes[var->dtype].name, var->name, var->pos.line);
		return;
	}
	t->var = var;
	var->set = true;
	mut_set(S, var, t, value, op);
}

/* The second assignment of a name that is not a mutable variable: why not. */
void bound_once(Sema *S, Expr *t, Sym *old)
{
	Var *var = old->val->kind == V_VAR ? old->val->var : NULL;
	int k = old->val->kind;
	const char *what = var && var->let ? "bound by T.let" : var && var->param ? "a scalar kernel parameter" :
	                   var && var->launch ? "a launch id" : var && var->dtype == DT_HANDLE ? "a pointer" :
	                   var && !var->def ? "a loop variable" :
	                   k == V_BUFFER ? "a buffer" : k == V_HANDLE ? "a kernel parameter" :
	                   k == V_REGION ? "a buffer region" : NULL;
	if (what)
		error_at(S->d, t->pos, "'%s' is %s (line %d) and is bound once; only a scalar variable can be assigned again",
		         t->str, what, old->pos.line);
	else
		error_at(S->d, t->pos, "'%s' is already defined (line %d); names are bound once", t->str, old->pos.line);
}

/* What an annotation says: T.let (*let, *dt DT_NONE), T.let[dtype] (*let,
 * *dt) or a dtype (a mutable variable of it). False after an error. */
static bool annotation(Sema *S, Expr *ann, bool *let, int *dt)
{
	*let = false;
	*dt = DT_NONE;
	Expr *base = ann->kind == E_INDEX ? ann->a : ann;
	Value *v = eval(S, base);
	if (IS_ERR(v))
		return false;
	bool is_let = v && v->kind == V_FUNC && v->intrin == IN_LET;
	if (is_let && ann->kind == E_INDEX) {
		if (ann->nargs != 1) {
			error_at(S->d, ann->pos, "T.let[...] takes one dtype: T.let[T.int32]");
			return false;
		}
		Expr *a = ann->args[0];
		Value *h = eval(S, a->kind == E_CALL ? a->a : a);
		if (IS_ERR(h))
			return false;
		if ((h && h->kind == V_FUNC && h->intrin == IN_HANDLE) ||
		    (h && h->kind == V_DTYPE && h->dtype == DT_HANDLE)) {
			if (S->in_device)
				error_at(S->d, expr_start(ann), "T.let[T.handle(...)] after T.device_entry(): TVM's tensor map is "
				         "host-side, allocated and encoded (T.call_packed(\"runtime.cuTensorMapEncodeTiled\", ...)) "
				         "before T.device_entry()");
			else
				error_at(S->d, expr_start(ann), "not supported yet: T.let[T.handle(...)] of anything but TVM's tensor "
				         "map, T.tvm_stack_alloca(\"tensormap\", 1) encoded by T.call_packed(\"runtime."
				         "cuTensorMapEncodeTiled\", ...)");
			return false;
		}
		*dt = eval_dtype(S, a);
		if (*dt == DT_NONE)
			return false;
	} else if (!is_let) {
		if (v && v->kind == V_DTYPE && ann->kind == E_INDEX) {
			error_at(S->d, expr_start(ann), "not supported yet: a local buffer declared by an annotation "
			         "(`x: T.float32[4]`); allocate it with T.alloc_local");
			return false;
		}
		if (!v || v->kind != V_DTYPE || ann->kind == E_INDEX) {
			error_at(S->d, expr_start(ann), "an annotation is T.let, T.let[dtype] or a dtype such as T.int32, not '%s'",
			         expr_str(ann));
			return false;
		}
		*dt = v->dtype;
	}
	*let = is_let;
	if (*dt == DT_HANDLE) {
		error_at(S->d, expr_start(ann), "not supported yet: a handle variable in a kernel; a handle belongs to "
		         "the host-side setup of TMA descriptors, which txc does not have yet");
		return false;
	}
	return true;
}

/* `x: ann = value` (value NULL: `x: ann`). */
bool annotated(Sema *S, Stmt *s)
{
	Expr *t = s->targets[0], *value = s->value;
	if (!S->func) {
		error_at(S->d, expr_start(s->ann), "annotated assignments and declarations belong in a kernel");
		return false;
	}
	bool let;
	int dt;
	if (!annotation(S, s->ann, &let, &dt))
		return false;
	Sym *old = kernel_lookup(S, t->str);
	if (old && old->pos.place) {
		error_at(S->d, t->pos, "'%s' is already defined (line %d); an annotation binds a new name", t->str,
		         old->pos.line);
		return true;
	}
	if (!value) {
		if (let) {
			error_at(S->d, t->pos, "T.let needs a value: `%s: T.let = value`", t->str);
			return false;
		}
		Value *v = scalar_var(t, NULL, dt, true);
		define(S, t->str, v, t->pos);
		mut_set(S, v->var, t, NULL, -1);
		return true;
	}
	if (let && dt == DT_NONE) {
		/* the same as `x = value`, bound once */
		Stmt u = *s;
		u.ann = NULL;
		t->rebound = false;
		if (!assign1(S, &u))
			return false;
		Sym *sym = kernel_lookup(S, t->str);
		if (sym && sym->val->kind == V_VAR && sym->val->var->pos.off == t->pos.off)
			sym->val->var->let = true;
		return true;
	}
	int vt = scalar(S, value);
	if (vt == DT_ERROR)
		return false;
	if (!fits(vt, dt)) {
		if (let)
			error_at(S->d, value->pos, "T.let[%s] is given a value of dtype %s; convert it with T.cast",
			         dtypes[dt].name, dtype_str(vt));
		else
			error_at(S->d, value->pos, "cannot assign %s to %s variable '%s'; convert with T.cast", dtype_str(vt),
			         dtypes[dt].name, t->str);
		return false;
	}
	Value *v = scalar_var(t, value, dt, !let);
	v->var->let = let;
	define(S, t->str, v, t->pos);
	if (!let)
		mut_set(S, v->var, t, value, -1);
	return true;
}

/* ---- what is known of a mutable variable's values ------------------------------------- *
 *
 * A mutable variable's range follows the program, as sema walks it in
 * order: an assignment gives it the range of its value (the range the
 * proofs of an access read there), an if joins the ranges its branches
 * leave, and a loop starts from a range that holds at every trip, found
 * from the form of the body's updates before the body is walked:
 *
 *   - every update `v += e` or `v = v + e` (e + v), e a literal, a
 *     constant or an immutable name bound before the loop whose range is
 *     known and not negative: v only grows, so it stays at least its
 *     value before the loop; in a for loop of at most N trips whose
 *     updates are not inside an inner loop it stays below its value
 *     before plus N times the sum of the updates' largest steps;
 *   - every update `v -= e` or `v = v - e`: the same, downwards (not of
 *     an unsigned v, which would wrap at 0);
 *   - a wrapping counter, a ring's stage (TVM's PipelineState.advance):
 *     updates `v += e` as above, and resets `v = r` (r known before the
 *     loop), most often under an `if v == N:` (or `v >= N`, `v > N - 1`),
 *     or `v = e % K` (r in [0, K - 1]): v is taken to stay in
 *     [min(its value before, r), max(its value before, r, N - 1)] at
 *     every trip, which the end of the body checks (mut_loop_back); in
 *     the body it may pass that by the steps (v + 1 == N before the
 *     reset);
 *   - any other update: nothing is known of v in the loop and after it.
 *
 * A while condition or an if condition on v then bounds it in the body
 * (sema.c, narrow_by: `while t < ntiles:`). Each update in the loop is
 * checked against the range the loop assumed (MutLoop); after the loop v
 * has that range. Outside sema's walk nothing is known of a mutable
 * variable (mut_forget): the passes read ranges out of order. */

/* The inclusive range of an immutable value known before the loop: a
 * literal, a constant, or a name bound to one or to a Var with a range,
 * or a sum, difference or product of them (`STAGES + 1`). */
static bool early_range(Sema *S, const Expr *e, int64_t *lo, int64_t *hi)
{
	if (e->kind == E_INT) {
		*lo = *hi = e->ival;
		return true;
	}
	if (e->kind == E_BIN && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL)) {
		int64_t al, ah, bl, bh, c[4];
		if (!early_range(S, e->a, &al, &ah) || !early_range(S, e->b, &bl, &bh))
			return false;
		if (e->op == OP_ADD)
			return !__builtin_add_overflow(al, bl, lo) && !__builtin_add_overflow(ah, bh, hi);
		if (e->op == OP_SUB)
			return !__builtin_sub_overflow(al, bh, lo) && !__builtin_sub_overflow(ah, bl, hi);
		if (__builtin_mul_overflow(al, bl, &c[0]) || __builtin_mul_overflow(al, bh, &c[1]) ||
		    __builtin_mul_overflow(ah, bl, &c[2]) || __builtin_mul_overflow(ah, bh, &c[3]))
			return false;
		*lo = *hi = c[0];
		for (int i = 1; i < 4; i++) {
			*lo = c[i] < *lo ? c[i] : *lo;
			*hi = c[i] > *hi ? c[i] : *hi;
		}
		return true;
	}
	if (e->kind != E_NAME)
		return false;
	Sym *sym = lookup(S, e->str);
	Value *v = sym ? sym->val : NULL;
	if (!v || IS_ERR(v))
		return false;
	if (v->kind == V_INT) {
		*lo = *hi = v->i;
		return true;
	}
	if (v->kind == V_VAR && !v->var->mut && v->var->hi > v->var->lo) {
		*lo = v->var->lo;
		*hi = v->var->hi - 1;
		return true;
	}
	return false;
}

/* The step of an update of name x in s, `x += e` or `x = x + e` (*dir
 * 1), `x -= e` or `x = x - e` (*dir -1): e, or NULL when s is another
 * assignment of x (*other) or does not assign x. */
static const Expr *update_step(const Stmt *s, const char *x, bool *other, int *dir)
{
	if (s->kind != S_ASSIGN && s->kind != S_AUGASSIGN && s->kind != S_DECL)
		return NULL;
	for (int i = 0; i < s->ntargets; i++) {
		const Expr *t = s->targets[i];
		if (t->kind == E_TUPLE) {
			for (int k = 0; k < t->nargs; k++)
				if (t->args[k]->kind == E_NAME && !strcmp(t->args[k]->str, x))
					*other = true;
			continue;
		}
		if (t->kind != E_NAME || strcmp(t->str, x))
			continue;
		if (s->ntargets != 1 || s->kind == S_DECL) {
			*other = true;
			return NULL;
		}
		if (s->kind == S_AUGASSIGN && (s->op == OP_ADD || s->op == OP_SUB)) {
			*dir = s->op == OP_ADD ? 1 : -1;
			return s->value;
		}
		const Expr *v = s->value;
		if (s->kind == S_ASSIGN && v->kind == E_BIN && (v->op == OP_ADD || v->op == OP_SUB)) {
			*dir = v->op == OP_ADD ? 1 : -1;
			if (v->a->kind == E_NAME && !strcmp(v->a->str, x))
				return v->b;
			if (v->op == OP_ADD && v->b->kind == E_NAME && !strcmp(v->b->str, x))
				return v->a;
		}
		*other = true;
		return NULL;
	}
	return NULL;
}

/* Walks the updates of name x in v[0..n): false when one is not a step
 * known before the loop, not negative, all in one direction *dir (1: up,
 * -1: down; 0 before the first); *sum adds each step's largest value,
 * *inner is set when one is inside an inner loop. */
static bool steps_of(Sema *S, Stmt **v, int n, const char *x, int64_t *sum, bool *inner, bool nested, int *dir,
                     int64_t *rlo, int64_t *rhi)
{
	for (int i = 0; i < n; i++) {
		const Stmt *s = v[i];
		bool other = false;
		int d = 0;
		const Expr *e = update_step(s, x, &other, &d);
		int64_t lo, hi;
		const Expr *r = other && s->kind == S_ASSIGN && s->ntargets == 1 && s->targets[0]->kind == E_NAME ?
		                s->value : NULL;
		if (r && r->kind == E_BIN && r->op == OP_MOD && early_range(S, r->b, &lo, &hi) && lo > 0) {
			/* `v = e % K`: in [0, K - 1] where e is not negative (the end
			 * of the body checks what it is) */
			*rlo = 0 < *rlo ? 0 : *rlo;
			*rhi = hi - 1 > *rhi ? hi - 1 : *rhi;
			continue;
		}
		if (r && early_range(S, r, &lo, &hi)) { /* a reset to a value known before the loop */
			*rlo = lo < *rlo ? lo : *rlo;
			*rhi = hi > *rhi ? hi : *rhi;
			continue;
		}
		if (other || (e && ((*dir && d != *dir) || !early_range(S, e, &lo, &hi) || lo < 0 ||
		                    __builtin_add_overflow(*sum, hi, sum))))
			return false;
		if (e)
			*dir = d;
		if (e && nested)
			*inner = true;
		if (s->kind == S_FOR && s->targets[0]->kind == E_NAME && !strcmp(s->targets[0]->str, x))
			return false;
		bool loop = s->kind == S_FOR || s->kind == S_WHILE;
		if (!steps_of(S, s->body, s->nbody, x, sum, inner, nested || loop, dir, rlo, rhi) ||
		    !steps_of(S, s->orelse, s->norelse, x, sum, inner, nested || loop, dir, rlo, rhi))
			return false;
	}
	return true;
}

/* Whether statement s reads or assigns name x anywhere. */
static bool touches(const Stmt *s, const char *x)
{
	if (expr_reads(s->value, x))
		return true;
	for (int i = 0; i < s->ntargets; i++)
		if (expr_reads(s->targets[i], x))
			return true;
	for (int i = 0; i < s->nbody; i++)
		if (touches(s->body[i], x))
			return true;
	for (int i = 0; i < s->norelse; i++)
		if (touches(s->orelse[i], x))
			return true;
	return false;
}

/* Whether the body v[0..n) sets x, from a value that does not read it,
 * before anything reads x: its value at the head of a trip is not used. */
static bool reset_first(Stmt **v, int n, const char *x)
{
	for (int i = 0; i < n; i++) {
		const Stmt *s = v[i];
		if (s->kind == S_ASSIGN && s->ntargets == 1 && s->targets[0]->kind == E_NAME &&
		    !strcmp(s->targets[0]->str, x))
			return !expr_reads(s->value, x);
		if (touches(s, x))
			return false;
	}
	return false;
}

/* The bound N of a wrapping counter x in v[0..n): the largest of the
 * bounds of the ifs `x == N`, `x >= N` (`x > N - 1`, or with the sides
 * swapped), N known before the loop, whose body resets x; false when
 * there is none. */
static bool wrap_top(Sema *S, Stmt **v, int n, const char *x, int64_t *top)
{
	bool found = false;
	for (int i = 0; i < n; i++) {
		const Stmt *s = v[i];
		const Expr *c = s->kind == S_IF ? s->value : NULL;
		if (c && c->kind == E_CMP) {
			const Expr *a = c->a, *b = c->b;
			int op = c->op;
			if (b->kind == E_NAME && !strcmp(b->str, x)) { /* N <= x: x >= N */
				a = c->b, b = c->a;
				op = op == OP_LE ? OP_GE : op == OP_LT ? OP_GT : op;
			}
			int64_t lo, hi;
			bool resets = false;
			for (int k = 0; k < s->nbody && !resets; k++) {
				const Stmt *r = s->body[k];
				resets = r->kind == S_ASSIGN && r->ntargets == 1 && r->targets[0]->kind == E_NAME &&
				         !strcmp(r->targets[0]->str, x);
			}
			if (resets && a->kind == E_NAME && !strcmp(a->str, x) && (op == OP_EQ || op == OP_GE || op == OP_GT) &&
			    early_range(S, b, &lo, &hi) && lo == hi && hi < INT64_MAX) {
				int64_t t = op == OP_GT ? hi + 1 : hi;
				*top = found && *top > t ? *top : t;
				found = true;
			}
		}
		int64_t t;
		if (wrap_top(S, s->body, s->nbody, x, &t) || wrap_top(S, s->orelse, s->norelse, x, &t)) {
			*top = found && *top > t ? *top : t;
			found = true;
		}
	}
	return found;
}

/* The mutable variables declared before v[0..n) that it assigns, each
 * once, appended to *out. */
static void assigned_in(Sema *S, Stmt **v, int n, MutRange **out, int *nout)
{
	for (int i = 0; i < n; i++) {
		const Stmt *s = v[i];
		if (s->kind == S_ASSIGN || s->kind == S_AUGASSIGN || s->kind == S_DECL)
			for (int k = 0; k < s->ntargets; k++) {
				const Expr *t = s->targets[k];
				for (int j = 0; j < (t->kind == E_TUPLE ? t->nargs : 1); j++) {
					const Expr *x = t->kind == E_TUPLE ? t->args[j] : t;
					Sym *sym = x->kind == E_NAME ? kernel_lookup(S, x->str) : NULL;
					if (!sym || sym->val->kind != V_VAR || !sym->val->var->mut)
						continue;
					Var *var = sym->val->var;
					bool seen = false;
					for (int m = 0; m < *nout && !seen; m++)
						seen = (*out)[m].v == var;
					if (!seen)
						vpush(*out, *nout, ((MutRange){ .v = var, .lo = var->lo, .hi = var->hi }));
				}
			}
		assigned_in(S, s->body, s->nbody, out, nout);
		assigned_in(S, s->orelse, s->norelse, out, nout);
	}
}

int mut_before(Sema *S, Stmt **a, int na, Stmt **b, int nb, MutRange **out)
{
	int n = 0;
	*out = NULL;
	if (!S->nmuts) /* none declared yet (each is followed from its declaration) */
		return 0;
	assigned_in(S, a, na, out, &n);
	assigned_in(S, b, nb, out, &n);
	return n;
}

void mut_join(MutRange *m, int n)
{
	for (int i = 0; i < n; i++) {
		Var *v = m[i].v;
		if (v->hi <= v->lo || m[i].blo >= m[i].bhi) {
			v->lo = v->hi = 0;
			continue;
		}
		v->lo = v->lo < m[i].blo ? v->lo : m[i].blo;
		v->hi = v->hi > m[i].bhi ? v->hi : m[i].bhi;
	}
}

/* The largest value of an integer dtype plus one, or 0 for another. */
static int64_t dtype_end(int dt)
{
	switch (dt) {
	case DT_INT8: return INT8_MAX + 1;
	case DT_INT16: return INT16_MAX + 1;
	case DT_INT32: return (int64_t)INT32_MAX + 1;
	case DT_UINT8: return UINT8_MAX + 1;
	case DT_UINT16: return UINT16_MAX + 1;
	case DT_UINT32: return (int64_t)UINT32_MAX + 1;
	case DT_INT64: return INT64_MAX;
	default: return 0;
	}
}

MutLoop *mut_loop_enter(Sema *S, Stmt *s, int64_t trips)
{
	MutLoop *L = xalloc(sizeof *L);
	L->n = mut_before(S, s->body, s->nbody, NULL, 0, &L->m);
	L->at = s->pos;
	for (int i = 0; i < L->n; i++) {
		MutRange *m = &L->m[i];
		Var *v = m->v;
		int64_t sum = 0, end = dtype_end(v->dtype), top = 0, span = 0, rlo = INT64_MAX, rhi = INT64_MIN;
		int dir = 0;
		bool inner = false, bounded;
		m->blo = m->bhi = 0; /* [blo, bhi): the range assumed; empty: none */
		if (v->hi <= v->lo || !end || !steps_of(S, s->body, s->nbody, v->name, &sum, &inner, false, &dir, &rlo, &rhi) ||
		    (dir < 0 && dtypes[v->dtype].kind == DK_UINT)) { /* an unsigned count down wraps at 0 */
			v->lo = v->hi = 0;
			continue;
		}
		if (rlo <= rhi && reset_first(s->body, s->nbody, v->name)) { /* each trip sets it first */
			v->lo = v->hi = 0;
			continue;
		}
		if (rlo <= rhi) { /* resets: a wrapping counter, or nothing known */
			int64_t hlo = v->lo < rlo ? v->lo : rlo, hhi = v->hi > rhi + 1 ? v->hi : rhi + 1, bhi;
			if (!wrap_top(S, s->body, s->nbody, v->name, &top)) /* no if: the resets' range alone */
				top = hhi;
			if (dir < 0 || top >= end ||
			    hlo < (dtypes[v->dtype].kind == DK_UINT ? 0 : -end) || __builtin_add_overflow(hhi > top ? hhi : top, sum, &bhi) ||
			    bhi > end) {
				v->lo = v->hi = 0;
				continue;
			}
			hhi = hhi > top ? hhi : top;
			m->wrap = true;
			m->hlo = hlo, m->hhi = hhi;  /* at every trip */
			m->blo = hlo, m->bhi = bhi;  /* anywhere in the body: up to the steps past it */
			v->lo = hlo, v->hi = hhi;
			continue;
		}
		bounded = trips >= 0 && !inner && !__builtin_mul_overflow(trips, sum, &span);
		if (dir >= 0) { /* grows: at least its value before */
			m->blo = v->lo;
			m->bhi = bounded && !__builtin_add_overflow(span, v->hi, &top) && top <= end ? top : end;
			/* in the body: below the last trip's start */
			v->hi = m->bhi == end || trips <= 0 ? m->bhi : m->bhi - sum > v->lo ? m->bhi - sum : v->lo + 1;
		} else { /* shrinks: at most its value before */
			m->bhi = v->hi;
			m->blo = bounded && !__builtin_sub_overflow(v->lo, span, &top) && top >= -end ? top : -end;
			v->lo = m->blo == -end || trips <= 0 ? m->blo : m->blo + sum; /* above the last trip's start */
			v->hi = m->bhi;
			continue;
		}
		v->lo = m->blo;
	}
	L->up = S->loops;
	S->loops = L;
	return L;
}

void mut_loop_back(Sema *S, MutLoop *L)
{
	for (int i = 0; i < L->n; i++) {
		const MutRange *m = &L->m[i];
		Var *v = m->v;
		if (!m->wrap || (v->hi > v->lo && v->lo >= m->hlo && v->hi <= m->hhi))
			continue;
		error_at(S->d, L->at, "'%s' wraps in this loop, and txc took it to stay in [%lld, %lld] at every trip (its "
		         "value before the loop, its resets and the bound of the if around them), but at the end of the "
		         "body it is %s: its range cannot be bounded", v->name, (long long)m->hlo, (long long)(m->hhi - 1),
		         v->hi > v->lo ? xprintf("in [%lld, %lld]", (long long)v->lo, (long long)(v->hi - 1)) :
		         "not known");
		v->lo = m->hlo, v->hi = m->hhi; /* one message */
	}
}

void mut_loop_leave(Sema *S, MutLoop *L)
{
	S->loops = L->up;
	for (int i = 0; i < L->n; i++) {
		const MutRange *m = &L->m[i];
		m->v->lo = m->wrap ? m->hlo : m->blo;
		m->v->hi = m->wrap ? m->hhi : m->bhi;
	}
}

/* The range the innermost loop around the statement assumed for var, or
 * NULL (the innermost loop's range lies in the outer ones'). */
static MutRange *mut_assumed(Sema *S, Var *var, int *line)
{
	for (MutLoop *L = S->loops; L; L = L->up)
		for (int i = 0; i < L->n; i++)
			if (L->m[i].v == var) {
				*line = L->at.line;
				return L->m[i].blo < L->m[i].bhi ? &L->m[i] : NULL;
			}
	return NULL;
}

static void mut_record(Sema *S, Var *var, Expr *value);

/* The range of an assigned value into var's flow state. */
void mut_set(Sema *S, Var *var, Expr *t, Expr *value, int op)
{
	int64_t lo, hi;
	bool ok;
	if (op >= 0) {
		Expr e = { .kind = E_BIN, .op = op, .a = t, .b = value, .dtype = var->dtype };
		ok = expr_range(&e, &lo, &hi);
	} else {
		ok = value ? expr_range(value, &lo, &hi) : (lo = hi = 0, true);
	}
	int64_t end = dtype_end(var->dtype);
	int line = 0;
	MutRange *m = mut_assumed(S, var, &line);
	/* a variable that only grows, in a loop of trips not counted, is
	 * taken not to wrap around past its dtype's end (signed overflow in
	 * C): the range it assumed reaches that end */
	if (ok && m && m->bhi == end && hi >= end && lo >= m->blo)
		hi = end - 1;
	if (ok && m && m->blo == -end && lo < -end && hi < m->bhi) /* the same, counting down */
		lo = -end;
	if (ok && end && lo >= (dtypes[var->dtype].kind == DK_UINT ? 0 : -end) && hi < end) {
		var->lo = lo;
		var->hi = hi + 1;
	} else {
		var->lo = var->hi = 0;
	}
	if (!var->tracked) {
		var->tracked = true;
		vpush(S->muts, S->nmuts, var);
	}
	mut_record(S, var, value);
	if (m && (var->hi <= var->lo || var->lo < m->blo || var->hi > m->bhi))
		error_at(S->d, (value ? value : t)->pos, "'%s' is updated in the loop at line %d by a step txc took to be "
		         "known and not negative, but it is not: its range there cannot be bounded", var->name, line);
}

void mut_forget(Sema *S)
{
	for (int i = 0; i < S->nmuts; i++) {
		S->muts[i]->lo = S->muts[i]->hi = 0;
		S->muts[i]->tracked = false;
	}
	S->nmuts = 0;
}

/* ---- which mutable variables are the same in every thread ----------------------------- */

typedef struct MutAssign { Var *v; Expr *value; Expr **conds; int nconds; } MutAssign;

void ctrl_push(Sema *S, Expr *c)
{
	Expr **v = xalloc(sizeof(Expr *) * (size_t)(S->nctrl + 1));
	if (S->nctrl)
		memcpy(v, S->ctrl, sizeof(Expr *) * (size_t)S->nctrl);
	v[S->nctrl++] = c;
	S->ctrl = v; /* a snapshot an assignment keeps stays as it was */
}

static void mut_record(Sema *S, Var *var, Expr *value)
{
	MutAssign a = { var, value, S->ctrl, S->nctrl };
	vpush(S->assigns, S->nassigns, a);
}

/* Whether e may differ between the threads of a CTA: it reads a thread's
 * launch id, memory, a varying mutable variable or a call txc does not
 * know to be pure arithmetic. A loop variable counts as the same in every
 * thread, as int_thread_name takes it. */
static bool varying(const Expr *e)
{
	if (!e)
		return false;
	if (e->val && (e->val->kind == V_INT || e->val->kind == V_BOOL || e->val->kind == V_FLOAT))
		return false;
	switch (e->kind) {
	case E_INT: case E_FLOAT: case E_STR: case E_NONE: case E_TRUE: case E_FALSE:
		return false;
	case E_NAME:
		if (!e->var)
			return !e->val;
		if (thread_launch(e->var->launch))
			return true;
		if (e->var->mut)
			return e->var->varying;
		return e->var->def ? varying(e->var->def) : false;
	case E_BIN: case E_CMP: case E_AND: case E_OR:
		return varying(e->a) || varying(e->b);
	case E_UN: case E_NOT:
		return varying(e->a);
	case E_COND:
		return varying(e->a) || varying(e->b) || varying(e->c);
	case E_CALL: {
		int dt = DT_NONE;
		int id = call_builtin(e, NULL, &dt);
		if (id != IN_CAST && id != IN_MIN && id != IN_MAX && dt == DT_NONE)
			return true;
		for (int i = 0; i < e->nargs; i++)
			if (e->args[i]->kind != E_STR && varying(e->args[i]))
				return true;
		return false;
	}
	default:
		return true;
	}
}

void mut_uniform(Sema *S)
{
	for (bool changed = true; changed;) {
		changed = false;
		for (int i = 0; i < S->nassigns; i++) {
			MutAssign *a = &S->assigns[i];
			if (a->v->varying)
				continue;
			bool v = varying(a->value);
			for (int c = 0; c < a->nconds && !v; c++)
				v = varying(a->conds[c]);
			if (v)
				a->v->varying = changed = true;
		}
	}
	S->nassigns = 0;
	S->assigns = NULL;
}
