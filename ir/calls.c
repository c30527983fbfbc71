/* Calls of builtins: each checked against its row of ir/intrin.def (the
 * number and kind of its operands, its keywords, its minimum target). */
#include <string.h>

#include "sema.h"

/* ---- calls of builtins -------------------------------------------------------- */

Kw *kwarg(Args *a, const char *name) { return call_kw(a->call, name); }

static const char *kind_name(char k)
{
	switch (k) {
	case 'e': return "a scalar expression";
	case 'i': return "an integer constant";
	case 's': return "a string constant";
	case 'd': return "a dtype";
	case 'b': return "a buffer";
	case 'r': return "a buffer region";
	case 'l': return "a list of integers";
	case 'a': return "an address (T.address_of(x) or a buffer)";
	case 'B': return "True or False";
	default: return "a value";
	}
}

/* One operand of kind k; NULL after an error. For runtime operands the
 * result is a V_VAR placeholder. */
static Value *operand(Sema *S, char k, Expr *x)
{
	Value *v;
	switch (k) {
	case 'e': {
		if (scalar(S, x) == DT_ERROR)
			return NULL;
		if (x->val)
			return x->val;
		return vnew(V_VAR);
	}
	case 'i': {
		int64_t i;
		return eval_int(S, x, "this operand", &i) ? vint(i) : NULL;
	}
	case 'd': {
		int dt = eval_dtype(S, x);
		if (!dt)
			return NULL;
		v = vnew(V_DTYPE);
		v->dtype = dt;
		return v;
	}
	case 'r':
		v = region(S, x);
		if (IS_ERR(v))
			return NULL;
		x->val = v; /* later passes read the region here */
		return v;
	case 'a':
		if (tvm_data_address(S, x) < 0)
			return NULL;
		v = x->kind == E_NAME ? eval(S, x) : NULL;
		if (IS_ERR(v))
			return NULL;
		if (v && v->kind == V_BUFFER && v->buffer->elem_offset) {
			/* a buffer placed at elem_offset= of its storage: its first element */
			Expr *n = new_expr(E_NAME, x->pos);
			*n = *x;
			tvm_first_element(n, v->buffer);
			x->kind = E_CALL;
			x->str = NULL;
			x->a = new_expr(E_ATTR, x->pos);
			x->a->a = new_name(x->pos, "T");
			x->a->str = "address_of";
			x->args = NULL;
			x->nargs = 0;
			call_add_arg(x, n);
			v = NULL;
		}
		if (v && v->kind == V_BUFFER)
			return v;
		if (scalar(S, x) == DT_ERROR)
			return NULL;
		if (x->dtype == DT_HANDLE)
			return vnew(V_VAR);
		break;
	case 'x':
		v = eval(S, x);
		return IS_ERR(v) ? NULL : v ? v : vnew(V_VAR);
	default: {
		v = eval_const(S, x, "this operand");
		if (IS_ERR(v))
			return NULL;
		bool ok = (k == 's' && v->kind == V_STR) || (k == 'b' && v->kind == V_BUFFER) ||
		          (k == 'B' && v->kind == V_BOOL);
		if (k == 'l' && v->kind == V_TUPLE) {
			ok = v->nelts > 0;
			for (int i = 0; i < v->nelts; i++)
				ok = ok && v->elts[i]->kind == V_INT;
		}
		if (ok)
			return v;
		break;
	}
	}
	error_at(S->d, x->pos, "expected %s here", kind_name(k));
	return NULL;
}

const char *fn_name(Expr *call) { return expr_str(call->a); }

bool check_args(Sema *S, Expr *call, int id, Args *a)
{
	const Intrin *in = &intrins[id];
	memset(a, 0, sizeof *a);
	a->call = call;
	a->in = in;
	a->id = id;
	int req = 0, max = 0;
	bool rest = false, opt = false;
	for (const char *p = in->args; *p; p++) {
		if (*p == '|')
			opt = true;
		else if (*p == '*')
			rest = true;
		else
			max++, req += !opt;
	}
	if (call->nargs < req || (!rest && call->nargs > max)) {
		const char *n = req == max && !rest ? xprintf("%d", req) :
		                call->nargs < req ? xprintf("at least %d", req) : xprintf("at most %d", max);
		error_at(S->d, call->pos, "%s() takes %s positional argument%s but %d %s given", fn_name(call), n,
		         (req == max && req == 1) || (call->nargs < req ? req : max) == 1 ? "" : "s", call->nargs,
		         call->nargs == 1 ? "was" : "were");
		return false;
	}
	if (call->nargs > MAX_OPERANDS) {
		error_at(S->d, call->args[MAX_OPERANDS]->pos, "too many arguments (at most %d)", MAX_OPERANDS);
		return false;
	}
	if (S->m->target != TG_ANY && !target_has(S->m->target, in->target)) {
		error_at(S->d, call->pos, "%s() needs %s; the target is %s", fn_name(call), target_names[in->target],
		         target_names[S->m->target]);
		return false;
	}
	call->intrin = id;
	bool ok = true;
	char last = 'x';
	const char *p = in->args;
	for (int i = 0; i < call->nargs; i++) {
		while (*p == '|')
			p++;
		char k = *p && *p != '*' ? *p++ : last;
		last = k;
		a->pos[i] = operand(S, k, call->args[i]);
		if (a->pos[i] && a->pos[i]->kind != V_VAR && !call->args[i]->val)
			call->args[i]->val = a->pos[i];
		ok = ok && a->pos[i];
	}
	a->npos = call->nargs;
	/* keywords: "name:kind" or "name:kind!" (required) */
	for (int i = 0; i < call->nkws; i++) {
		Kw *kw = &call->kws[i];
		const char *s = in->kws;
		char k = 0;
		size_t n = strlen(kw->name);
		while (*s) {
			if (strncmp(s, kw->name, n) == 0 && s[n] == ':') {
				k = s[n + 1];
				break;
			}
			s += strcspn(s, " ");
			s += strspn(s, " ");
		}
		if (!k && (id == IN_COPY || id == IN_COPY_ASYNC)) {
			int t = tvm_tile_kw(S, call, kw, id);
			if (t == 0) {
				ok = false;
				continue;
			}
			if (t > 0)
				k = (char)t;
		}
		if (!k) {
			Buf names = {0};
			bputs(&names, "");
			for (const char *t = in->kws; *t;) {
				bprintf(&names, "%s%.*s", names.n ? ", " : "", (int)strcspn(t, ":"), t);
				t += strcspn(t, " ");
				t += strspn(t, " ");
			}
			error_at(S->d, kw->pos, "%s() has no keyword argument '%s'%s%s", fn_name(call), kw->name,
			         names.n ? "; it takes " : "", names.s);
			ok = false;
			continue;
		}
		/* a plan's layouts are written by the passes with the builtin
		 * names S, R, ComposeLayout: a kernel's own `S` must not hide them */
		Env *env = S->env;
		if (id == IN_PLAN && (!strcmp(kw->name, "src") || !strcmp(kw->name, "dst")))
			S->env = S->builtins;
		Value *v = operand(S, k, kw->value);
		S->env = env;
		if (v && v->kind != V_VAR && !kw->value->val)
			kw->value->val = v; /* passes read keyword values here */
		ok = v && ok;
	}
	for (const char *s = in->kws; *s;) {
		size_t n = strcspn(s, ":");
		size_t m = strcspn(s, " ");
		if (s[m - 1] == '!') {
			char *name = xstrndup(s, n);
			if (!call_kw(call, name)) {
				error_at(S->d, call->pos, "%s() needs the keyword argument '%s'", fn_name(call), name);
				ok = false;
			}
		}
		s += m;
		s += strspn(s, " ");
	}
	return ok;
}


/* ---- addresses of vector accesses ------------------------------------------------- */

/* The buffer and storage offset (in elements) an address operand names:
 * a buffer, T.pointer_offset(B, e), T.address_of(B[...]), or a let-bound
 * name of one of these. NULL with *why when it is none of them. */
static Buffer *address(Sema *S, Expr *x, Expr **off, const char **why, int depth)
{
	if (depth > 8) {
		*why = "it is bound through too many names";
		return NULL;
	}
	if (x->kind == E_NAME && x->var && x->var->def)
		return address(S, x->var->def, off, why, depth + 1);
	Value *v = x->kind == E_NAME || (x->kind == E_CALL && x->intrin == IN_POINTER_OFFSET) ? x->val : NULL;
	if (x->kind == E_NAME) {
		v = eval(S, x);
		if (v && !IS_ERR(v) && v->kind == V_BUFFER) {
			*off = ex_int(0);
			return v->buffer;
		}
	}
	if (x->kind == E_CALL && x->intrin == IN_POINTER_OFFSET && x->nargs == 2) {
		v = eval(S, x->args[0]);
		if (v && !IS_ERR(v) && v->kind == V_BUFFER) {
			*off = x->args[1];
			return v->buffer;
		}
	}
	if (x->kind == E_CALL && x->intrin == IN_ADDRESS_OF && x->nargs == 1) {
		Expr *a = x->args[0];
		v = eval(S, a->kind == E_INDEX ? a->a : a);
		if (v && !IS_ERR(v) && v->kind == V_BUFFER) {
			if (a->kind != E_INDEX) {
				*off = ex_int(0);
				return v->buffer;
			}
			if (a->nargs == v->buffer->ndim && (*off = buffer_offset_expr(v->buffer, a->args, why)))
				return v->buffer;
			if (a->nargs != v->buffer->ndim)
				*why = "its index does not name one element";
			return NULL;
		}
	}
	*why = "it is not a buffer, T.pointer_offset(...), T.address_of(...) or a name bound to one";
	return NULL;
}

/* An access of `bytes` bytes at address operand k of a call: aligned to its
 * size and inside its buffer, for every value the names in its offset
 * take (their ranges, through the divisibility analysis). The backend and
 * the emulator read these addresses as they are: they are proven here. */
Buffer *address_buffer(Sema *S, Expr *x, const char **why)
{
	Expr *off = NULL;
	return address(S, x, &off, why, 0);
}

void check_access(Sema *S, Expr *call, int k, int64_t bytes, Expr *src_size, Expr *pred)
{
	Expr *x = call->args[k], *off = NULL;
	const char *why = NULL;
	Buffer *b = address(S, x, &off, &why, 0);
	const char *what = xprintf("%s() %s", fn_name(call), k == 0 ? "writes" : "reads");
	if (!b) {
		error_at(S->d, x->pos, "%s %lld bytes at '%s', whose bounds txc cannot check: %s", what, (long long)bytes,
		         expr_str(x), why);
		return;
	}
	if (b->scope == SC_TMEM)
		return;
	int64_t eb = dtype_bytes(b->dtype), mult = expr_multiple(off), lo, hi, bmult;
	if (mult < 0 || !mul_ok(mult, eb, &bmult) || (bmult % bytes && mult != 0)) {
		error_at(S->d, x->pos, "%s %lld bytes at element '%s' of '%s' (%lld-byte elements), which is not provably "
		         "a multiple of %lld bytes", what, (long long)bytes, expr_str(off), b->name, (long long)eb,
		         (long long)bytes);
		return;
	}
	/* cp.async's source: a predicate may mask the read, a source size
	 * shortens it */
	int64_t n;
	if (k == 1 && pred && !(pred->val && pred->val->kind == V_INT && pred->val->i == -1))
		return;
	if (k == 1 && src_size) {
		if (!(src_size->val && src_size->val->kind == V_INT) && src_size->kind != E_INT)
			return;
		n = src_size->kind == E_INT ? src_size->ival : src_size->val->i;
		if (n == 0)
			return;
		if (n > 0 && n < bytes)
			bytes = n;
	}
	int64_t size = buffer_storage(b), last;
	if (!expr_range(off, &lo, &hi)) {
		error_at(S->d, x->pos, "%s %lld bytes at element '%s' of '%s', which txc cannot bound (a name without a "
		         "known range)", what, (long long)bytes, expr_str(off), b->name);
		return;
	}
	if (mult > 0 && hi >= 0)
		hi -= hi % mult; /* a multiple of mult */
	if (lo < 0 || !mul_ok(hi, eb, &last) || !add_ok(last, bytes, &last) || last > size * eb)
		error_at(S->d, x->pos, "%s %lld bytes at element '%s' of '%s', which reaches bytes %lld to %lld; '%s' has %lld",
		         what, (long long)bytes, expr_str(off), b->name, (long long)(lo * eb),
		         (long long)(hi * eb + bytes), b->name, (long long)(size * eb));
}
