/* The checker: resolves every name, gives buffers their shape, dtype, scope
 * and layout, and checks the rules of doc/txir.md. It reports each error it
 * finds and goes on with the next statement. */
#include <string.h>

#include "sema.h"

bool prove_accesses;

/* ---- names ----------------------------------------------------------------- */

void push_env(Sema *S, bool module)
{
	Env *e = xalloc(sizeof *e);
	e->up = S->env;
	e->module = module;
	S->env = e;
}

void pop_env(Sema *S) { S->env = S->env->up; }

static Sym *find(Env *e, const char *name)
{
	if (!e->cap)
		return NULL;
	for (Sym *s = e->tab[str_hash(name) & (unsigned)(e->cap - 1)]; s; s = s->next)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

Sym *lookup(Sema *S, const char *name)
{
	for (Env *e = S->env; e; e = e->up) {
		Sym *s = find(e, name);
		if (s)
			return s;
	}
	return NULL;
}

static void insert(Env *e, Sym *s)
{
	if (2 * (e->n + 1) > e->cap) {
		int cap = e->cap ? 2 * e->cap : 16;
		Sym **tab = xalloc(sizeof(Sym *) * (size_t)cap);
		for (int i = 0; i < e->cap; i++)
			for (Sym *x = e->tab[i], *next; x; x = next) {
				next = x->next;
				unsigned h = str_hash(x->name) & (unsigned)(cap - 1);
				x->next = tab[h];
				tab[h] = x;
			}
		e->tab = tab;
		e->cap = cap;
	}
	unsigned h = str_hash(s->name) & (unsigned)(e->cap - 1);
	s->next = e->tab[h];
	e->tab[h] = s;
	e->n++;
}

/* A name is bound once in its block and may not hide a name of an
 * enclosing block of the same kernel (module names may be hidden). */
void define(Sema *S, const char *name, Value *v, Pos pos)
{
	for (Env *e = S->env; e; e = e->up) {
		Sym *old = find(e, name);
		if (old && old->pos.src) {
			error_at(S->d, pos, "'%s' is already defined (line %d); names are bound once", name, old->pos.line);
			return;
		}
		if (e->module)
			break;
	}
	Sym *s = xalloc(sizeof *s);
	s->name = name;
	s->val = v;
	s->pos = pos;
	insert(S->env, s);
	if (S->env->module) {
		vpush(S->m->names, S->m->nnames, ((struct Binding){ name, v }));
		map_put(&S->m->byname, name, v);
	}
}

Value *module_value(const Module *m, const char *name)
{
	return map_get(&m->byname, name);
}

static void predefine(Sema *S, const char *name, Value *v)
{
	Sym *s = xalloc(sizeof *s);
	s->name = name;
	s->val = v;
	insert(S->env, s);
}

static Value *meaning(const char *path)
{
	Value *v;
	if (strcmp(path, "T") == 0) {
		v = vnew(V_NAMESPACE);
		v->s = "T";
	} else if (strncmp(path, "axis.", 5) == 0) {
		v = vnew(V_AXIS);
		v->axis = axis_lookup(path + 5);
	} else if (intrin_lookup(path) >= 0) {
		v = vnew(V_FUNC);
		v->intrin = intrin_lookup(path);
	} else {
		v = vnew(V_NAMESPACE);
		v->s = path;
	}
	return v;
}

/* T, Tx, the layout names and axes, range and slice need no import. */
static void builtins(Sema *S)
{
	predefine(S, "T", meaning("T"));
	predefine(S, "Tx", meaning("T"));
	for (int i = 0; i < IN_COUNT; i++) {
		const char *p = intrins[i].path;
		if (strncmp(p, "layout.", 7) == 0)
			predefine(S, p + 7, meaning(p));
		else if (strncmp(p, "py.", 3) == 0)
			predefine(S, p + 3, meaning(p));
	}
	for (int a = 0; a < AX_COUNT; a++)
		predefine(S, axes[a].name, meaning(xprintf("axis.%s", axes[a].name)));
}

/* ---- tile ops ----------------------------------------------------------------------- */

static void copy(Sema *S, Expr *call, Value *fn)
{
	Args a;
	if (!check_args(S, call, fn->intrin, &a))
		return;
	if (!S->in_device) {
		error_at(S->d, call->pos, "%s() before T.device_entry()", fn_name(call));
		return;
	}
	call->es = (int)fn->i;
	Kw *plans = kwarg(&a, "plans");
	if (plans) {
		Expr *l = plans->value;
		if (l->kind != E_LIST) {
			error_at(S->d, l->pos, "plans= takes a list of T.plan(...)");
			return;
		}
		for (int i = 0; i < l->nargs; i++) {
			Expr *p = l->args[i];
			Value *pf = p->kind == E_CALL ? eval(S, p->a) : NULL;
			if (IS_ERR(pf))
				return;
			if (!pf || pf->kind != V_FUNC || pf->intrin != IN_PLAN) {
				error_at(S->d, p->pos, "plans= takes a list of T.plan(...)");
				return;
			}
			Args pa;
			if (!check_args(S, p, IN_PLAN, &pa))
				return;
			for (int k = 0; k < p->nkws; k++) {
				Value *v = p->kws[k].value->val;
				const char *n = p->kws[k].name;
				bool count = !strcmp(n, "vec") || !strcmp(n, "threads") || !strcmp(n, "outer");
				if (count && v && v->kind == V_INT && v->i <= 0) {
					error_at(S->d, p->kws[k].value->pos, "%s= of a plan must be positive", p->kws[k].name);
					return;
				}
			}
		}
	}
	Value *dst = a.pos[0], *src = a.pos[1];
	if (dst->buffer->dtype != src->buffer->dtype) {
		error_at(S->d, call->pos, "%s() from %s '%s' to %s '%s': tile copies do not convert dtypes",
		         fn_name(call), dtypes[src->buffer->dtype].name, src->buffer->name,
		         dtypes[dst->buffer->dtype].name, dst->buffer->name);
		return;
	}
	/* the extents must agree once extent-1 dimensions are dropped */
	int i = 0, j = 0;
	for (;;) {
		while (i < dst->ndim && dst->extents[i] == 1)
			i++;
		while (j < src->ndim && src->extents[j] == 1)
			j++;
		if (i == dst->ndim || j == src->ndim || dst->extents[i] != src->extents[j])
			break;
		i++, j++;
	}
	if (i != dst->ndim || j != src->ndim) {
		Buf d = {0}, s = {0};
		for (int k = 0; k < dst->ndim; k++)
			bprintf(&d, "%s%lld", k ? "x" : "", (long long)dst->extents[k]);
		for (int k = 0; k < src->ndim; k++)
			bprintf(&s, "%s%lld", k ? "x" : "", (long long)src->extents[k]);
		error_at(S->d, call->pos, "%s(): the destination region is %s but the source region is %s",
		         fn_name(call), d.s, s.s);
		return;
	}
}

/* ---- statements ---------------------------------------------------------------------- */

static void stmts(Sema *S, Stmt **v, int n);

static bool is_buffer_maker(int id)
{
	return id == IN_MATCH_BUFFER || id == IN_ALLOC_BUFFER || id == IN_ALLOC_SHARED ||
	       id == IN_ALLOC_LOCAL || id == IN_DECL_BUFFER;
}

static bool is_launch(int id) { return is_launch_id(id); }

/* Operand k of a call that writes it: a buffer element of the dtype that
 * `what` names. */
static void destination(Sema *S, Expr *e, int k, const char *what)
{
	Expr *d = e->args[k];
	Value *b = d->kind == E_INDEX ? eval(S, d->a) : NULL;
	int dt = d->dtype;
	bool ok = dt < DT_COUNT && (dtypes[dt].kind == DK_INT || dtypes[dt].kind == DK_UINT || dt == DT_BOOL);
	if (strstr(what, "64-bit"))
		ok = ok && dtypes[dt].bits == 64;
	else if (strstr(what, "32-bit"))
		ok = ok && (dtypes[dt].bits == 32 || dt == DT_BOOL);
	else
		ok = dt == DT_FLOAT32;
	if (!b || IS_ERR(b) || b->kind != V_BUFFER)
		error_at(S->d, d->pos, "%s() writes operand %d: a buffer element, not '%s'", fn_name(e), k + 1, expr_str(d));
	else if (!ok)
		error_at(S->d, d->pos, "%s() writes %s into '%s', which is %s", fn_name(e), what, expr_str(d), dtype_str(dt));
}

/* A call used as a statement. */
static void call_stmt(Sema *S, Expr *e, Stmt *s)
{
	if (e->kind != E_CALL) {
		error_at(S->d, e->pos, "this expression does nothing; a statement is a call, an assignment, if or for");
		return;
	}
	if (!ptx_rewrite(S, e))
		return;
	Value *fn = eval(S, e->a);
	if (IS_ERR(fn))
		return;
	if (e->a->kind == E_ATTR && strcmp(e->a->str, "view") == 0 && fn == NULL) {
		error_at(S->d, e->pos, "the result of view() is not used");
		return;
	}
	if (!fn || fn->kind != V_FUNC) {
		error_at(S->d, e->pos, "'%s' is %s, not a function", expr_str(e->a), fn ? value_kind_name(fn) : "not callable");
		return;
	}
	int id = fn->intrin;
	Args a;
	switch (id) {
	case IN_DEVICE_ENTRY:
		if (!check_args(S, e, id, &a))
			return;
		if (S->env->up && !S->env->up->module)
			error_at(S->d, e->pos, "T.device_entry() inside a loop or branch");
		else if (S->in_device)
			error_at(S->d, e->pos, "T.device_entry() appears twice");
		S->in_device = true;
		S->func->device_entry = true;
		return;
	case IN_COPY: case IN_COPY_ASYNC:
		copy(S, e, fn);
		return;
	case IN_EVALUATE:
		e->intrin = IN_EVALUATE;
		if (e->nargs != 1) {
			error_at(S->d, e->pos, "T.evaluate() takes one call");
			return;
		}
		call_stmt(S, e->args[0], s);
		return;
	default:
		if (is_launch(id)) {
			launch(S, e, id, NULL);
			return;
		}
		if (is_buffer_maker(id) || strncmp(intrins[id].path, "layout.", 7) == 0 || id == IN_CAST ||
		    id == IN_ADDRESS_OF || id == IN_MIN || id == IN_MAX || id == IN_SLICE || id == IN_RANGE ||
		    id == IN_POINTER_OFFSET || id == IN_PLAN || id == IN_TMEM_ADDR ||
		    id == IN_SERIAL || id == IN_UNROLL || id == IN_PRIM_FUNC || id == IN_HANDLE || id == IN_BUFFER_T) {
			error_at(S->d, e->pos, "the result of %s() is not used", fn_name(e));
			return;
		}
		if (!check_args(S, e, id, &a))
			return;
		if (!S->in_device)
			error_at(S->d, e->pos, "%s() before T.device_entry()", fn_name(e));
		/* the instructions that write registers: into buffer elements */
		if (id == IN_MAPA || id == IN_MBAR_TRY_PARITY)
			destination(S, e, 0, id == IN_MAPA ? "a 64-bit address (uint64 or int64)" :
			            "a 32-bit flag (uint32, int32 or bool)");
		for (int k = 0; k < 4 && id == IN_LD_SHARED_V4; k++)
			destination(S, e, k, "a float32");
		for (int k = 1; k < 5 && id == IN_ST_SHARED_V4; k++) {
			int dt = e->args[k]->dtype;
			if (dt != DT_FLOAT32 && dt != DT_WEAK_FLOAT && dt != DT_ERROR)
				error_at(S->d, e->args[k]->pos, "%s() stores float32 values, not %s; convert with T.cast",
				         fn_name(e), dtype_str(dt));
		}
		if ((id == IN_ST_SHARED_V4 || id == IN_LD_SHARED_V4) && prove_accesses)
			check_access(S, e, id == IN_ST_SHARED_V4 ? 0 : 4, 16, NULL, NULL);
		/* tcgen05.ld/st: the shape, the repetitions and their registers */
		if ((id == IN_TC_LD || id == IN_TC_ST) && a.pos[3] && a.pos[4]) {
			const char *shape = a.pos[3]->s;
			int64_t num = a.pos[4]->i, per = tcgen05_shape_regs(shape);
			if (!per)
				error_at(S->d, e->args[3]->pos, "tcgen05 shape \"%s\": txc emits 32x32b, 16x64b, 16x128b and 16x256b",
				         shape);
			else if (num < 1 || num * per > 128 || (num & (num - 1)))
				error_at(S->d, e->args[4]->pos, "tcgen05 .%s repeats 1, 2, 4, ... times, at most %lld (128 registers), "
				         "not %lld", shape, (long long)(128 / per), (long long)num);
			else if (e->nargs - 6 != num * per)
				error_at(S->d, e->pos, "tcgen05.%s .%s.x%lld takes %lld register%s, not %d", id == IN_TC_LD ? "ld" : "st",
				         shape, (long long)num, (long long)(num * per), num * per == 1 ? "" : "s", e->nargs - 6);
		}
		/* access sizes the instructions have */
		if ((id == IN_COPY_BYTES || id == IN_CP_ASYNC) && a.pos[2] && a.pos[2]->kind == V_INT) {
			int64_t n = a.pos[2]->i;
			bool ok = id == IN_CP_ASYNC ? n == 4 || n == 8 || n == 16 :
			          n == 1 || n == 2 || n == 4 || n == 8 || n == 16;
			if (!ok)
				error_at(S->d, e->args[2]->pos, "%s copies %s bytes, not %lld", fn_name(e),
				         id == IN_CP_ASYNC ? "4, 8 or 16" : "1, 2, 4, 8 or 16", (long long)n);
			else if (prove_accesses)
				for (int k = 0; k < 2; k++)
					check_access(S, e, k, n, id == IN_CP_ASYNC ? e->nargs > 5 ? e->args[5] : NULL : NULL,
					             id == IN_CP_ASYNC && e->nargs > 6 ? e->args[6] : NULL);
			const char *c = id == IN_CP_ASYNC && e->nargs > 7 && a.pos[7] ? a.pos[7]->s : "";
			if (*c && strcmp(c, "ca") && strcmp(c, "cg"))
				error_at(S->d, e->args[7]->pos, "the cache operator of cp.async is \"ca\" or \"cg\", not \"%s\"", c);
			else if (!strcmp(c, "cg") && n != 16)
				error_at(S->d, e->args[7]->pos, "cp.async.cg copies 16 bytes only, not %lld", (long long)n);
		}
	}
}

static Var *new_var(const char *name, Pos pos, int dt)
{
	Var *v = xalloc(sizeof *v);
	v->name = name;
	v->pos = pos;
	v->dtype = dt;
	return v;
}

static int concrete(int dt)
{
	return dt == DT_WEAK_INT ? DT_INT32 : dt == DT_WEAK_FLOAT ? DT_FLOAT32 : dt;
}

static void store(Sema *S, Stmt *s, Expr *t, Expr *value, int op)
{
	Value *bv = eval(S, t->a);
	if (IS_ERR(bv))
		return;
	if (!bv || bv->kind != V_BUFFER) {
		error_at(S->d, t->pos, "only buffer elements can be assigned to, not %s",
		         bv ? value_kind_name(bv) : "a runtime value");
		return;
	}
	int dt = scalar(S, t);
	int vt = scalar(S, value);
	if (dt == DT_ERROR || vt == DT_ERROR)
		return;
	if (!S->in_device) {
		error_at(S->d, s->pos, "a store before T.device_entry()");
		return;
	}
	if (op >= 0 && unify(S, s->pos, op_spelling[op], dt, vt) == DT_ERROR)
		return;
	bool fits = vt == dt || (vt == DT_WEAK_INT && dtypes[dt].kind != DK_BOOL) ||
	            (vt == DT_WEAK_FLOAT && dtypes[dt].kind == DK_FLOAT);
	if (!fits)
		error_at(S->d, value->pos, "cannot store %s into %s buffer '%s'; convert with T.cast", dtype_str(vt),
		         dtypes[dt].name, bv->buffer->name);
}

static bool assign1(Sema *S, Stmt *s);

/* A[...] with a slice, or a subscripted region name: a region, not an
 * element. */
static bool is_region_expr(Sema *S, Expr *e)
{
	for (int i = 0; i < e->nargs; i++)
		if (e->args[i]->kind == E_SLICE)
			return true;
	Value *b = eval(S, e->a);
	return b && !IS_ERR(b) && b->kind == V_REGION;
}

/* After an error the names are still bound, to a value that silences the
 * errors that would follow from their absence; so also when the value
 * failed silently, on a name poisoned by an earlier error. */
static void assign(Sema *S, Stmt *s)
{
	if (assign1(S, s))
		return;
	for (int i = 0; i < s->ntargets; i++) {
		Sym *old = s->targets[i]->kind == E_NAME ? lookup(S, s->targets[i]->str) : NULL;
		if (s->targets[i]->kind == E_NAME && (!old || !old->pos.src)) /* unbound, or a builtin's name */
			define(S, s->targets[i]->str, &verr, s->targets[i]->pos);
	}
}

static bool assign1(Sema *S, Stmt *s)
{
	Expr *value = s->value;
	if (s->ntargets == 1 && s->targets[0]->kind == E_TUPLE && !s->targets[0]->paren) {
		Stmt *u = new_stmt(S_ASSIGN, s->pos); /* `a, = x` */
		*u = *s;
		u->targets = s->targets[0]->args;
		u->ntargets = s->targets[0]->nargs;
		return assign1(S, u);
	}
	if (s->ntargets == 1 && s->targets[0]->kind == E_INDEX) {
		store(S, s, s->targets[0], value, -1);
		return true;
	}
	for (int i = 0; i < s->ntargets; i++)
		if (s->targets[i]->kind != E_NAME) {
			error_at(S->d, s->targets[i]->pos, "cannot assign to %s; assign to a name or a buffer element",
			         s->targets[i]->kind == E_TUPLE ? "a nested tuple" : expr_str(s->targets[i]));
			return false;
		}
	Value *v = NULL;
	bool in_func = S->func != NULL;
	if (value->kind == E_CALL && in_func) {
		Value *fn = eval(S, value->a);
		if (IS_ERR(fn))
			return false;
		Buffer *b = NULL;
		if (fn && fn->kind == V_FUNC && (is_buffer_maker(fn->intrin) || is_launch(fn->intrin))) {
			if (is_launch(fn->intrin)) {
				v = launch(S, value, fn->intrin, s);
				if (!v)
					return false;
				if (v->kind == V_TUPLE) {
					for (int i = 0; i < s->ntargets; i++)
						define(S, s->targets[i]->str, v->elts[i], s->targets[i]->pos);
					return true;
				}
			} else {
				b = make_buffer(S, s->targets[0]->str, s->targets[0]->pos, value, fn->intrin);
				if (!b)
					return false;
			}
		} else if (!fn && value->a->kind == E_ATTR && strcmp(value->a->str, "view") == 0) {
			Value *base = eval(S, value->a->a);
			if (IS_ERR(base))
				return false;
			if (base && base->kind == V_BUFFER) {
				b = make_view(S, s->targets[0]->str, s->targets[0]->pos, value, base->buffer);
				if (!b)
					return false;
			}
		}
		if (b) {
			if (s->ntargets != 1) {
				error_at(S->d, s->pos, "a buffer is assigned to one name");
				return false;
			}
			vpush(S->bufs, S->nbufs, b);
			v = vnew(V_BUFFER);
			v->buffer = b;
		}
	}
	if (!v && in_func && value->kind == E_INDEX && is_region_expr(S, value)) {
		/* a name for part of a buffer: X = A[r * 128 : r * 128 + 128, :] */
		v = region(S, value);
		if (IS_ERR(v))
			return false;
		value->val = v;
	}
	if (!v) {
		v = eval(S, value);
		if (IS_ERR(v))
			return false;
		if (v && (v->kind == V_VAR || v->kind == V_BUFFER || v->kind == V_HANDLE || v->kind == V_REGION ||
		          v->kind == V_DATA)) {
			error_at(S->d, value->pos, "'%s' is %s; a name cannot be bound to another name's %s", expr_str(value),
			         value_kind_name(v), v->kind == V_VAR ? "value (use it directly)" : "buffer");
			return false;
		}
		if (!v) {
			if (!in_func) {
				error_at(S->d, value->pos, "a module-level assignment must be a compile-time constant");
				return false;
			}
			int dt = scalar(S, value);
			if (dt == DT_ERROR)
				return false;
			if (s->ntargets != 1) {
				error_at(S->d, s->pos, "cannot unpack a scalar into %d names", s->ntargets);
				return false;
			}
			Var *var = new_var(s->targets[0]->str, s->targets[0]->pos, concrete(dt));
			s->targets[0]->var = var; /* the programs find it at its definition */
			var->def = value;
			var->mult = expr_multiple(value);
			int64_t lo, hi;
			if (expr_range(value, &lo, &hi) && hi < INT64_MAX) {
				var->lo = lo;
				var->hi = hi + 1;
			}
			v = vnew(V_VAR);
			v->var = var;
		}
	}
	if (s->ntargets == 1) {
		define(S, s->targets[0]->str, v, s->targets[0]->pos);
		return true;
	}
	if (v->kind != V_TUPLE || v->nelts != s->ntargets) {
		error_at(S->d, s->pos, "cannot unpack %s into %d names",
		         v->kind == V_TUPLE ? xprintf("%d values", v->nelts) : value_kind_name(v), s->ntargets);
		return false;
	}
	for (int i = 0; i < s->ntargets; i++)
		define(S, s->targets[i]->str, v->elts[i], s->targets[i]->pos);
	return true;
}

static void for_stmt(Sema *S, Stmt *s)
{
	Expr *t = s->targets[0], *it = s->value;
	Value *fn = it->kind == E_CALL ? eval(S, it->a) : NULL;
	if (IS_ERR(fn))
		return;
	if (!fn || fn->kind != V_FUNC || (fn->intrin != IN_RANGE && fn->intrin != IN_SERIAL && fn->intrin != IN_UNROLL)) {
		error_at(S->d, it->pos, "a loop runs over range(...), T.serial(...) or T.unroll(...)");
		return;
	}
	Args a;
	if (!check_args(S, it, fn->intrin, &a))
		return;
	if (t->kind != E_NAME) {
		error_at(S->d, t->pos, "a loop variable is one name");
		return;
	}
	int dt = DT_INT32;
	bool wide = false; /* a literal bound past int32: the variable is int64 */
	for (int i = 0; i < it->nargs; i++) {
		int d = it->args[i]->dtype;
		Value *c = it->args[i]->val;
		if (d == DT_WEAK_INT) {
			wide |= c && c->kind == V_INT && (c->i < INT32_MIN || c->i > INT32_MAX);
			continue;
		}
		if (d < DT_COUNT && (dtypes[d].kind == DK_INT || dtypes[d].kind == DK_UINT)) {
			dt = d;
			continue;
		}
		error_at(S->d, it->args[i]->pos, "loop bounds must be integers, not %s", dtype_str(d));
		return;
	}
	if (wide && dt == DT_INT32)
		dt = DT_INT64;
	Var *v = new_var(t->str, t->pos, dt);
	t->var = v; /* the backend declares it with this dtype */
	Expr *lo = it->nargs > 1 ? it->args[0] : NULL, *hi = it->args[it->nargs > 1 ? 1 : 0];
	if (it->nargs == 3) {
		int64_t step;
		if (!eval_int(S, it->args[2], "the loop step", &step))
			return;
		if (step <= 0) {
			error_at(S->d, it->args[2]->pos, "the loop step must be positive");
			return;
		}
	}
	int64_t l0 = 0, l1 = 0, h0, h1;
	if ((!lo || expr_range(lo, &l0, &l1)) && expr_range(hi, &h0, &h1) && h1 > l0) {
		v->lo = l0;
		v->hi = h1;
	}
	/* the values of the variable are lo + k * step: their common divisors */
	int64_t step = it->nargs == 3 ? it->args[2]->val->i : 1;
	int64_t start = lo ? expr_multiple(lo) : 0;
	while (step) {
		int64_t t = start % step;
		start = step;
		step = t;
	}
	v->mult = start;
	Value *val = vnew(V_VAR);
	val->var = v;
	push_env(S, false);
	define(S, t->str, val, t->pos);
	stmts(S, s->body, s->nbody);
	pop_env(S);
}

static void stmt(Sema *S, Stmt *s)
{
	switch (s->kind) {
	case S_PASS:
		return;
	case S_EXPR:
		call_stmt(S, s->value, s);
		return;
	case S_ASSIGN:
		assign(S, s);
		return;
	case S_AUGASSIGN:
		if (s->targets[0]->kind != E_INDEX) {
			error_at(S->d, s->pos, "cannot update '%s': names are bound once; accumulate in a buffer element",
			         expr_str(s->targets[0]));
			return;
		}
		store(S, s, s->targets[0], s->value, s->op);
		return;
	case S_IF: {
		int dt = scalar(S, s->value);
		if (dt != DT_ERROR && dt != DT_BOOL)
			error_at(S->d, s->value->pos, "an if condition must be a boolean (a comparison), not %s", dtype_str(dt));
		push_env(S, false);
		stmts(S, s->body, s->nbody);
		pop_env(S);
		push_env(S, false);
		stmts(S, s->orelse, s->norelse);
		pop_env(S);
		return;
	}
	case S_FOR:
		for_stmt(S, s);
		return;
	case S_IMPORT:
		error_at(S->d, s->pos, "imports belong at module level");
		return;
	case S_FUNC:
		error_at(S->d, s->pos, "a kernel cannot be defined inside another");
		return;
	}
}

static void stmts(Sema *S, Stmt **v, int n)
{
	for (int i = 0; i < n; i++)
		stmt(S, v[i]);
}

/* ---- kernels and the module ---------------------------------------------------------- */

static void param(Sema *S, Param *p)
{
	Value *v = NULL;
	if (p->type) {
		Expr *t = p->type;
		Value *tv = eval(S, t->kind == E_CALL ? t->a : t);
		if (IS_ERR(tv))
			return;
		if (tv && tv->kind == V_FUNC && tv->intrin == IN_HANDLE && t->kind != E_CALL) {
			Var *var = new_var(p->name, p->pos, DT_HANDLE);
			v = vnew(V_HANDLE);
			v->var = var;
		} else if (tv && tv->kind == V_FUNC && tv->intrin == IN_BUFFER_T && t->kind == E_CALL) {
			Args a;
			if (!check_args(S, t, IN_BUFFER_T, &a))
				return;
			Buffer *b = new_buffer(p->name, p->pos, t);
			if (!eval_shape(S, t->args[0], &b->shape, &b->ndim))
				return;
			b->dtype = a.pos[1]->dtype;
			b->scope = SC_GLOBAL;
			b->is_param = true;
			if (!set_layout(S, b, kwarg(&a, "layout")))
				return;
			vpush(S->func->params, S->func->nparams, b);
			vpush(S->bufs, S->nbufs, b);
			v = vnew(V_BUFFER);
			v->buffer = b;
		}
	}
	if (!v) {
		error_at(S->d, p->type ? p->type->pos : p->pos,
		         "parameter '%s' needs a type: T.handle, or T.Buffer(shape, dtype)", p->name);
		return;
	}
	define(S, p->name, v, p->pos);
}

static void check_thread_axes(Sema *S, Func *f)
{
	for (int i = 0; i < f->nbufs; i++) {
		Buffer *b = f->bufs[i];
		if (!b->layout || b->scope != SC_LOCAL)
			continue;
		for (int a = 0; a < AX_COUNT; a++) {
			if (axes[a].kind != AXK_THREAD)
				continue;
			int64_t span, lim = axes[a].extent;
			if (a == AX_TX)
				lim = f->threads;
			else if (a == AX_WARPID)
				lim = f->threads / 32;
			else if (a == AX_WGID)
				lim = f->threads / 128;
			if (!lim)
				continue;
			Layout *l = b->layout;
			bool used = l->off[a] != 0;
			for (int k = 0; k < l->nshard; k++)
				used |= l->shard[k].axis == a;
			for (int k = 0; k < l->nrep; k++)
				used |= l->rep[k].axis == a;
			if (used && layout_span(l, a, &span) && span > lim)
				error_at(S->d, b->pos, "the layout of '%s' reaches %s %lld, but the kernel has %lld", b->name,
				         axes[a].name, (long long)span - 1, (long long)lim);
		}
	}
}

static const char *target_label(int tg) { return tg == TG_ANY ? "any target" : target_names[tg]; }

/* The buffer of the kernel that takes its memory past `limit`: the first
 * whose end does, else the last of its kind (alignment padding did it). */
static Buffer *crossing(Func *f, bool shared, int64_t limit)
{
	Buffer *last = NULL;
	for (int i = 0; i < f->nbufs; i++) {
		Buffer *b = f->bufs[i];
		if (b->base || (shared ? !(scopes[b->scope].flags & SCF_SHARED) : b->scope != SC_LOCAL))
			continue;
		int64_t end;
		if (!mul_ok(buffer_storage(b), dtype_bytes(b->dtype), &end) ||
		    !add_ok(end, shared ? b->smem_off : b->local_off, &end) || end > limit)
			return b;
		last = b;
	}
	return last;
}

/* The shared memory a CTA and the local memory a thread need, against the
 * target's limits (target.def), reported at the buffer that crosses one. */
static void check_memory_limits(Sema *S, Func *f)
{
	const Target *tg = &targets[S->m->target];
	int64_t need[2] = { smem_bytes(f), local_plan(f) }, limit[2] = { tg->smem, tg->local };
	static const char *const what[2] = { "shared memory per CTA", "local memory per thread" };
	for (int k = 0; k < 2; k++) {
		Buffer *b = need[k] > limit[k] ? crossing(f, k == 0, limit[k]) : NULL;
		if (b)
			error_at(S->d, b->pos, "kernel '%s' needs %s bytes of %s, with '%s'; %s allows at most %lld (%lld KiB)",
			         f->name, need[k] == INT64_MAX ? "more than 2^63" : xprintf("%lld", (long long)need[k]),
			         what[k], b->name, target_label(S->m->target), (long long)limit[k],
			         (long long)(limit[k] >> 10));
	}
}

static void kernel(Sema *S, Stmt *s)
{
	bool prim = false;
	for (int i = 0; i < s->ndecorators; i++) {
		Value *v = eval(S, s->decorators[i]->kind == E_CALL ? s->decorators[i]->a : s->decorators[i]);
		if (IS_ERR(v))
			return;
		if (v && v->kind == V_FUNC && v->intrin == IN_PRIM_FUNC)
			prim = true;
		else
			error_at(S->d, s->decorators[i]->pos, "unknown decorator '%s'; kernels are @T.prim_func",
			         expr_str(s->decorators[i]));
	}
	if (!prim) {
		error_at(S->d, s->pos, "function '%s' is not a @T.prim_func kernel", s->name);
		return;
	}
	if (s->ret)
		error_at(S->d, s->ret->pos, "a kernel returns nothing");
	Func *f = xalloc(sizeof *f);
	f->name = s->name;
	f->stmt = s;
	f->grid[0] = f->grid[1] = f->grid[2] = 1;
	s->func = f;
	Value *fv = vnew(V_PRIMFUNC);
	fv->func = f;
	define(S, s->name, fv, s->pos);
	S->func = f;
	S->in_device = false;
	S->bufs = NULL;
	S->nbufs = 0;
	memset(S->launch, 0, sizeof S->launch);
	push_env(S, false);
	for (int i = 0; i < s->nparams; i++)
		param(S, &s->params[i]);
	int errors = S->d->errors;
	stmts(S, s->body, s->nbody);
	/* handles without a shape (unless a failed match_buffer explains it) */
	for (int i = 0; i < s->nparams && S->d->errors == errors; i++) {
		Sym *sym = find(S->env, s->params[i].name);
		if (!sym || sym->val->kind != V_HANDLE)
			continue;
		bool matched = false;
		for (int k = 0; k < f->nparams; k++)
			matched |= f->params[k]->param == sym->val->var;
		if (!matched)
			error_at(S->d, s->params[i].pos, "handle '%s' is never given a shape with T.match_buffer",
			         s->params[i].name);
	}
	/* the launch parameters, in signature order */
	Buffer **params = NULL;
	int nparams = 0;
	for (int i = 0; i < s->nparams; i++) {
		Sym *sym = find(S->env, s->params[i].name);
		for (int k = 0; sym && k < f->nparams; k++)
			if ((sym->val->kind == V_HANDLE && f->params[k]->param == sym->val->var) ||
			    (sym->val->kind == V_BUFFER && f->params[k] == sym->val->buffer))
				vpush(params, nparams, f->params[k]);
	}
	f->params = params;
	f->nparams = nparams;
	pop_env(S);
	S->func = NULL;
	f->bufs = S->bufs;
	f->nbufs = S->nbufs;
	S->bufs = NULL;
	S->nbufs = 0;
	if (S->d->errors > errors)
		return;
	if (!f->device_entry) {
		error_at(S->d, s->pos, "kernel '%s' has no T.device_entry()", s->name);
		return;
	}
	/* the thread count, from the first of thread_id, warp_id, warpgroup_id
	 * declared, else from the ids within a warpgroup or warp; then every
	 * thread launch id must declare the extent that count gives it */
	static const int order[] = { IN_THREAD_ID, IN_WARP_ID, IN_WARPGROUP_ID, IN_THREAD_ID_IN_WG, IN_WARP_ID_IN_WG,
	                             IN_LANE_ID };
	int64_t n = 1;
	int from = -1;
	for (size_t i = 0; i < sizeof order / sizeof order[0] && from < 0; i++)
		if (S->launch[order[i]]) {
			from = order[i];
			n = S->launch_ext[from] * thread_launch(from)->div;
		}
	f->threads = n;
	const Target *tg = &targets[S->m->target];
	if (n > tg->threads)
		error_at(S->d, S->launch_pos[from], "%lld threads per CTA; %s allows at most %lld", (long long)n,
		         target_label(S->m->target), (long long)tg->threads);
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		int id = order[i];
		const LaunchId *l = thread_launch(id);
		int64_t want = launch_extent(l, n);
		if (id == IN_LANE_ID && S->launch[id] && n % 32)
			error_at(S->d, S->launch_pos[id], "T.lane_id needs whole warps, but the CTA has %lld threads",
			         (long long)n);
		if (!S->launch[id] || id == from || id == IN_LANE_ID || S->launch_ext[id] == want)
			continue;
		if (!l->mod)
			error_at(S->d, S->launch_pos[id], "%s([%lld]) means %lld threads, but the CTA has %lld",
			         intrins[id].path, (long long)S->launch_ext[id], (long long)(S->launch_ext[id] * l->div),
			         (long long)n);
		else
			error_at(S->d, S->launch_pos[id], "%s([%lld]): a CTA of %lld threads has %lld %s in a warpgroup",
			         intrins[id].path, (long long)S->launch_ext[id], (long long)n, (long long)want,
			         l->div == 32 ? "warps" : "threads");
	}
	check_thread_axes(S, f);
	check_memory_limits(S, f);
}

static void import(Sema *S, Stmt *s)
{
	if (!s->from) {
		if (strcmp(s->module, "tvm") != 0 && strncmp(s->module, "tvm.", 4) != 0) {
			error_at(S->d, s->pos, "unknown module '%s'; txc programs import from tvm.script and tvm.tirx.layout",
			         s->module);
			return;
		}
		const char *name = s->name ? s->name : xstrndup(s->module, strcspn(s->module, "."));
		Value *v = vnew(V_NAMESPACE);
		v->s = name;
		define(S, name, v, s->pos);
		return;
	}
	for (int i = 0; i < s->naliases; i++) {
		Alias *a = &s->aliases[i];
		bool known;
		const char *path = import_lookup(s->module, a->name, &known);
		if (!known) {
			error_at(S->d, s->pos, "unknown module '%s'; txc programs import from tvm.script and tvm.tirx.layout",
			         s->module);
			return;
		}
		if (!path) {
			error_at(S->d, a->pos, "module '%s' has no name '%s' that txc knows", s->module, a->name);
			continue;
		}
		define(S, a->as ? a->as : a->name, meaning(path), a->pos);
	}
}

bool verify_module(Module *m, Diag *d)
{
	Sema S = {0};
	S.m = m;
	S.d = d;
	m->nnames = 0;
	m->byname = (Map){ 0 };
	int errors = d->errors;
	push_env(&S, true);
	builtins(&S);
	S.builtins = S.env;
	push_env(&S, true);
	for (int i = 0; i < m->nbody; i++) {
		Stmt *s = m->body[i];
		switch (s->kind) {
		case S_IMPORT:
			import(&S, s);
			break;
		case S_FUNC:
			kernel(&S, s);
			break;
		case S_ASSIGN:
			assign(&S, s);
			break;
		case S_PASS:
			break;
		default:
			error_at(d, s->pos, "only imports, constants and kernels belong at module level");
		}
	}
	/* a module of constants, or an empty one, is valid IR: txc-cuda,
	 * txc-emu and txc-run refuse it (find_kernel) */
	return d->errors == errors;
}
