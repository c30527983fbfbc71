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
		v = x->kind == E_NAME ? eval(S, x) : NULL;
		if (IS_ERR(v))
			return NULL;
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

