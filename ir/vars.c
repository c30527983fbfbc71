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
		define(S, t->str, scalar_var(t, NULL, dt, true), t->pos);
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
	return true;
}
