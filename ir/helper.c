/* Module-level Python helper functions: a `def` without @T.prim_func,
 * whose body is assignments, ifs over constants, `return` and `raise`.
 * As TVM's script parser runs such a helper at parse time on whatever it
 * is given, constants or run-time expressions, a call means the
 * expression its body returns: the arguments written in for the
 * parameters (a fresh copy at each use), the locals for their
 * expressions, the constant ifs taken (doc/txir.md, section 4). In a
 * kernel, desugar writes the call as that expression, so that no later
 * program sees the helper; at module level, eval evaluates it. */
#include <stdlib.h>
#include <string.h>

#include "sema.h"
#include "lexer.h"

/* The most helper calls one call may make, nested, and the most nodes
 * one expansion may write. */
#define MAX_HELPER_DEPTH 64
#define MAX_HELPER_NODES (1 << 18)

static int depth;  /* helper calls being expanded now */
static Pos outer;  /* where the outermost of them is written */
static long nodes; /* nodes written by the outermost one so far */

/* A name the body binds: a parameter or a local (e its expression in the
 * caller's terms; NULL while a local is not assigned yet), or a name a
 * comprehension binds (shadow: left as it is). */
typedef struct Bind { const char *name; Expr *e; bool shadow; } Bind;

typedef struct Call {
	Sema *S;
	Stmt *def;
	Expr *call;
	Bind *b;
	int nb;
} Call;

static const char *helper_name(const Call *c) { return c->def->name; }

/* The innermost binding of name, or NULL. */
static Bind *bound(Call *c, const char *name)
{
	for (int i = c->nb - 1; i >= 0; i--)
		if (strcmp(c->b[i].name, name) == 0)
			return &c->b[i];
	return NULL;
}

static void bind(Call *c, const char *name, Expr *e)
{
	Bind *old = bound(c, name);
	if (old && !old->shadow) {
		old->e = e;
		return;
	}
	Bind b = { name, e, false };
	vpush(c->b, c->nb, b);
}

/* The module's block (names the helper reads that it does not bind are
 * the module's, as Python's globals are, or builtins). */
static Sym *global(Sema *S, const char *name)
{
	Env *e = S->env;
	while (e->up && e->up != S->builtins)
		e = e->up;
	for (; e; e = e->up) {
		Sym *s = env_find(e, name);
		if (s)
			return s;
	}
	return NULL;
}

static Expr *subst(Call *c, Expr *e);

static void shadow_targets(Call *c, Expr *t)
{
	if (t->kind == E_NAME) {
		Bind b = { t->str, NULL, true };
		vpush(c->b, c->nb, b);
	}
	for (int i = 0; t->kind != E_NAME && i < t->nargs; i++)
		shadow_targets(c, t->args[i]);
}

/* A name of the body in the caller's terms. */
static Expr *subst_name(Call *c, Expr *e)
{
	Sema *S = c->S;
	Bind *b = bound(c, e->str);
	if (b && b->shadow)
		return expr_copy(e);
	if (b && !b->e) {
		fail(S, e->pos, "local variable '%s' of %s() is read before it is assigned", e->str, helper_name(c));
		return NULL;
	}
	if (b)
		return expr_copy(b->e);
	Sym *g = global(S, e->str);
	if (!g) {
		fail(S, e->pos, "name '%s' is not defined (read by %s())", e->str, helper_name(c));
		return NULL;
	}
	if (lookup(S, e->str) == g)
		return expr_copy(e);
	/* a kernel's own name hides the module's here: its value written in */
	Value *v = g->val;
	if (IS_ERR(v))
		return NULL;
	if (v->kind == V_INT || v->kind == V_BOOL || v->kind == V_FLOAT || v->kind == V_STR || v->kind == V_NONE ||
	    v->kind == V_TUPLE || v->kind == V_DTYPE || v->kind == V_LAYOUT)
		return value_expr(S, v, e->pos, false);
	fail(S, e->pos, "not supported yet: %s() reads the module's '%s', which the kernel names something else here; "
	     "rename the kernel's", helper_name(c), e->str);
	return NULL;
}

/* A fresh copy of e with the body's names in the caller's terms. */
static Expr *subst(Call *c, Expr *e)
{
	if (!e)
		return NULL;
	if (++nodes > MAX_HELPER_NODES) {
		if (nodes == MAX_HELPER_NODES + 1)
			fail(c->S, outer, "this call expands to more than %d nodes (the last call of %s() at %s:%d:%d)",
			     MAX_HELPER_NODES, helper_name(c), pos_name(c->call->pos), c->call->pos.line, c->call->pos.col);
		return NULL;
	}
	if (e->kind == E_NAME)
		return subst_name(c, e);
	Expr *x = new_expr(e->kind, e->pos);
	*x = *e;
	x->val = NULL;
	x->var = NULL;
	int mark = c->nb;
	if (e->kind == E_COMP) {
		/* the first iterable is the enclosing scope's; the rest sees the
		 * names the clauses bind */
		x->args = xalloc(sizeof(Expr *) * (size_t)e->nargs);
		for (int i = 0; i < e->nargs; i++) {
			Expr *cl = e->args[i], *y = new_expr(cl->kind, cl->pos);
			*y = *cl;
			y->val = NULL;
			if (!(y->b = subst(c, cl->b)))
				return NULL;
			shadow_targets(c, cl->a);
			y->a = expr_copy(cl->a);
			if (cl->nargs) {
				y->args = xalloc(sizeof(Expr *) * (size_t)cl->nargs);
				for (int k = 0; k < cl->nargs; k++)
					if (!(y->args[k] = subst(c, cl->args[k])))
						return NULL;
			}
			x->args[i] = y;
		}
		x->a = subst(c, e->a);
		c->nb = mark;
		return x->a ? x : NULL;
	}
	if ((e->a && !(x->a = subst(c, e->a))) || (e->b && !(x->b = subst(c, e->b))) ||
	    (e->c && !(x->c = subst(c, e->c))))
		return NULL;
	if (e->nargs) {
		x->args = xalloc(sizeof(Expr *) * (size_t)e->nargs);
		for (int i = 0; i < e->nargs; i++)
			if (!(x->args[i] = subst(c, e->args[i])))
				return NULL;
	}
	if (e->nkws) {
		x->kws = xalloc(sizeof(Kw) * (size_t)e->nkws);
		for (int i = 0; i < e->nkws; i++) {
			x->kws[i] = e->kws[i];
			if (!(x->kws[i].value = subst(c, e->kws[i].value)))
				return NULL;
		}
	}
	int d = expr_child_depth(x) + 1;
	if (d > MAX_EXPR_DEPTH) {
		fail(c->S, c->call->pos, "this call of %s() expands to an expression more than %d levels deep",
		     helper_name(c), MAX_EXPR_DEPTH);
		return NULL;
	}
	x->depth = (unsigned)d;
	return x;
}

/* Python's truth of a constant condition. */
static bool truth(Call *c, Value *v, Pos p, bool *out)
{
	switch (v->kind) {
	case V_BOOL: case V_INT: *out = v->i != 0; return true;
	case V_FLOAT: *out = v->f != 0; return true;
	case V_NONE: *out = false; return true;
	case V_STR: *out = v->s[0] != 0; return true;
	case V_TUPLE: case V_DICT: *out = v->nelts != 0; return true;
	default:
		fail(c->S, p, "the condition of an if in %s() must be a boolean, not %s", helper_name(c), value_kind_name(v));
		return false;
	}
}

/* `raise X(...)` reached: an error at the call, naming the raise. */
static void raised(Call *c, Stmt *s)
{
	Sema *S = c->S;
	Expr *x = s->value;
	const char *where = xprintf("%s:%d:%d", pos_name(s->pos), s->pos.line, s->pos.col);
	if (!x) {
		fail(S, c->call->pos, "%s() reached the bare 'raise' at %s", helper_name(c), where);
		return;
	}
	Expr *exc = x->kind == E_CALL ? x->a : x;
	const char *msg = NULL;
	if (x->kind == E_CALL && x->nargs >= 1) {
		Expr *m = subst(c, x->args[0]);
		Value *v = m ? eval(S, m) : &verr;
		if (IS_ERR(v))
			return;
		if (v && v->kind == V_STR)
			msg = v->s;
	}
	if (msg)
		fail(S, c->call->pos, "%s() raises %s(\"%s\") (the raise at %s)", helper_name(c), expr_str(exc), msg, where);
	else
		fail(S, c->call->pos, "%s() raises %s (the raise at %s)", helper_name(c), expr_str(exc), where);
}

static Expr *expand(Sema *S, Expr *call, Value *fn);
static bool enter(Sema *S, Expr *call, Value *fn);
static bool not_inline(Sema *S, Expr *call, Value *fn);

/* A call of a helper as the expression it means (to unpack it), any
 * other expression as it is; NULL after an error. */
static Expr *expanded(Sema *S, Expr *v)
{
	while (v->kind == E_CALL) {
		Value *fn = eval(S, v->a);
		if (IS_ERR(fn))
			return NULL;
		if (!fn || fn->kind != V_PYFUNC)
			break;
		if (!not_inline(S, v, fn) || !expand_call(S, v) || !enter(S, v, fn))
			return NULL;
		v = expand(S, v, fn);
		depth--;
		if (!v)
			return NULL;
	}
	return v;
}

/* Runs a block: 1 at a return (*out its expression), 0 at its end, -1
 * after an error. */
static int run(Call *c, Stmt **body, int n, Expr **out)
{
	Sema *S = c->S;
	for (int i = 0; i < n; i++) {
		Stmt *s = body[i];
		switch (s->kind) {
		case S_PASS: case S_EXPR: /* a docstring (helper_def allows no other) */
			break;
		case S_ASSIGN: {
			Expr *v = subst(c, s->value);
			if (!v)
				return -1;
			if (s->ntargets == 1 && s->targets[0]->kind == E_NAME) {
				bind(c, s->targets[0]->str, v);
				break;
			}
			Expr **t = s->ntargets == 1 ? s->targets[0]->args : s->targets;
			int nt = s->ntargets == 1 ? s->targets[0]->nargs : s->ntargets;
			Expr **parts = NULL;
			if (!(v = expanded(S, v)))
				return -1;
			if ((v->kind == E_TUPLE || v->kind == E_LIST) && v->nargs == nt) {
				parts = v->args;
				for (int k = 0; k < nt; k++)
					if (parts[k]->kind == E_STAR)
						parts = NULL;
			}
			if (!parts) {
				Value *tv = eval(S, v);
				if (IS_ERR(tv))
					return -1;
				if (!tv || tv->kind != V_TUPLE || tv->nelts != nt) {
					fail(S, s->pos, "cannot unpack %s into %d names", tv ? value_kind_name(tv) : "a run-time value", nt);
					return -1;
				}
				parts = xalloc(sizeof(Expr *) * (size_t)nt);
				for (int k = 0; k < nt; k++)
					if (!(parts[k] = value_expr(S, tv->elts[k], s->pos, false)))
						return -1;
			}
			for (int k = 0; k < nt; k++)
				bind(c, t[k]->str, parts[k]);
			break;
		}
		case S_AUGASSIGN: {
			Expr *t = s->targets[0];
			Expr *old = subst(c, t), *v = old ? subst(c, s->value) : NULL;
			if (!v)
				return -1;
			Expr *x = new_expr(E_BIN, s->pos);
			x->op = s->op;
			x->a = old;
			x->b = v;
			x->paren = true;
			x->depth = (unsigned)(expr_child_depth(x) + 1);
			bind(c, t->str, x);
			break;
		}
		case S_IF: {
			Expr *cond = subst(c, s->value);
			Value *v = cond ? eval(S, cond) : &verr;
			if (IS_ERR(v))
				return -1;
			if (!v || v->kind == V_VAR) {
				fail(S, s->value->pos, "the condition of an if in %s() must be a compile-time constant; in the "
				     "call at line %d, '%s' depends on a run-time value (a helper runs when the kernel is parsed)",
				     helper_name(c), c->call->pos.line, expr_str(s->value));
				return -1;
			}
			bool t;
			if (!truth(c, v, s->value->pos, &t))
				return -1;
			int r = t ? run(c, s->body, s->nbody, out) : run(c, s->orelse, s->norelse, out);
			if (r)
				return r;
			break;
		}
		case S_RETURN:
			*out = s->value ? subst(c, s->value) : new_expr(E_NONE, s->pos);
			return *out ? 1 : -1;
		case S_RAISE:
			raised(c, s);
			return -1;
		default:
			fail(S, s->pos, "not supported yet: this statement in a helper function");
			return -1;
		}
	}
	return 0;
}

/* The locals of a body: the names it assigns anywhere (Python's rule),
 * unbound until assigned. */
static void locals(Call *c, Stmt **body, int n)
{
	for (int i = 0; i < n; i++) {
		Stmt *s = body[i];
		if (s->kind == S_ASSIGN || s->kind == S_AUGASSIGN)
			for (int k = 0; k < s->ntargets; k++) {
				Expr *t = s->targets[k];
				Expr **v = t->kind == E_NAME ? &t : t->args;
				int m = t->kind == E_NAME ? 1 : t->nargs;
				for (int j = 0; j < m; j++)
					if (!bound(c, v[j]->str)) {
						Bind b = { v[j]->str, NULL, false };
						vpush(c->b, c->nb, b);
					}
			}
		if (s->kind == S_IF) {
			locals(c, s->body, s->nbody);
			locals(c, s->orelse, s->norelse);
		}
	}
}

Expr **py_bind_args(Sema *S, const Stmt *def, const Expr *call)
{
	if (call->nargs > def->nparams) {
		fail(S, call->args[def->nparams]->pos, "%s() takes %d positional argument%s but %d were given", def->name,
		     def->nparams, def->nparams == 1 ? "" : "s", call->nargs);
		return NULL;
	}
	Expr **given = xalloc(sizeof(Expr *) * (size_t)(def->nparams + 1));
	for (int i = 0; i < call->nargs; i++) {
		if (call->args[i]->kind == E_STAR) {
			fail(S, call->args[i]->pos, "not supported yet: '*' of a run-time sequence in a call of %s()", def->name);
			return NULL;
		}
		given[i] = call->args[i];
	}
	for (int k = 0; k < call->nkws; k++) {
		int i = 0;
		while (i < def->nparams && strcmp(def->params[i].name, call->kws[k].name) != 0)
			i++;
		if (i == def->nparams) {
			fail(S, call->kws[k].pos, "%s() got an unexpected keyword argument '%s'", def->name, call->kws[k].name);
			return NULL;
		}
		if (given[i]) {
			fail(S, call->kws[k].pos, "%s() got multiple values for argument '%s'", def->name, call->kws[k].name);
			return NULL;
		}
		given[i] = call->kws[k].value;
	}
	return given;
}

/* The expression a call means, NULL after an error. */
static Expr *expand(Sema *S, Expr *call, Value *fn)
{
	Stmt *def = fn->func->stmt;
	Call c = { .S = S, .def = def, .call = call };
	Expr **given = py_bind_args(S, def, call);
	if (!given)
		return NULL;
	for (int i = 0; i < def->nparams; i++) {
		Expr *x = given[i];
		if (!x && fn->elts[i] && !(x = value_expr(S, fn->elts[i], call->pos, false)))
			return NULL;
		if (!x) {
			fail(S, call->pos, "%s() missing required argument '%s'", def->name, def->params[i].name);
			return NULL;
		}
		Bind b = { def->params[i].name, x, false };
		vpush(c.b, c.nb, b);
	}
	locals(&c, def->body, def->nbody);
	Expr *out = NULL;
	int r = run(&c, def->body, def->nbody, &out);
	if (r < 0)
		return NULL;
	if (r == 0) {
		fail(S, call->pos, "%s() ends without a return, so its value is None; return the value it means",
		     def->name);
		return NULL;
	}
	out->paren = out->paren || out->kind == E_TUPLE; /* a tuple where it is written stays one */
	return out;
}

static bool enter(Sema *S, Expr *call, Value *fn)
{
	if (depth >= MAX_HELPER_DEPTH) {
		fail(S, outer, "this call nests helper calls more than %d deep: is %s() recursive without end? (the "
		     "call at %s:%d:%d)", MAX_HELPER_DEPTH, fn->func->stmt->name, pos_name(call->pos), call->pos.line,
		     call->pos.col);
		return false;
	}
	if (depth++ == 0) {
		nodes = 0;
		outer = call->pos;
	}
	return true;
}

/* a @T.inline function (inline.c) is a statement's call */
static bool not_inline(Sema *S, Expr *call, Value *fn)
{
	if (!fn->func->stmt->ndecorators)
		return true;
	fail(S, call->pos, "%s() is a @T.inline function: call it as a statement", fn->func->name);
	return false;
}

bool helper_desugar(Sema *S, Expr **slot, Value *fn)
{
	if (!not_inline(S, *slot, fn))
		return false;
	if (!enter(S, *slot, fn))
		return false;
	Expr *x = expand(S, *slot, fn);
	bool ok = x && desugar(S, &x);
	depth--;
	if (ok)
		*slot = x;
	return ok;
}

Value *helper_eval(Sema *S, Expr *call, Value *fn)
{
	if (!not_inline(S, call, fn))
		return &verr;
	if (!enter(S, call, fn))
		return &verr;
	Expr *x = expand(S, call, fn);
	Value *v = x ? eval(S, x) : &verr;
	depth--;
	return v;
}

/* What a helper's body may hold: refused at the statement otherwise. */
static bool check_body(Sema *S, Stmt **body, int n)
{
	bool ok = true;
	for (int i = 0; i < n; i++) {
		Stmt *s = body[i];
		switch (s->kind) {
		case S_PASS: case S_RETURN: case S_RAISE:
			break;
		case S_EXPR:
			if (s->value->kind != E_STR) {
				error_at(S->d, s->pos, "not supported yet: an expression statement in a helper function (only a "
				         "docstring); its value would be dropped");
				ok = false;
			}
			break;
		case S_ASSIGN: case S_AUGASSIGN:
			for (int k = 0; k < s->ntargets; k++) {
				Expr *t = s->targets[k];
				bool names = t->kind == E_NAME;
				if (t->kind == E_TUPLE || t->kind == E_LIST) {
					names = s->kind == S_ASSIGN && s->ntargets == 1;
					for (int j = 0; j < t->nargs; j++)
						names &= t->args[j]->kind == E_NAME;
				}
				if (!names) {
					error_at(S->d, t->pos, "not supported yet: a helper function assigns names (or a flat tuple "
					         "of names), not '%s'", expr_str(t));
					ok = false;
				}
			}
			break;
		case S_IF:
			ok &= check_body(S, s->body, s->nbody);
			ok &= check_body(S, s->orelse, s->norelse);
			break;
		case S_FOR: case S_WHILE:
			error_at(S->d, s->pos, "not supported yet: a %s loop in a helper function (a helper holds "
			         "assignments, ifs over constants, return and raise)", s->kind == S_FOR ? "for" : "while");
			ok = false;
			break;
		case S_FUNC:
			error_at(S->d, s->pos, "not supported yet: a function defined inside a helper function");
			ok = false;
			break;
		default:
			error_at(S->d, s->pos, "not supported yet: this statement in a helper function (a helper holds "
			         "assignments, ifs over constants, return and raise)");
			ok = false;
		}
	}
	return ok;
}

static Value *helper_value(Sema *S, Stmt *s);

void helper_def(Sema *S, Stmt *s)
{
	define(S, s->name, helper_value(S, s), s->pos);
}

Value *helper_lambda(Sema *S, Expr *e)
{
	/* def <lambda>(params): return body, as Python makes it */
	Stmt *def = new_stmt(S_FUNC, e->pos);
	def->name = "<lambda>";
	def->nparams = e->nargs;
	def->params = xalloc(sizeof(Param) * (size_t)(e->nargs + 1));
	for (int i = 0; i < e->nargs; i++)
		def->params[i] = (Param){ .name = e->args[i]->str, .pos = e->args[i]->pos };
	Stmt *r = new_stmt(S_RETURN, e->a->pos);
	r->value = expr_copy(e->a);
	vpush(def->body, def->nbody, r);
	return helper_value(S, def);
}

/* The helper function value of def s (&verr after an error). */
static Value *helper_value(Sema *S, Stmt *s)
{
	Value *v = vnew(V_PYFUNC);
	v->func = xalloc(sizeof *v->func);
	v->func->name = s->name;
	v->func->stmt = s;
	v->nelts = s->nparams;
	v->elts = xalloc(sizeof(Value *) * (size_t)(s->nparams + 1));
	bool ok = check_body(S, s->body, s->nbody);
	for (int i = 0; i < s->nparams; i++) {
		for (int k = 0; k < i; k++)
			if (strcmp(s->params[k].name, s->params[i].name) == 0) {
				error_at(S->d, s->params[i].pos, "duplicate argument '%s' in function definition", s->params[i].name);
				ok = false;
			}
		if (s->params[i].dflt) {
			/* Python evaluates a default once, where the def is */
			Value *d = eval_const(S, s->params[i].dflt, "a default value");
			if (IS_ERR(d))
				ok = false;
			v->elts[i] = d;
		} else if (i && s->params[i - 1].dflt) {
			error_at(S->d, s->params[i].pos, "parameter '%s' without a default follows one with a default",
			         s->params[i].name);
			ok = false;
		}
	}
	return ok ? v : &verr;
}

bool expr_reads(const Expr *e, const char *name)
{
	if (!e)
		return false;
	if (e->kind == E_NAME)
		return strcmp(e->str, name) == 0;
	if (expr_reads(e->a, name) || expr_reads(e->b, name) || expr_reads(e->c, name))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (expr_reads(e->args[i], name))
			return true;
	for (int i = 0; i < e->nkws; i++)
		if (expr_reads(e->kws[i].value, name))
			return true;
	return false;
}

int unpack_split(Sema *S, Stmt *s, Stmt ***out)
{
	if (s->kind != S_ASSIGN || s->ann)
		return 0;
	Expr **t = s->targets;
	int nt = s->ntargets;
	if (nt == 1 && s->targets[0]->kind == E_TUPLE && !s->targets[0]->paren) {
		t = s->targets[0]->args;
		nt = s->targets[0]->nargs;
	}
	if (nt < 2 || (s->value->kind != E_CALL && s->value->kind != E_TUPLE && s->value->kind != E_LIST))
		return 0;
	for (int i = 0; i < nt; i++)
		if (t[i]->kind != E_NAME)
			return 0;
	if (!desugar(S, &s->value)) {
		for (int i = 0; i < nt; i++) /* silence the errors that would follow */
			if (!lookup(S, t[i]->str))
				define(S, t[i]->str, &verr, t[i]->pos);
		return -1;
	}
	Expr *v = s->value;
	if ((v->kind != E_TUPLE && v->kind != E_LIST) || v->nargs != nt)
		return 0;
	bool runtime = false;
	for (int i = 0; i < nt; i++) {
		if (v->args[i]->kind == E_STAR)
			return 0;
		Value *x = eval(S, v->args[i]);
		if (IS_ERR(x))
			return -1;
		runtime |= !x || x->kind == V_VAR;
	}
	if (!runtime)
		return 0; /* constants: bound as a tuple */
	for (int i = 0; i < nt; i++)
		for (int k = 0; k < nt; k++)
			if (expr_reads(v->args[k], t[i]->str)) {
				error_at(S->d, v->args[k]->pos, "not supported yet: an unpacking assignment whose values read a name "
				         "it assigns ('%s'); assign them one at a time", t[i]->str);
				return -1;
			}
	*out = xalloc(sizeof(Stmt *) * (size_t)nt);
	for (int i = 0; i < nt; i++) {
		Stmt *u = new_stmt(S_ASSIGN, s->pos);
		vpush(u->targets, u->ntargets, t[i]);
		u->value = v->args[i];
		(*out)[i] = u;
	}
	return nt;
}
