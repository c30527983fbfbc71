/* The emulator's compiler: turns the checked syntax tree of one kernel into
 * CStmt/CExpr nodes, resolving once what the tree leaves implicit after
 * verify_module: which Var a statement defines (a slot per Var), which
 * buffer a name means (sema keeps no Buffer on names), which builtin a
 * callee names (through T, Tx and imported aliases), how each buffer's
 * elements are found. Anything that cannot be compiled becomes a node that
 * reports why when it runs, so code that never runs costs nothing. */
#include <string.h>

#include "emu-impl.h"

/* ---- maps -------------------------------------------------------------------------- */

typedef struct PMap {
	const void **key;
	void **val;
	int cap, n;
} PMap;

static unsigned phash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9u;
	return (unsigned)(x ^ (x >> 32));
}

static void *pget(const PMap *m, const void *k)
{
	if (!m->cap)
		return NULL;
	for (unsigned i = phash(k) & (unsigned)(m->cap - 1);; i = (i + 1) & (unsigned)(m->cap - 1)) {
		if (!m->key[i])
			return NULL;
		if (m->key[i] == k)
			return m->val[i];
	}
}

static void pput(PMap *m, const void *k, void *v)
{
	if (2 * (m->n + 1) > m->cap) {
		PMap g = { 0 };
		g.cap = m->cap ? 2 * m->cap : 64;
		g.key = xalloc(sizeof(void *) * (size_t)g.cap);
		g.val = xalloc(sizeof(void *) * (size_t)g.cap);
		for (int i = 0; i < m->cap; i++)
			if (m->key[i])
				pput(&g, m->key[i], m->val[i]);
		*m = g;
	}
	unsigned i = phash(k) & (unsigned)(m->cap - 1);
	while (m->key[i] && m->key[i] != k)
		i = (i + 1) & (unsigned)(m->cap - 1);
	if (!m->key[i])
		m->n++;
	m->key[i] = k;
	m->val[i] = v;
}

/* ---- the compiler's state ---------------------------------------------------------- */

typedef struct VarInfo {
	Var *var;
	int slot;
	int launch;          /* index in Prog.launch, or -1 */
	struct VarInfo *next; /* same name */
} VarInfo;

/* A kernel-level name: a buffer, or an integer constant. */
typedef struct Bind {
	const char *name;
	Buffer *buf;
	int64_t k;
} Bind;

typedef struct Comp {
	Module *m;
	Func *f;
	Prog *p;
	bool trace;
	PMap vars;      /* Var -> VarInfo */
	Map byname;     /* name -> the VarInfos of that name, chained by next */
	PMap accs;      /* Buffer -> Acc */
	Names env;      /* name -> Bind, popped at the end of a block */
} Comp;

static bool same_pos(Pos a, Pos b) { return pos_src(a) == pos_src(b) && a.off == b.off && a.line == b.line; }

/* The VarInfo of a definition's target: the Var sema recorded on it (a
 * let-bound or loop variable), else found by name and position. */
static VarInfo *var_at(Comp *C, const char *name, Pos p);
static VarInfo *target_var(Comp *C, const Expr *t)
{
	return t->var ? pget(&C->vars, t->var) : var_at(C, t->str, t->pos);
}

/* The Var named `name` that sema created at p (a let or loop target, or
 * the call of a launch id). */
static VarInfo *var_at(Comp *C, const char *name, Pos p)
{
	for (VarInfo *v = map_get(&C->byname, name); v; v = v->next)
		if (strcmp(v->var->name, name) == 0 && same_pos(v->var->pos, p))
			return v;
	return NULL;
}

static void bind(Comp *C, const char *name, Buffer *b, int64_t k)
{
	Bind *x = xalloc(sizeof *x);
	*x = (Bind){ name, b, k };
	names_bind(&C->env, name, x);
}

static Bind *lookup_name(Comp *C, const char *name) { return names_lookup(&C->env, name); }

static Buffer *buffer_named(Comp *C, const Expr *x)
{
	Bind *b = x && x->kind == E_NAME ? lookup_name(C, x->str) : NULL;
	return b ? b->buf : NULL;
}

/* ---- pass 1: every Var the kernel uses gets a slot -------------------------------- */

static void collect_expr(Comp *C, Expr *e)
{
	if (!e)
		return;
	if (e->var && !pget(&C->vars, e->var)) {
		VarInfo *v = xalloc(sizeof *v);
		v->var = e->var;
		v->slot = C->p->nslots++;
		v->launch = -1;
		if (e->var->launch) {
			v->launch = C->p->nlaunch;
			LaunchVar l = { v->slot, e->var->launch, 0 };
			Prog *p = C->p;
			p->launch = xrealloc(p->launch, sizeof l * (size_t)p->nlaunch, sizeof l * (size_t)(p->nlaunch + 1));
			p->launch[p->nlaunch++] = l;
		}
		pput(&C->vars, e->var, v);
		v->next = map_get(&C->byname, e->var->name);
		map_put(&C->byname, e->var->name, v);
	}
	collect_expr(C, e->a);
	collect_expr(C, e->b);
	collect_expr(C, e->c);
	for (int i = 0; i < e->nargs; i++)
		collect_expr(C, e->args[i]);
	for (int i = 0; i < e->nkws; i++)
		collect_expr(C, e->kws[i].value);
	if (e->val && e->val->kind == V_REGION)
		for (int i = 0; i < e->val->ndim; i++)
			if (e->val->starts[i] != e)
				collect_expr(C, e->val->starts[i]);
}

static void collect(Comp *C, Stmt **v, int n)
{
	for (int i = 0; i < n; i++) {
		Stmt *s = v[i];
		for (int k = 0; k < s->ntargets; k++)
			collect_expr(C, s->targets[k]);
		collect_expr(C, s->value);
		collect(C, s->body, s->nbody);
		collect(C, s->orelse, s->norelse);
	}
}

/* ---- buffers ------------------------------------------------------------------------ */

static Acc *acc_of(Comp *C, Buffer *b)
{
	Acc *a = pget(&C->accs, b);
	if (!a) {
		a = emu_acc(C->p, b);
		pput(&C->accs, b, a);
	}
	return a;
}

/* The buffer a statement `X = T.alloc_*(...)` / `X = Y.view(...)` makes. */
static Buffer *buffer_made_by(Comp *C, const Expr *call)
{
	for (int i = 0; i < C->f->nbufs; i++)
		if (C->f->bufs[i]->decl == call)
			return C->f->bufs[i];
	return NULL;
}

/* ---- callees --------------------------------------------------------------------------- */

typedef struct Callee {
	int id;    /* intrinsic, or -1 */
	int es;    /* execution scope of a tile op */
	int dtype; /* T.float16(x): the dtype, else DT_NONE */
} Callee;

/* The builtin a call names, as sema recorded it. */
static Callee resolve(const Expr *call)
{
	Callee k;
	k.id = call_builtin(call, &k.es, &k.dtype);
	return k;
}

static bool is_launch(int id) { return is_launch_id(id); }

/* ---- expressions ----------------------------------------------------------------------- */

/* The dtype a value is computed in: literals are int64 or float64 until
 * an operator gives them the other side's dtype. */
static int concrete(int dt)
{
	if (dt == DT_WEAK_FLOAT)
		return DT_FLOAT64;
	if (dt <= DT_NONE || dt >= DT_COUNT)
		return DT_INT64;
	return dt;
}

static bool weak(int dt) { return dt == DT_WEAK_INT || dt == DT_WEAK_FLOAT || dt == DT_NONE; }

static int unify_raw(int a, int b)
{
	if (a == b)
		return a;
	if (weak(a) && !weak(b))
		return b;
	if (weak(b) && !weak(a))
		return a;
	if (weak(a) && weak(b))
		return a == DT_WEAK_FLOAT || b == DT_WEAK_FLOAT ? DT_WEAK_FLOAT : DT_WEAK_INT;
	return a;
}

static CExpr *newx(int kind, Pos pos, int dtype)
{
	CExpr *x = xalloc(sizeof *x);
	x->kind = kind;
	x->pos = x->at = pos;
	x->dtype = dtype;
	return x;
}

static CExpr *fail_x(Pos pos, const char *msg)
{
	CExpr *x = newx(X_FAIL, pos, DT_INT64);
	x->msg = msg;
	return x;
}

static CExpr *const_int(Pos pos, int64_t v)
{
	CExpr *x = newx(X_CONST, pos, DT_INT64);
	x->k.i = v;
	return x;
}

static CExpr *const_val(const Expr *e, const Value *v)
{
	CExpr *x = NULL;
	switch (v->kind) {
	case V_INT:
		x = newx(X_CONST, e->pos, weak(e->dtype) || dt_float(concrete(e->dtype)) ? DT_INT64 : concrete(e->dtype));
		x->k.i = emu_wrap(v->i, x->dtype);
		break;
	case V_BOOL:
		x = newx(X_CONST, e->pos, DT_BOOL);
		x->k.i = v->i != 0;
		break;
	case V_FLOAT:
		x = newx(X_CONST, e->pos, DT_FLOAT64);
		x->k.i = (int64_t)emu_fencode(v->f, DT_FLOAT64);
		break;
	default:
		break;
	}
	return x;
}

static CExpr *cx(Comp *C, Expr *e);

static CExpr **cx_list(Comp *C, Expr **v, int n)
{
	CExpr **r = xalloc(sizeof(CExpr *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		r[i] = cx(C, v[i]);
	return r;
}

/* buf[i, j]: a load (or, for X_ADDR, its address). */
static CExpr *element(Comp *C, Expr *e, int kind)
{
	Buffer *b = buffer_named(C, e->a);
	if (!b)
		return fail_x(e->pos, xprintf("'%s' is not a buffer the emulator knows", expr_str(e->a)));
	if (e->nargs != b->ndim || b->ndim > EMU_MAX_DIMS)
		return fail_x(e->pos, xprintf("cannot index '%s' this way", b->name));
	for (int i = 0; i < e->nargs; i++)
		if (e->args[i]->kind == E_SLICE)
			return fail_x(e->args[i]->pos, "a slice is not an element");
	CExpr *x = newx(kind, e->pos, kind == X_LOAD ? b->dtype : DT_HANDLE);
	x->acc = acc_of(C, b);
	x->args = cx_list(C, e->args, e->nargs);
	x->nargs = e->nargs;
	return x;
}

/* An address operand: a buffer (its storage start), a buffer element,
 * T.address_of(...), or a handle value. */
static CExpr *caddr(Comp *C, Expr *e)
{
	Buffer *b = buffer_named(C, e);
	if (b) {
		CExpr *x = newx(X_ADDR, e->pos, DT_HANDLE);
		x->acc = acc_of(C, b);
		return x;
	}
	if (e->kind == E_INDEX && buffer_named(C, e->a))
		return element(C, e, X_ADDR);
	return cx(C, e);
}

static CExpr *ccall(Comp *C, Expr *e)
{
	Callee k = resolve(e);
	CExpr *x;
	if (k.dtype || k.id == IN_CAST) {
		if (e->nargs < 1)
			return fail_x(e->pos, "a conversion needs a value");
		int dt = k.dtype;
		if (!dt)
			dt = weak(e->dtype) || e->dtype >= DT_COUNT ? DT_NONE : e->dtype;
		if (!dt)
			return fail_x(e->pos, "cannot tell the dtype of this conversion");
		x = newx(X_CAST, e->pos, dt);
		x->args = cx_list(C, e->args, 1);
		x->nargs = 1;
		return x;
	}
	switch (k.id) {
	case IN_MIN: case IN_MAX:
		if (e->nargs != 2)
			break;
		x = newx(k.id == IN_MIN ? X_MIN : X_MAX, e->pos, concrete(e->dtype));
		x->args = cx_list(C, e->args, 2);
		x->nargs = 2;
		return x;
	case IN_POINTER_OFFSET: {
		Buffer *b = e->nargs == 2 ? buffer_named(C, e->args[0]) : NULL;
		if (!b)
			break;
		x = newx(X_PTR, e->pos, DT_HANDLE);
		x->acc = acc_of(C, b);
		x->args = cx_list(C, e->args + 1, 1);
		x->nargs = 1;
		return x;
	}
	case IN_ADDRESS_OF:
		if (e->nargs == 1)
			return caddr(C, e->args[0]);
		break;
	case IN_ELECT_SYNC:
		return newx(X_ELECT, e->pos, DT_BOOL);
	case IN_TMEM_ADDR: {
		/* base + (row << 16) + col, in uint32 (intrin.def) */
		if (e->nargs != 3)
			break;
		CExpr **a = cx_list(C, e->args, 3), *sh = newx(X_BIN, e->pos, DT_UINT32), *lo = newx(X_BIN, e->pos, DT_UINT32);
		sh->op = OP_SHL;
		sh->args = xalloc(sizeof(CExpr *) * 2);
		sh->args[0] = a[1];
		sh->args[1] = const_int(e->pos, 16);
		sh->nargs = 2;
		lo->op = OP_ADD;
		lo->args = xalloc(sizeof(CExpr *) * 2);
		lo->args[0] = a[0];
		lo->args[1] = sh;
		lo->nargs = 2;
		x = newx(X_BIN, e->pos, DT_UINT32);
		x->op = OP_ADD;
		x->args = xalloc(sizeof(CExpr *) * 2);
		x->args[0] = lo;
		x->args[1] = a[2];
		x->nargs = 2;
		return x;
	}
	default:
		break;
	}
	return fail_x(e->pos, xprintf("%s() has no value the emulator can compute", expr_str(e->a)));
}

static CExpr *cx1(Comp *C, Expr *e)
{
	if (e->val) {
		CExpr *x = const_val(e, e->val);
		if (x)
			return x;
	}
	CExpr *x;
	switch (e->kind) {
	case E_INT:
		return const_int(e->pos, e->ival);
	case E_FLOAT:
		x = newx(X_CONST, e->pos, DT_FLOAT64);
		x->k.i = (int64_t)emu_fencode(e->fval, DT_FLOAT64);
		return x;
	case E_TRUE: case E_FALSE:
		x = newx(X_CONST, e->pos, DT_BOOL);
		x->k.i = e->kind == E_TRUE;
		return x;
	case E_NAME: case E_ATTR: {
		if (e->var) {
			VarInfo *v = pget(&C->vars, e->var);
			if (!v)
				return fail_x(e->pos, xprintf("'%s' has no value here", e->var->name));
			x = newx(X_VAR, e->pos, e->var->dtype);
			x->slot = v->slot;
			return x;
		}
		Bind *b = e->kind == E_NAME ? lookup_name(C, e->str) : NULL;
		if (b && !b->buf)
			return const_int(e->pos, b->k);
		Value *v = e->kind == E_NAME && !b ? module_value(C->m, e->str) : NULL;
		if (v && (x = const_val(e, v)))
			return x;
		return fail_x(e->pos, xprintf("'%s' has no value the emulator can use", expr_str(e)));
	}
	case E_INDEX:
		return element(C, e, X_LOAD);
	case E_CALL:
		return ccall(C, e);
	case E_BIN:
		x = newx(X_BIN, e->pos, concrete(e->dtype));
		x->op = e->op;
		break;
	case E_UN:
		x = newx(X_UN, e->pos, concrete(e->dtype));
		x->op = e->op;
		x->args = cx_list(C, &e->a, 1);
		x->nargs = 1;
		return x;
	case E_CMP:
		x = newx(X_CMP, e->pos, DT_BOOL);
		x->op = e->op;
		x->cdt = concrete(unify_raw(e->a->dtype, e->b->dtype));
		break;
	case E_AND: case E_OR:
		x = newx(e->kind == E_AND ? X_AND : X_OR, e->pos, DT_BOOL);
		break;
	case E_NOT:
		x = newx(X_NOT, e->pos, DT_BOOL);
		x->args = cx_list(C, &e->a, 1);
		x->nargs = 1;
		return x;
	case E_COND: {
		x = newx(X_COND, e->pos, concrete(e->dtype));
		Expr *v[3] = { e->a, e->b, e->c };
		x->args = cx_list(C, v, 3);
		x->nargs = 3;
		return x;
	}
	default:
		return fail_x(e->pos, "this expression has no runtime value");
	}
	Expr *v[2] = { e->a, e->b };
	x->args = cx_list(C, v, 2);
	x->nargs = 2;
	return x;
}

/* A conversion, an operator or a comparison of constants is a constant
 * (unless it fails, which is then reported when it runs). */
static CExpr *fold(CExpr *x)
{
	for (int i = 0; i < x->nargs; i++)
		if (x->args[i]->kind != X_CONST)
			return x;
	EVal a = x->nargs > 0 ? x->args[0]->k : (EVal){ 0, NULL }, b = x->nargs > 1 ? x->args[1]->k : a, r;
	switch (x->kind) {
	case X_CAST:
		r = emu_conv(a, x->args[0]->dtype, x->dtype);
		break;
	case X_UN:
		r = emu_unop(x->op, x->dtype, emu_conv(a, x->args[0]->dtype, x->dtype));
		break;
	case X_BIN:
		if (emu_binop(x->op, x->dtype, emu_conv(a, x->args[0]->dtype, x->dtype),
		              emu_conv(b, x->args[1]->dtype, x->dtype), &r))
			return x;
		break;
	case X_CMP:
		r.i = emu_cmp(x->op, x->cdt, emu_conv(a, x->args[0]->dtype, x->cdt), emu_conv(b, x->args[1]->dtype, x->cdt));
		r.mem = NULL;
		break;
	default:
		return x;
	}
	x->kind = X_CONST;
	x->k = r;
	x->nargs = 0;
	return x;
}

static CExpr *cx(Comp *C, Expr *e)
{
	CExpr *x = fold(cx1(C, e));
	x->at = expr_start(e);
	return x;
}

/* An integer constant of the kernel: a literal, a module or kernel
 * constant, or arithmetic on them. */
static bool cfold(Comp *C, Expr *e, int64_t *out)
{
	int64_t a, b;
	switch (e->kind) {
	case E_INT:
		*out = e->ival;
		return true;
	case E_NAME: {
		Bind *k = lookup_name(C, e->str);
		if (k)
			return !k->buf && (*out = k->k, true);
		Value *v = module_value(C->m, e->str);
		return v && v->kind == V_INT && (*out = v->i, true);
	}
	case E_UN:
		return e->op == OP_NEG && cfold(C, e->a, &a) && a != INT64_MIN && (*out = -a, true);
	case E_BIN:
		if (!cfold(C, e->a, &a) || !cfold(C, e->b, &b))
			return false;
		switch (e->op) {
		case OP_ADD: case OP_SUB: case OP_MUL: case OP_FLOORDIV: case OP_MOD:
			return int_binop(e->op, a, b, out);
		default: return false;
		}
	default:
		return false;
	}
}

/* ---- statements --------------------------------------------------------------------- */

static CStmt **cblock(Comp *C, Stmt **v, int n, int depth);

static void set_fail(CStmt *c, const char *msg)
{
	c->kind = C_FAIL;
	c->msg = msg;
}

static const char *stmt_text(const Stmt *s)
{
	if (s->kind == S_IF)
		return xprintf("if %s:", expr_str(s->value));
	if (s->kind == S_FOR)
		return xprintf("for %s in %s:", expr_str(s->targets[0]), expr_str(s->value));
	if (s->kind == S_WHILE)
		return xprintf("while %s:", expr_str(s->value));
	Buf b = { 0 };
	print_stmt(&b, s, 0);
	if (!b.s)
		return "";
	b.s[strcspn(b.s, "\n")] = 0;
	return b.s;
}

static void cstore(Comp *C, CStmt *c, Expr *t, Expr *value, int op)
{
	Buffer *b = buffer_named(C, t->a);
	if (!b) {
		set_fail(c, xprintf("'%s' is not a buffer the emulator knows", expr_str(t->a)));
		return;
	}
	if (t->nargs != b->ndim || b->ndim > EMU_MAX_DIMS) {
		set_fail(c, xprintf("cannot index '%s' this way", b->name));
		return;
	}
	c->kind = C_STORE;
	c->acc = acc_of(C, b);
	c->idx = cx_list(C, t->args, t->nargs);
	c->value = cx(C, value);
	c->op = op;
	c->tpos = t->pos;
	c->dtype = b->dtype;
}

static void cassign(Comp *C, CStmt *c, Stmt *s)
{
	Expr **t = s->targets, *v = s->value;
	int nt = s->ntargets;
	if (nt == 1 && t[0]->kind == E_TUPLE && !t[0]->paren) {
		nt = t[0]->nargs;
		t = t[0]->args;
	}
	if (nt == 1 && t[0]->kind == E_INDEX) {
		cstore(C, c, t[0], v, -1);
		return;
	}
	for (int i = 0; i < nt; i++)
		if (t[i]->kind != E_NAME)
			return;
	if (v->kind == E_CALL) {
		Buffer *b = buffer_made_by(C, v);
		if (b) {
			if (nt == 1)
				bind(C, t[0]->str, b, 0);
			return;
		}
		if (is_launch(resolve(v).id)) {
			for (int i = 0; i < nt; i++) {
				VarInfo *vi = var_at(C, t[i]->str, v->pos);
				if (vi && vi->launch >= 0)
					C->p->launch[vi->launch].dim = i;
			}
			return;
		}
	}
	if (nt != 1 || (v->val && v->val->kind == V_REGION))
		return;
	VarInfo *vi = target_var(C, t[0]);
	if (vi || (v->dtype != DT_NONE && v->dtype != DT_ERROR)) {
		/* a runtime scalar; one nobody reads is still evaluated */
		c->kind = C_LET;
		c->slot = vi ? vi->slot : -1;
		c->dtype = vi ? vi->var->dtype : concrete(v->dtype);
		c->value = cx(C, v);
		return;
	}
	int64_t k;
	if (cfold(C, v, &k))
		bind(C, t[0]->str, NULL, k);
}

static void cfor(Comp *C, CStmt *c, Stmt *s, int depth)
{
	Expr *it = s->value, *t = s->targets[0];
	if (it->kind != E_CALL || it->nargs < 1 || it->nargs > 3) {
		set_fail(c, "cannot emulate this loop");
		return;
	}
	c->kind = C_FOR;
	int n = it->nargs;
	c->lo = n > 1 ? cx(C, it->args[0]) : const_int(it->pos, 0);
	c->hi = cx(C, it->args[n > 1 ? 1 : 0]);
	c->step = n == 3 ? cx(C, it->args[2]) : const_int(it->pos, 1);
	VarInfo *vi = t->kind == E_NAME ? target_var(C, t) : NULL;
	c->slot = vi ? vi->slot : -1;
	c->dtype = vi ? vi->var->dtype : DT_INT64;
	int mark = names_mark(&C->env);
	c->body = cblock(C, s->body, s->nbody, depth + 1);
	c->nbody = s->nbody;
	names_pop(&C->env, mark);
}

static bool cregion(Comp *C, Expr *x, Region *r)
{
	Value *v = x->val;
	if (!v || v->kind != V_REGION || v->ndim > EMU_MAX_DIMS)
		return false;
	r->acc = acc_of(C, v->buffer);
	r->ndim = v->ndim;
	r->starts = xalloc(sizeof(CExpr *) * (size_t)(v->ndim + 1));
	for (int i = 0; i < v->ndim; i++)
		r->starts[i] = cx(C, v->starts[i]);
	r->extents = v->extents;
	r->pos = x->pos;
	r->text = expr_str(x);
	return true;
}

static const char *str_const(Comp *C, Expr *e)
{
	if (e->kind == E_STR)
		return e->str;
	Value *v = e->kind == E_NAME ? module_value(C->m, e->str) : NULL;
	return v && v->kind == V_STR ? v->s : NULL;
}

static const char *space_name(int sp)
{
	switch (sp) {
	case SP_GLOBAL: return "global memory";
	case SP_SHARED: return "shared memory";
	case SP_LOCAL: return "registers";
	case SP_TMEM: return "tensor memory";
	default: return "an unknown memory";
	}
}

/* Tx[.scope].copy_async(dst, src, ...) runs as the variant it is
 * dispatched to (dispatch=), or else the one the table gives the operands'
 * memories and mbar= (variant_for), and completes as that variant's row
 * says (ir/completion.def): the completions whose "emulated" column is 1
 * are (a cp.async group, a bulk group, an mbarrier's transaction count,
 * tcgen05's wait::ld and wait::st: tensor memory <-> registers);
 * the others are reported when the copy runs, as not emulated yet. */
static void ccopy_async(Comp *C, CStmt *c, Expr *e, int es)
{
	if (e->nargs != 2 || !cregion(C, e->args[0], &c->dst) || !cregion(C, e->args[1], &c->src)) {
		set_fail(c, "cannot find the regions of this copy");
		return;
	}
	Kw *d = call_kw(e, "dispatch");
	const char *name = d ? str_const(C, d->value) : NULL;
	int ds = e->args[0]->val->buffer->scope, ss = e->args[1]->val->buffer->scope;
	bool mbar = call_kw(e, "mbar") != NULL;
	int v = name ? variant_lookup(IN_COPY_ASYNC, name) : variant_for(IN_COPY_ASYNC, ss, ds, mbar);
	const TvmVariant *tv = name && v < 0 ? tvm_variant_lookup(IN_COPY_ASYNC, name) : NULL;
	if (tv && !tv->why) /* TVM's name of txc's variants (tma_auto): the one the memories and mbar= call for */
		v = variant_for(IN_COPY_ASYNC, ss, ds, mbar);
	if (v < 0) {
		set_fail(c, name ? xprintf("copy_async through %s is not emulated yet (txc registers no such variant)", name) :
		         xprintf("copy_async from %s to %s%s is not emulated yet (no registered variant of copy_async moves it)",
		                 space_name(c->src.acc->space), space_name(c->dst.acc->space),
		                 mbar ? ", completing on an mbarrier (a TMA load)," : ""));
		return;
	}
	int done = variant_done(&variants[v], ds);
	if (!variant_moves(&variants[v], ss, ds)) {
		set_fail(c, xprintf("copy_async through %s moves only %s", variants[v].name, variant_moves_str(&variants[v])));
		return;
	}
	if (v == VA_DSMEM) { /* emu-copy.c: at once, into the remote CTA */
		Kw *mb = call_kw(e, "mbar"), *rk = call_kw(e, "remote_cta_id");
		if (!mb || !rk) {
			set_fail(c, "copy_async through dsmem needs mbar= and remote_cta_id=");
			return;
		}
		c->kind = C_DSMEM;
		c->scope = es;
		c->b = caddr(C, mb->value);
		c->value = cx(C, rk->value);
		return;
	}
	if (v == VA_TCGEN05_CP) { /* emu-tccp.c: at once, element by element; the caller commits */
		const Buffer *a = e->args[0]->val->buffer;
		while (a && !a->alloc_addr)
			a = a->base;
		if (!a) {
			set_fail(c, "copy_async through tcgen05_cp: the tensor memory has no allocated_addr=");
			return;
		}
		c->kind = C_TCCP;
		c->op = IN_COPY_ASYNC;
		c->a = cx(C, a->alloc_addr);
		return;
	}
	if (!completions[done].emulated) {
		set_fail(c, xprintf("copy_async through %s, which completes %s, is not emulated yet", variants[v].name,
		                    completions[done].name));
		return;
	}
	Kw *mb = call_kw(e, "mbar");
	if (done == DONE_MBAR_TX && !mb) {
		set_fail(c, xprintf("copy_async through %s completes on an mbarrier: it needs mbar=", variants[v].name));
		return;
	}
	c->kind = C_COPY_ASYNC;
	c->scope = es;
	c->done = done;
	if (done == DONE_TC_WAIT_LD || done == DONE_TC_WAIT_ST) { /* tensor memory <-> registers (emu-tmem.c) */
		if (es != ES_WARPGROUP) {
			set_fail(c, xprintf("copy_async through %s is a warpgroup's copy: write it as Tx.wg.copy_async, not at "
			                    "%s scope", variants[v].name, exec_scope_names[es]));
			return;
		}
		Buffer *t = (done == DONE_TC_WAIT_LD ? e->args[1] : e->args[0])->val->buffer;
		while (t && !t->alloc_addr)
			t = t->base;
		if (!t) {
			set_fail(c, "cannot find the allocated_addr= of this copy's tensor memory");
			return;
		}
		c->a = cx(C, t->alloc_addr);
		c->tc_half = tcgen05_half_slab(e->args[0]->val, e->args[1]->val);
	}
	if (done == DONE_MBAR_TX)
		c->b = caddr(C, mb->value);
	Kw *mask = call_kw(e, "cta_mask"); /* a tma load, multicast (sema checked); 0: none */
	int64_t m0;
	if (mask && cfold(C, mask->value, &m0) && m0 == 0)
		mask = NULL;
	if (mask && done != DONE_MBAR_TX)
		set_fail(c, "cta_mask= is for a copy_async from global to shared memory through tma");
	else if (mask)
		c->mask = cx(C, mask->value);
	Kw *p = call_kw(e, "predicate"); /* TVM's, at thread scope (sema checked) */
	if (p)
		c->opt[CP_PRED] = cx(C, p->value);
	Kw *oob = call_kw(e, "oob_fill"); /* a tma load past the edge (sema checked it) */
	const char *o = oob ? str_const(C, oob->value) : NULL;
	c->oob = !o ? -1 : !strcmp(o, "nan") ? EMU_FILL_NAN : EMU_FILL_ZERO;
	if (oob && (!o || done != DONE_MBAR_TX))
		set_fail(c, "oob_fill= is for a copy_async from global to shared memory through tma");
	Kw *red = call_kw(e, "reduce"); /* a tma store that combines (sema checked the name) */
	const char *r = red ? str_const(C, red->value) : NULL;
	c->red = r ? tma_red_op(r) + 1 : 0;
	if (red && (!c->red || done != DONE_BULK_GROUP))
		set_fail(c, "reduce= is for a copy_async from shared to global memory through tma");
}

/* T.ptx.cp_async(dst, src, cp_size[, cache_policy, prefetch_size,
 * src_size, predicate, cache_op]). */
static void ccp_async(Comp *C, CStmt *c, Expr *e)
{
	if (e->nargs < 3 || e->nargs > 3 + CP_NOPT + 1) {
		set_fail(c, "T.ptx.cp_async takes a destination, a source, a size and up to five optional operands");
		return;
	}
	c->kind = C_CP_ASYNC;
	c->a = caddr(C, e->args[0]);
	c->b = caddr(C, e->args[1]);
	int64_t n;
	c->n = cfold(C, e->args[2], &n) ? const_int(e->args[2]->pos, n) : cx(C, e->args[2]);
	c->n->at = expr_start(e->args[2]);
	for (int i = 0; i < CP_NOPT && 3 + i < e->nargs; i++)
		c->opt[i] = cx(C, e->args[3 + i]);
	c->cache = "";
	if (e->nargs > 3 + CP_NOPT)
		c->cache = str_const(C, e->args[3 + CP_NOPT]);
}

/* The bulk tensor copies: (rank, [shared address, [mbarrier,]] map,
 * coordinates...), the map resolved to its TensorMap (sema checked the
 * rank and the number of coordinates). */
static const TensorMap *param_map(Comp *C, Expr *x)
{
	for (int i = 0; x->kind == E_NAME && i < C->f->ntmaps; i++)
		if (strcmp(C->f->tmaps[i]->name, x->str) == 0)
			return C->f->tmaps[i];
	return NULL;
}

static void ctma(Comp *C, CStmt *c, Expr *e, int id)
{
	int map_at = id == IN_TMA_LOAD ? 3 : id == IN_TMA_PREFETCH ? 1 : 2;
	const TensorMap *t = e->nargs > map_at ? param_map(C, e->args[map_at]) : NULL;
	int64_t rank = 0;
	int ninfo = t && (id == IN_TMA_LOAD || id == IN_TMA_PREFETCH) ? tmap_info_count(t) : 0;
	if (e->nargs < 1 || !cfold(C, e->args[0], &rank) || rank < 1 || rank > TMAP_MAX_RANK ||
	    (t && rank != t->rank) || e->nargs != map_at + 1 + rank + ninfo) {
		set_fail(c, xprintf("cannot find the tensor map and coordinates of %s()", intrins[id].path));
		return;
	}
	c->kind = C_TMA;
	c->op = id;
	c->tmap = t;
	c->rank = (int)rank;
	if (!t)
		c->m = caddr(C, e->args[map_at]); /* a map in global memory */
	if (map_at > 1)
		c->a = caddr(C, e->args[1]);
	if (id == IN_TMA_LOAD)
		c->b = caddr(C, e->args[2]);
	Kw *mask = call_kw(e, "cta_mask");
	int64_t m0;
	if (mask && !(cfold(C, mask->value, &m0) && m0 == 0)) /* 0: no multicast, as TVM's default */
		c->mask = cx(C, mask->value);
	c->idx = cx_list(C, e->args + map_at + 1, c->rank + ninfo);
	if (id == IN_TMA_REDUCE) {
		Kw *op = call_kw(e, "red_op");
		const char *r = op ? str_const(C, op->value) : NULL;
		c->red = r ? tma_red_op(r) : -1;
		if (c->red < 0)
			set_fail(c, "cannot find the red_op= of this reduction");
	}
}

/* An instruction-descriptor encoder's M, N, trans_a, trans_b, neg_a and
 * neg_b, each a constant (sema), into v (absent: 0); false after set_fail. */
static bool idesc_fields(Comp *C, CStmt *c, Expr *e, int64_t v[6])
{
	static const char *const kw[6] = { "M", "N", "trans_a", "trans_b", "neg_a", "neg_b" };
	for (int i = 0; i < 6; i++) {
		Kw *x = call_kw(e, kw[i]);
		v[i] = 0;
		Value *xv = x ? x->value->val : NULL;
		if (xv && (xv->kind == V_INT || xv->kind == V_BOOL))
			v[i] = xv->i;
		else if (x && !cfold(C, x->value, &v[i])) {
			set_fail(c, "cannot find the operands of this instruction descriptor");
			return false;
		}
	}
	return true;
}

/* The n register operands of e from operand first on, into c->idx: a
 * buffer element names its 32-bit word (an address); a store also takes
 * a value. load: "a tcgen05.ld" ..., the instruction that writes them
 * (each must be an element), or NULL for a store. */
static void cregisters(Comp *C, CStmt *c, Expr *e, int first, int n, const char *load)
{
	c->nregs = n;
	c->idx = xalloc(sizeof(CExpr *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		Expr *r = e->args[first + i];
		c->idx[i] = r->kind == E_INDEX && buffer_named(C, r->a) ? caddr(C, r) : cx(C, r);
		if (load && c->idx[i]->kind != X_ADDR) {
			set_fail(c, xprintf("%s register must be a buffer element", load));
			return;
		}
	}
}

static void ccall_stmt(Comp *C, CStmt *c, Expr *e)
{
	if (e->kind != E_CALL)
		return;
	Callee k = resolve(e);
	switch (k.id) {
	case IN_EVALUATE:
		if (e->nargs == 1 && !evaluated_value(e->args[0])) {
			ccall_stmt(C, c, e->args[0]);
		} else if (e->nargs == 1) {
			/* T.evaluate(value): evaluated (its loads bounds-checked), then dropped */
			c->kind = C_LET;
			c->slot = -1;
			c->dtype = e->args[0]->dtype;
			c->value = cx(C, e->args[0]);
		}
		return;
	case IN_CTA_SYNC:
		c->kind = C_SYNC;
		return;
	case IN_CLUSTER_SYNC:
		/* the barrier of every thread of the cluster: the CTAs of a
		 * cluster run together (emu.c) */
		c->kind = C_CLUSTER_SYNC;
		return;
	case IN_MAPA:
		if (e->nargs != 3) {
			set_fail(c, "T.ptx.mapa takes a destination, an address and a CTA rank");
			return;
		}
		c->kind = C_MAPA;
		c->a = caddr(C, e->args[0]);
		c->b = caddr(C, e->args[1]);
		c->n = cx(C, e->args[2]);
		return;
	case IN_WARP_SYNC:
		c->kind = C_WARP_SYNC;
		return;
	case IN_STORAGE_SYNC: {
		const char *sc = e->nargs == 1 ? str_const(C, e->args[0]) : NULL;
		if (sc && (strcmp(sc, "shared") == 0 || strcmp(sc, "shared.dyn") == 0))
			c->kind = C_SYNC;
		else if (sc && strcmp(sc, "warp") == 0)
			c->kind = C_WARP_SYNC;
		else
			set_fail(c, xprintf("T.tvm_storage_sync(\"%s\") is not emulated", sc ? sc : "?"));
		return;
	}
	case IN_COPY:
		if (e->nargs != 2 || !cregion(C, e->args[0], &c->dst) || !cregion(C, e->args[1], &c->src)) {
			set_fail(c, "cannot find the regions of this copy");
			return;
		}
		c->kind = C_COPY;
		c->scope = k.es;
		return;
	case IN_COPY_ASYNC:
		ccopy_async(C, c, e, k.es);
		return;
	case IN_GEMM_ASYNC: { /* emu-gemm.c: at once, element by element; the caller commits */
		const char *why = gemm_async_why(e);
		if (why) {
			set_fail(c, xprintf("gemm_async through tcgen05_mma: %s", why));
			return;
		}
		if (e->nargs != 3 || !cregion(C, e->args[0], &c->dst) || !cregion(C, e->args[1], &c->src) ||
		    !cregion(C, e->args[2], &c->src2)) {
			set_fail(c, "cannot find the regions of this gemm_async");
			return;
		}
		const Buffer *a = e->args[0]->val->buffer;
		while (a && !a->alloc_addr)
			a = a->base;
		if (!a) {
			set_fail(c, "gemm_async through tcgen05_mma: the tensor memory has no allocated_addr=");
			return;
		}
		if (call_kw(e, "SFA")) { /* block-scaled: the scales' regions and allocated addresses */
			static const char *const nm[2] = { "SFA", "SFB" };
			c->sf = xalloc(sizeof(Region) * 2);
			for (int i = 0; i < 2; i++) {
				Kw *k = call_kw(e, nm[i]);
				const Buffer *sb = k ? k->value->val->buffer : NULL;
				while (sb && !sb->alloc_addr)
					sb = sb->base;
				if (!k || !sb || !cregion(C, k->value, &c->sf[i])) {
					set_fail(c, xprintf("cannot find the region of this gemm_async's %s=", nm[i]));
					return;
				}
				c->opt[i] = cx(C, sb->alloc_addr);
			}
		}
		c->kind = C_GEMM;
		c->a = cx(C, a->alloc_addr);
		Kw *acc = call_kw(e, "accum");
		c->value = acc ? cx(C, acc->value) : NULL;
		Kw *ta = call_kw(e, "transA"), *tb = call_kw(e, "transB");
		c->trans_a = ta && (ta->value->kind == E_TRUE || (ta->value->val && ta->value->val->kind == V_BOOL &&
		                                                  ta->value->val->i));
		c->trans_b = tb && (tb->value->kind == E_TRUE || (tb->value->val && tb->value->val->kind == V_BOOL &&
		                                                  tb->value->val->i));
		return;
	}
	case IN_PREFETCH: case IN_TMAP_PREFETCH: /* into L2 or a cache: nothing to do to the data */
		c->kind = C_NOP;
		return;
	case IN_CP_ASYNC:
		ccp_async(C, c, e);
		return;
	case IN_BULK_S2C:
		if (e->nargs != 5) {
			set_fail(c, "T.ptx.cp_async.bulk.s2c takes a destination, a source, a size, an mbarrier and a rank");
			return;
		}
		c->kind = C_BULK_S2C;
		c->a = caddr(C, e->args[0]);
		c->m = caddr(C, e->args[1]);
		c->n = cx(C, e->args[2]);
		c->b = caddr(C, e->args[3]);
		c->value = cx(C, e->args[4]);
		return;
	case IN_CP_COMMIT: case IN_BULK_COMMIT:
		c->kind = k.id == IN_CP_COMMIT ? C_CP_COMMIT : C_BULK_COMMIT;
		return;
	case IN_CP_WAIT: case IN_BULK_WAIT:
		c->kind = k.id == IN_CP_WAIT ? C_CP_WAIT : C_BULK_WAIT;
		if (e->nargs > 0 && !cfold(C, e->args[0], &c->wait))
			set_fail(c, xprintf("%s takes a constant N", intrins[k.id].path));
		return;
	case IN_TMA_LOAD: case IN_TMA_STORE: case IN_TMA_REDUCE: case IN_TMA_PREFETCH:
		ctma(C, c, e, k.id);
		return;
	case IN_TMAP_COPY: case IN_TMAP_REPLACE: case IN_TMAP_CP_FENCE: case IN_FENCE_TMAP: {
		const char *fname = k.id == IN_TMAP_REPLACE && e->nargs > 0 ? str_const(C, e->args[0]) : NULL;
		c->kind = C_TMAP;
		c->op = k.id;
		c->field = fname ? tm_field_lookup(fname) : -1;
		if (k.id == IN_TMAP_REPLACE && (c->field < 0 || e->nargs != 3 + tm_fields[c->field].ord)) {
			set_fail(c, "cannot find the field and operands of this tensormap.replace");
			return;
		}
		if (k.id == IN_TMAP_COPY && (e->nargs != 2 || !(c->tmap = param_map(C, e->args[1])))) {
			set_fail(c, "cannot find the tensor map T.cuda.copy_tensormap copies");
			return;
		}
		c->a = caddr(C, e->args[k.id == IN_TMAP_REPLACE]);
		if (k.id == IN_TMAP_CP_FENCE)
			c->b = caddr(C, e->args[1]);
		if (k.id == IN_TMAP_REPLACE) {
			if (tm_fields[c->field].ord)
				c->n = cx(C, e->args[2]);
			Expr *v = e->args[e->nargs - 1];
			c->value = c->field == TMF_ADDRESS && v->dtype == DT_HANDLE ? caddr(C, v) : cx(C, v);
		}
		return;
	}
	case IN_COPY_BYTES:
		if (e->nargs != 3 && e->nargs != 4) { /* "nc" reads the same bytes */
			set_fail(c, "T.cuda.copy_bytes takes a destination, a source and a size");
			return;
		}
		c->kind = C_COPY_BYTES;
		c->a = caddr(C, e->args[0]);
		c->b = caddr(C, e->args[1]);
		int64_t n;
		c->n = cfold(C, e->args[2], &n) ? const_int(e->args[2]->pos, n) : cx(C, e->args[2]);
		return;
	case IN_ZERO_BYTES:
		c->kind = C_ZERO_BYTES;
		c->a = caddr(C, e->args[0]);
		c->n = cfold(C, e->args[1], &n) ? const_int(e->args[1]->pos, n) : cx(C, e->args[1]);
		return;
	case IN_MATCH_BUFFER: /* an unbound one: the parameter's memory is the caller's */
		return;
	case IN_ASSUME:
		c->kind = C_ASSUME;
		c->value = cx(C, e->args[0]);
		c->msg = expr_str(e->args[0]);
		return;
	case IN_MBAR_INIT: case IN_MBAR_INVAL: case IN_MBAR_ARRIVE: case IN_MBAR_EXPECT: case IN_MBAR_WAIT:
	case IN_MBAR_TRY_PARITY: {
		bool dst = k.id == IN_MBAR_TRY_PARITY;
		if (e->nargs < 1 + dst) {
			set_fail(c, "cannot find the operands of this mbarrier builtin");
			return;
		}
		c->kind = C_MBAR;
		c->op = k.id;
		c->a = caddr(C, e->args[dst]);
		if (e->nargs > 1 + dst)
			c->n = cx(C, e->args[1 + dst]);
		if (dst)
			c->b = caddr(C, e->args[0]);
		return;
	}
	case IN_BAR_SYNC:
		if (e->nargs < 1) {
			set_fail(c, "barrier.sync takes a barrier");
			return;
		}
		c->kind = C_NAMED_BAR;
		c->op = k.id;
		c->a = cx(C, e->args[0]);
		if (e->nargs > 1)
			c->n = cx(C, e->args[1]);
		return;
	case IN_ST_SHARED_V4: case IN_LD_SHARED_V4: {
		bool st = k.id == IN_ST_SHARED_V4;
		if (e->nargs != 5) {
			set_fail(c, "a vector shared-memory access takes an address and four values");
			return;
		}
		c->kind = C_VEC_SHARED;
		c->op = k.id;
		c->a = caddr(C, e->args[st ? 0 : 4]);
		c->idx = xalloc(sizeof(CExpr *) * 4);
		for (int i = 0; i < 4; i++)
			c->idx[i] = st ? cx(C, e->args[1 + i]) : caddr(C, e->args[i]);
		return;
	}
	case IN_TC_ALLOC: case IN_TC_DEALLOC: case IN_TC_RELINQ: case IN_TC_WAIT_LD: case IN_TC_WAIT_ST: {
		/* tensor memory (emu-tmem.c): a the shared word (alloc) or the
		 * address (dealloc), n the columns */
		c->kind = C_TCGEN05;
		c->op = k.id;
		if (k.id == IN_TC_ALLOC || k.id == IN_TC_DEALLOC) {
			Kw *n = call_kw(e, "n_cols");
			if (e->nargs < 1 || !n) {
				set_fail(c, "cannot find the operands of this tcgen05 builtin");
				return;
			}
			c->a = k.id == IN_TC_ALLOC ? caddr(C, e->args[0]) : cx(C, e->args[0]);
			c->n = cx(C, n->value);
		}
		return;
	}
	case IN_LDMATRIX: case IN_STMATRIX: {
		int64_t num;
		Expr *tr = e->nargs > 1 ? e->args[1] : NULL;
		int64_t trans = !tr ? -1 : tr->kind == E_TRUE ? 1 : tr->kind == E_FALSE ? 0 : cfold(C, tr, &trans) ? trans != 0 : -1;
		if (e->nargs < 3 || !cfold(C, e->args[0], &num) || (num != 1 && num != 2 && num != 4) || trans < 0 ||
		    e->nargs != 3 + num) {
			set_fail(c, "cannot find the operands of this ldmatrix / stmatrix");
			return;
		}
		c->kind = C_MATRIX;
		c->op = k.id;
		c->tc_num = (int)num;
		c->trans = trans;
		c->a = caddr(C, e->args[2]);
		cregisters(C, c, e, 3, (int)num, k.id == IN_LDMATRIX ? "an ldmatrix" : NULL);
		return;
	}
	case IN_TC_LD: case IN_TC_ST: {
		/* a the address, b the row, n the column; idx the registers */
		const char *shape = e->nargs >= 6 ? str_const(C, e->args[3]) : NULL;
		int64_t num, pack;
		const Tcgen05Shape *sh = tcgen05_shape(shape);
		if (!sh || !cfold(C, e->args[4], &num) || num < 1 || num > sh->max_num) {
			set_fail(c, "cannot find the shape and num of this tcgen05 builtin");
			return;
		}
		Expr *pk = e->args[5];
		pack = pk->kind == E_TRUE ? 1 : pk->kind == E_FALSE ? 0 : cfold(C, pk, &pack) ? pack != 0 : -1;
		if (pack < 0 || e->nargs != 6 + num * sh->regs) {
			set_fail(c, "cannot find the operands of this tcgen05 builtin");
			return;
		}
		c->kind = C_TCGEN05;
		c->op = k.id;
		c->tc_shape = (int)(sh - tcgen05_shapes);
		c->tc_num = (int)num;
		c->tc_pack = (int)pack;
		c->a = cx(C, e->args[0]);
		c->b = cx(C, e->args[1]);
		c->n = cx(C, e->args[2]);
		cregisters(C, c, e, 6, (int)(num * sh->regs), k.id == IN_TC_LD ? "a tcgen05.ld" : NULL);
		return;
	}
	case IN_TC_CP: {
		/* a the address, b the row, n the column, value the descriptor */
		Kw *mk = call_kw(e, "multicast");
		const char *mc = mk ? str_const(C, mk->value) : "";
		const TccpShape *sh = e->nargs == 5 ? tccp_shape(str_const(C, e->args[3]), mc) : NULL;
		Kw *cg = call_kw(e, "cta_group");
		int64_t g = 1;
		if (!sh || (cg && !cfold(C, cg->value, &g))) {
			set_fail(c, "cannot find the shape and operands of this tcgen05.cp");
			return;
		}
		if (g != 1) {
			set_fail(c, "tcgen05.cp with cta_group=2 (a copy into the tensor memory of both CTAs of the pair) is not "
			         "emulated");
			return;
		}
		c->kind = C_TCCP;
		c->op = k.id;
		c->tc_shape = (int)(sh - tccp_shapes);
		c->a = cx(C, e->args[0]);
		c->b = cx(C, e->args[1]);
		c->n = cx(C, e->args[2]);
		c->value = cx(C, e->args[4]);
		return;
	}
	case IN_TC_COMMIT:
		if (e->nargs != 1) {
			set_fail(c, "tcgen05.commit takes the mbarrier");
			return;
		}
		c->kind = C_TCCP;
		c->op = k.id;
		c->a = caddr(C, e->args[0]);
		return;
	case IN_TC_SMEM_DESC: {
		/* sema moved ldo, sdo and swizzle to keywords */
		Kw *ldo = call_kw(e, "ldo"), *sdo = call_kw(e, "sdo"), *sw = call_kw(e, "swizzle"), *bo = call_kw(e, "base_offset");
		int64_t swz;
		if (e->nargs != 2 || !ldo || !sdo || !sw || !cfold(C, sw->value, &swz) || swz < 0 || swz >= SMEM_NSWIZZLES) {
			set_fail(c, "cannot find the operands of this descriptor");
			return;
		}
		c->kind = C_TCCP;
		c->op = k.id;
		c->a = caddr(C, e->args[0]);
		c->b = caddr(C, e->args[1]);
		c->field = smem_swizzles[swz].layout;
		c->idx = xalloc(sizeof(CExpr *) * 3);
		c->idx[0] = cx(C, ldo->value);
		c->idx[1] = cx(C, sdo->value);
		c->idx[2] = bo ? cx(C, bo->value) : const_int(e->pos, 0);
		return;
	}
	case IN_TC_MMA: {
		/* sema checked kind "f16" and that the masks are 0 */
		Kw *cg = call_kw(e, "cta_group");
		int64_t g = 1;
		if (e->nargs < 5 || (cg && !cfold(C, cg->value, &g))) {
			set_fail(c, "cannot find the operands of this tcgen05.mma");
			return;
		}
		if (g != 1) {
			set_fail(c, "tcgen05.mma with cta_group=2 (an MMA over the tensor memory of both CTAs of the pair) is not "
			         "emulated");
			return;
		}
		c->kind = C_TCMMA;
		c->op = k.id;
		c->a = cx(C, e->args[0]);
		c->b = cx(C, e->args[1]);
		c->n = cx(C, e->args[2]);
		c->value = cx(C, e->args[3]);
		c->m = cx(C, e->args[4]);
		Kw *sa = call_kw(e, "scale_a"), *sb = call_kw(e, "scale_b");
		if (sa && sb) { /* kind "mxf8f6f4" (sema): emu-mmas.c */
			c->opt[0] = cx(C, sa->value);
			c->opt[1] = cx(C, sb->value);
		}
		return;
	}
	case IN_TC_IDESC_BS: {
		/* every operand but a_sf_id / b_sf_id a constant (sema) */
		int64_t v[6];
		if (!idesc_fields(C, c, e, v))
			return;
		Kw *ak = call_kw(e, "a_dtype"), *bk = call_kw(e, "b_dtype");
		const MmasFormat *af = ak ? mmas_format_named(str_const(C, ak->value)) : NULL;
		const MmasFormat *bf = bk ? mmas_format_named(str_const(C, bk->value)) : NULL;
		if (!af || !bf) {
			set_fail(c, "cannot find the operands of this instruction descriptor");
			return;
		}
		c->kind = C_TCMMA;
		c->op = k.id;
		c->a = caddr(C, e->args[0]);
		Kw *ia = call_kw(e, "a_sf_id"), *ib = call_kw(e, "b_sf_id");
		c->b = ia ? cx(C, ia->value) : NULL;
		c->n = ib ? cx(C, ib->value) : NULL;
		c->wait = idescs_encode(af->code, bf->code, v[0], v[1], v[2], v[3], v[4], v[5], 0, 0);
		return;
	}
	case IN_TC_IDESC: {
		/* every operand a constant (sema) */
		int64_t v[6];
		if (!idesc_fields(C, c, e, v))
			return;
		Kw *ak = call_kw(e, "a_dtype"), *bk = call_kw(e, "b_dtype");
		const char *as = ak ? str_const(C, ak->value) : NULL, *bs = bk ? str_const(C, bk->value) : NULL;
		if (!as || !bs) {
			set_fail(c, "cannot find the operands of this instruction descriptor");
			return;
		}
		c->kind = C_TCMMA;
		c->op = k.id;
		c->a = caddr(C, e->args[0]);
		c->wait = idesc_encode(mma_itype_code(dtype_lookup(as)), mma_itype_code(dtype_lookup(bs)), v[0], v[1], v[2],
		                       v[3], v[4], v[5]);
		return;
	}
	case IN_FENCE_ASYNC:
		c->kind = C_FENCE_ASYNC;
		return;
	case IN_DEVICE_ENTRY: case IN_FENCE_MBAR: case IN_TC_FENCE_B: case IN_TC_FENCE_A:
		return; /* fences order memory; lockstep needs no ordering */
	case IN_ATTR:
		return; /* more dynamic shared memory than the buffers use changes nothing here */
	default:
		if (is_launch(k.id))
			return;
		if (k.id >= 0)
			set_fail(c, xprintf("%s() is not emulated yet", intrins[k.id].path));
		else
			set_fail(c, xprintf("cannot emulate a call of '%s'", expr_str(e->a)));
	}
}

/* Whether a statement of v (or nested in one) waits on an mbarrier: an if
 * over such a block may need its branches beside each other (emu-fiber.c). */
static bool may_wait(CStmt **v, int n)
{
	for (int i = 0; i < n; i++) {
		const CStmt *c = v[i];
		if (c->kind == C_MBAR && (c->op == IN_MBAR_WAIT || c->op == IN_MBAR_TRY_PARITY))
			return true;
		if (may_wait(c->body, c->nbody) || may_wait(c->orelse, c->norelse))
			return true;
	}
	return false;
}

static CStmt *cstmt(Comp *C, Stmt *s, int depth)
{
	CStmt *c = xalloc(sizeof *c);
	c->pos = s->pos;
	c->slot = -1;
	c->op = -1;
	if (C->trace)
		c->text = stmt_text(s);
	int mark = names_mark(&C->env);
	switch (s->kind) {
	case S_EXPR:
		ccall_stmt(C, c, s->value);
		break;
	case S_ASSIGN:
		c->pos = expr_start(s->targets[0]);
		if (stmt_names_param(s))
			break; /* m = T.int32(): a scalar parameter, its value given */
		cassign(C, c, s);
		break;
	case S_AUGASSIGN:
		c->pos = expr_start(s->targets[0]);
		if (s->ntargets == 1 && s->targets[0]->kind == E_INDEX) {
			cstore(C, c, s->targets[0], s->value, s->op);
		} else if (s->ntargets == 1 && s->targets[0]->var && pget(&C->vars, s->targets[0]->var)) {
			/* x op= v of a mutable variable: x = x op v in its dtype */
			VarInfo *vi = pget(&C->vars, s->targets[0]->var);
			CExpr *x = newx(X_BIN, s->pos, vi->var->dtype);
			x->op = s->op;
			Expr *v[2] = { s->targets[0], s->value };
			x->args = cx_list(C, v, 2);
			x->nargs = 2;
			c->kind = C_LET;
			c->slot = vi->slot;
			c->dtype = vi->var->dtype;
			c->value = x;
		} else {
			set_fail(c, "cannot emulate this update");
		}
		break;
	case S_DECL: {
		/* `x: T.int32`: the variable starts at 0, as txc-cuda declares it */
		VarInfo *vi = s->targets[0]->var ? pget(&C->vars, s->targets[0]->var) : NULL;
		c->kind = C_LET;
		c->slot = vi ? vi->slot : -1;
		c->dtype = vi ? vi->var->dtype : DT_INT32;
		c->value = const_int(s->pos, 0);
		break;
	}
	case S_IF:
		c->kind = C_IF;
		c->value = cx(C, s->value);
		c->body = cblock(C, s->body, s->nbody, depth + 1);
		c->nbody = s->nbody;
		names_pop(&C->env, mark);
		c->orelse = cblock(C, s->orelse, s->norelse, depth + 1);
		c->norelse = s->norelse;
		names_pop(&C->env, mark);
		c->fork = may_wait(c->body, c->nbody) || may_wait(c->orelse, c->norelse);
		break;
	case S_FOR:
		cfor(C, c, s, depth);
		break;
	case S_WHILE:
		c->kind = C_WHILE;
		c->value = cx(C, s->value);
		c->body = cblock(C, s->body, s->nbody, depth + 1);
		c->nbody = s->nbody;
		break;
	default:
		break;
	}
	return c;
}

static CStmt **cblock(Comp *C, Stmt **v, int n, int depth)
{
	if (depth > C->p->depth)
		C->p->depth = depth;
	CStmt **r = xalloc(sizeof(CStmt *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		r[i] = cstmt(C, v[i], depth);
	return r;
}

/* ---- the kernel ---------------------------------------------------------------------- */

Prog *emu_compile(Module *m, Func *f, bool trace)
{
	Prog *p = xalloc(sizeof *p);
	p->f = f;
	Comp C = { .m = m, .f = f, .p = p, .trace = trace };
	/* storage: shared buffers where smem_plan puts them, registers per
	 * thread, each array 16-byte aligned */
	p->smem_bytes = smem_plan(f);
	p->local_bytes = local_plan(f);
	for (int i = 0; i < f->nbufs; i++) {
		Buffer *b = f->bufs[i];
		if (b->base)
			continue;
		int fl = scopes[b->scope].flags;
		int64_t bytes;
		if (!(fl & (SCF_SHARED | SCF_THREAD)))
			continue; /* parameters are the caller's memory */
		if (!mul_ok(buffer_storage(b), dtype_bytes(b->dtype), &bytes) || bytes > ((int64_t)1 << 30)) {
			p->fail = xprintf("%s buffer '%s' is too large to emulate", scopes[b->scope].name, b->name);
			continue;
		}
		if (fl & SCF_SHARED) {
			vpush(p->shared, p->nshared, b);
		} else if ((fl & SCF_THREAD) && b->scope == SC_LOCAL) {
			p->local_off = xrealloc(p->local_off, sizeof(int64_t) * (size_t)p->nlocal,
			                        sizeof(int64_t) * (size_t)(p->nlocal + 1));
			vpush(p->local, p->nlocal, b);
			p->local_off[p->nlocal - 1] = b->local_off;
		}
	}
	if (!p->fail && (p->smem_bytes > ((int64_t)1 << 30) || p->local_bytes > ((int64_t)1 << 20)))
		p->fail = "the kernel's shared memory or registers are too large to emulate";
	collect(&C, f->stmt->body, f->stmt->nbody);
	p->scalar_slot = xalloc(sizeof(int) * (size_t)(f->nscalars + 1));
	for (int i = 0; i < f->nscalars; i++) {
		VarInfo *vi = pget(&C.vars, f->scalars[i]);
		p->scalar_slot[i] = vi ? vi->slot : -1;
	}
	/* parameters written T.Buffer(...) in the signature */
	for (int i = 0; i < f->stmt->nparams; i++) {
		Param *pa = &f->stmt->params[i];
		Buffer *b = pa->type ? buffer_made_by(&C, pa->type) : NULL;
		if (b)
			bind(&C, pa->name, b, 0);
	}
	p->body = cblock(&C, f->stmt->body, f->stmt->nbody, 0);
	p->nbody = f->stmt->nbody;
	return p;
}
