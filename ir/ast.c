/* Constructors and small queries of the syntax tree. */
#include <string.h>

#include "ir.h"

const char *const op_spelling[OP_COUNT] = {
	[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/",
	[OP_FLOORDIV] = "//", [OP_MOD] = "%", [OP_MATMUL] = "@", [OP_POW] = "**",
	[OP_SHL] = "<<", [OP_SHR] = ">>", [OP_BITAND] = "&", [OP_BITOR] = "|",
	[OP_BITXOR] = "^", [OP_NEG] = "-", [OP_POS] = "+", [OP_INVERT] = "~",
	[OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
	[OP_EQ] = "==", [OP_NE] = "!=",
};

Expr *new_expr(enum ExprKind kind, Pos pos)
{
	Expr *e = xalloc(sizeof *e);
	e->kind = kind;
	e->pos = pos;
	e->intrin = -1;
	return e;
}

Expr *expr_copy(const Expr *e)
{
	if (!e)
		return NULL;
	Expr *c = new_expr(e->kind, e->pos);
	c->op = e->op;
	c->ival = e->ival;
	c->fval = e->fval;
	c->str = e->str;
	c->paren = e->paren;
	c->depth = e->depth;
	c->a = expr_copy(e->a);
	c->b = expr_copy(e->b);
	c->c = expr_copy(e->c);
	if (e->nargs) {
		c->args = xalloc(sizeof(Expr *) * (size_t)e->nargs);
		for (int i = 0; i < e->nargs; i++)
			c->args[i] = expr_copy(e->args[i]);
		c->nargs = e->nargs;
	}
	if (e->nkws) {
		c->kws = xalloc(sizeof(Kw) * (size_t)e->nkws);
		for (int i = 0; i < e->nkws; i++)
			c->kws[i] = (Kw){ e->kws[i].name, expr_copy(e->kws[i].value), e->kws[i].pos };
		c->nkws = e->nkws;
	}
	return c;
}

Stmt *new_stmt(enum StmtKind kind, Pos pos)
{
	Stmt *s = xalloc(sizeof *s);
	s->kind = kind;
	s->pos = pos;
	return s;
}

Expr *new_int(Pos pos, int64_t v)
{
	Expr *e = new_expr(E_INT, pos);
	e->ival = v;
	return e;
}

Expr *new_name(Pos pos, const char *name)
{
	Expr *e = new_expr(E_NAME, pos);
	e->str = name;
	return e;
}

Expr *new_call(Pos pos, Expr *fn)
{
	Expr *e = new_expr(E_CALL, pos);
	e->a = fn;
	return e;
}

void call_add_arg(Expr *call, Expr *arg)
{
	vpush(call->args, call->nargs, arg);
}

void call_add_kw(Expr *call, const char *name, Expr *value, Pos pos)
{
	if ((call->nkws & (call->nkws - 1)) == 0)
		call->kws = xrealloc(call->kws, sizeof(Kw) * (size_t)call->nkws,
		                     sizeof(Kw) * (size_t)(call->nkws ? 2 * call->nkws : 1));
	call->kws[call->nkws++] = (Kw){ name, value, pos };
}

Kw *call_kw(const Expr *call, const char *name)
{
	for (int i = 0; i < call->nkws; i++) {
		const char *k = call->kws[i].name; /* the first letter tells most apart */
		if (k == name || (k[0] == name[0] && strcmp(k, name) == 0))
			return &call->kws[i];
	}
	return NULL;
}

const char *dotted_name(const Expr *e)
{
	if (e->kind == E_NAME)
		return e->str;
	if (e->kind != E_ATTR)
		return NULL;
	const char *base = dotted_name(e->a);
	return base ? xprintf("%s.%s", base, e->str) : NULL;
}

Pos expr_start(const Expr *e)
{
	for (;;) {
		switch (e->kind) {
		case E_BIN: case E_CMP: case E_AND: case E_OR:
		case E_INDEX: case E_ATTR:
			e = e->a;
			continue;
		case E_COND:
			e = e->b;
			continue;
		default:
			return e->pos;
		}
	}
}

bool evaluated_value(const Expr *x)
{
	if (x->kind != E_CALL)
		return true;
	int dt, id = call_builtin(x, NULL, &dt);
	return dt != DT_NONE || id == IN_CAST || id == IN_MIN || id == IN_MAX;
}

bool expr_int(const Expr *e, int64_t *v)
{
	if (e->kind == E_INT)
		return *v = e->ival, true;
	if (e->val && e->val->kind == V_INT)
		return *v = e->val->i, true;
	return false;
}

bool stmt_names_param(const Stmt *s)
{
	return s->kind == S_ASSIGN && s->ntargets == 1 && s->targets[0]->var && s->targets[0]->var->param;
}

void expr_set_args(Expr *e, Expr *const *v, int n)
{
	if (n <= 0)
		return;
	e->args = xalloc_vec(sizeof(Expr *), n);
	memcpy(e->args, v, sizeof(Expr *) * (size_t)n);
	e->nargs = n;
}
