/* TVM's @T.inline functions (@T.macro, its older name) defined in a
 * kernel: TVM inlines the body at each call while parsing. Here the def
 * is remembered under its name and becomes `pass`; a call standing as a
 * statement is replaced, where it stands, by `if True:` around a copy of
 * the body with each parameter written as its argument's expression (the
 * if keeps the body's own names to it, as the call's frame does). Free
 * names are read where the call is: TVM's late binding. */
#include <string.h>

#include "sema.h"
#include "lexer.h"

typedef struct {
	const char **names;
	Expr **args;
	int n;
	bool *deep; /* set when a copy grew past MAX_EXPR_DEPTH */
} InlineMap;

static bool inline_decorator(Sema *S, Expr *d)
{
	if (d->kind != E_ATTR || (strcmp(d->str, "inline") != 0 && strcmp(d->str, "macro") != 0))
		return false;
	Value *ns = eval(S, d->a);
	return ns && !IS_ERR(ns) && ns->kind == V_NAMESPACE && strcmp(ns->s, "T") == 0;
}

bool inline_is_def(Sema *S, Stmt *s)
{
	return s->kind == S_FUNC && s->ndecorators == 1 && inline_decorator(S, s->decorators[0]);
}

static bool is_param(const Stmt *def, const char *name)
{
	for (int i = 0; i < def->nparams; i++)
		if (strcmp(def->params[i].name, name) == 0)
			return true;
	return false;
}

/* What the copy cannot follow: a parameter assigned (its uses are the
 * argument's expression), and statements of Python functions. */
static bool check_body(Sema *S, const Stmt *def, Stmt **body, int n)
{
	bool ok = true;
	for (int i = 0; i < n; i++) {
		Stmt *s = body[i];
		if (s->kind == S_FUNC || s->kind == S_RETURN || s->kind == S_RAISE || s->kind == S_IMPORT) {
			error_at(S->d, s->pos, "not supported yet: %s in a @T.inline function",
			         s->kind == S_FUNC ? "a def" : s->kind == S_RETURN ? "return" : s->kind == S_RAISE ? "raise" :
			         "an import");
			ok = false;
			continue;
		}
		if (s->kind == S_ASSIGN || s->kind == S_AUGASSIGN || s->kind == S_FOR || s->kind == S_DECL)
			for (int k = 0; k < s->ntargets; k++) {
				Expr *t = s->targets[k];
				for (int j = 0; j < (t->kind == E_TUPLE ? t->nargs : 1); j++) {
					Expr *x = t->kind == E_TUPLE ? t->args[j] : t;
					if (x->kind == E_NAME && is_param(def, x->str)) {
						error_at(S->d, x->pos, "not supported yet: assigning parameter '%s' of @T.inline "
						         "function %s(); use a local name", x->str, def->name);
						ok = false;
					}
				}
			}
		ok = check_body(S, def, s->body, s->nbody) && ok;
		ok = check_body(S, def, s->orelse, s->norelse) && ok;
	}
	return ok;
}

void inline_def(Sema *S, Stmt *s)
{
	Stmt *def = new_stmt(S_FUNC, s->pos);
	*def = *s;
	bool ok = check_body(S, def, def->body, def->nbody);
	for (int i = 0; i < def->nparams; i++)
		for (int k = 0; k < i; k++)
			if (strcmp(def->params[k].name, def->params[i].name) == 0) {
				error_at(S->d, def->params[i].pos, "duplicate argument '%s' in function definition",
				         def->params[i].name);
				ok = false;
			}
	Value *v = vnew(V_PYFUNC);
	v->func = xalloc(sizeof *v->func);
	v->func->name = def->name;
	v->func->stmt = def;
	v->nelts = 0;
	define(S, def->name, ok ? v : &verr, def->pos);
	/* the calls are expanded where they stand: the def itself says nothing more */
	s->kind = S_PASS;
	s->ndecorators = s->nparams = s->nbody = 0;
}

/* A fresh copy of e, the parameters replaced by their arguments. */
static Expr *sub(const InlineMap *m, const Expr *e)
{
	if (!e)
		return NULL;
	if (e->kind == E_NAME)
		for (int i = 0; i < m->n; i++)
			if (strcmp(m->names[i], e->str) == 0)
				return expr_copy(m->args[i]);
	Expr *x = new_expr(e->kind, e->pos);
	*x = *e;
	x->val = NULL;
	x->var = NULL;
	x->a = sub(m, e->a);
	x->b = sub(m, e->b);
	x->c = sub(m, e->c);
	if (e->nargs) {
		x->args = xalloc(sizeof(Expr *) * (size_t)e->nargs);
		for (int i = 0; i < e->nargs; i++)
			x->args[i] = sub(m, e->args[i]);
	}
	if (e->nkws) {
		x->kws = xalloc(sizeof(Kw) * (size_t)e->nkws);
		for (int i = 0; i < e->nkws; i++) {
			x->kws[i] = e->kws[i];
			x->kws[i].value = sub(m, e->kws[i].value);
		}
	}
	int d = expr_child_depth(x) + 1;
	if (d > MAX_EXPR_DEPTH)
		*m->deep = true;
	x->depth = (unsigned)(d > MAX_EXPR_DEPTH + 1 ? MAX_EXPR_DEPTH + 1 : d);
	return x;
}

static Stmt **sub_stmts(const InlineMap *m, Stmt **body, int n);

static Stmt *sub_stmt(const InlineMap *m, const Stmt *s)
{
	Stmt *t = new_stmt(s->kind, s->pos);
	*t = *s;
	if (s->ntargets) {
		t->targets = xalloc(sizeof(Expr *) * (size_t)s->ntargets);
		for (int i = 0; i < s->ntargets; i++)
			t->targets[i] = sub(m, s->targets[i]);
	}
	t->value = sub(m, s->value);
	t->ann = sub(m, s->ann);
	t->body = sub_stmts(m, s->body, s->nbody);
	t->orelse = sub_stmts(m, s->orelse, s->norelse);
	return t;
}

static Stmt **sub_stmts(const InlineMap *m, Stmt **body, int n)
{
	if (!n)
		return NULL;
	Stmt **v = xalloc(sizeof(Stmt *) * (size_t)n);
	for (int i = 0; i < n; i++)
		v[i] = sub_stmt(m, body[i]);
	return v;
}

/* Whether the body binds name (an assignment's or a loop's target). */
static bool binds(Stmt **body, int n, const char *name)
{
	for (int i = 0; i < n; i++) {
		Stmt *s = body[i];
		for (int k = 0; k < s->ntargets; k++) {
			Expr *t = s->targets[k];
			for (int j = 0; j < (t->kind == E_TUPLE ? t->nargs : 1); j++) {
				Expr *x = t->kind == E_TUPLE ? t->args[j] : t;
				if (x->kind == E_NAME && strcmp(x->str, name) == 0)
					return true;
			}
		}
		if (binds(s->body, s->nbody, name) || binds(s->orelse, s->norelse, name))
			return true;
	}
	return false;
}

/* A name of e that the body binds, which the copy would read as the
 * body's own (NULL: none). */
static const Expr *captured(const Stmt *def, const Expr *e)
{
	if (!e)
		return NULL;
	if (e->kind == E_NAME)
		return binds(def->body, def->nbody, e->str) ? e : NULL;
	const Expr *x;
	if ((x = captured(def, e->a)) || (x = captured(def, e->b)) || (x = captured(def, e->c)))
		return x;
	for (int i = 0; i < e->nargs; i++)
		if ((x = captured(def, e->args[i])))
			return x;
	for (int i = 0; i < e->nkws; i++)
		if ((x = captured(def, e->kws[i].value)))
			return x;
	return NULL;
}

static int call_fail(Sema *S, Pos p, const char *msg, const char *name, const char *what)
{
	error_at(S->d, p, msg, name, what);
	return -1;
}

int inline_call(Sema *S, Stmt ***v, int *n, int i)
{
	(void)n;
	Stmt *s = (*v)[i];
	Expr *call = s->value;
	if (s->kind != S_EXPR || !call || call->kind != E_CALL || call->a->kind != E_NAME)
		return 0;
	Sym *sym = lookup(S, call->a->str);
	Value *fn = sym ? sym->val : NULL;
	if (!fn || IS_ERR(fn) || fn->kind != V_PYFUNC || !fn->func->stmt->ndecorators)
		return 0;
	const Stmt *def = fn->func->stmt;
	InlineMap m = { xalloc(sizeof(char *) * (size_t)(def->nparams + 1)), py_bind_args(S, def, call), def->nparams,
	                &(bool){ false } };
	if (!m.args)
		return -1;
	for (int k = 0; k < def->nparams; k++)
		m.names[k] = def->params[k].name;
	for (int k = 0; k < def->nparams; k++)
		if (!m.args[k]) {
			if (!def->params[k].dflt)
				return call_fail(S, call->pos, "%s() missing required argument '%s'", def->name,
				                 def->params[k].name);
			m.args[k] = def->params[k].dflt;
		}
	for (int k = 0; k < def->nparams; k++) {
		const Expr *x = captured(def, m.args[k]);
		if (x)
			return call_fail(S, x->pos, "not supported yet: an argument of %s() reads '%s', which its body "
			                 "assigns too; rename one", def->name, x->str);
	}
	Stmt *w = new_stmt(S_IF, s->pos);
	w->value = new_expr(E_TRUE, call->pos);
	w->body = sub_stmts(&m, def->body, def->nbody);
	w->nbody = def->nbody;
	if (*m.deep) /* the walks after parsing recurse by depth: as the parser refuses it */
		return call_fail(S, call->pos, "this call of %s() expands to an expression %s; bind parts of its "
		                 "arguments to names", def->name, xprintf("more than %d levels deep", MAX_EXPR_DEPTH));
	if (!w->nbody) {
		w->body = xalloc(sizeof(Stmt *));
		w->body[0] = new_stmt(S_PASS, s->pos);
		w->nbody = 1;
	}
	(*v)[i] = w;
	return 1;
}
