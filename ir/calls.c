/* Calls of builtins: each checked against its row of ir/intrin.def (the
 * number and kind of its operands, its keywords, its minimum target). */
#include <string.h>

#include "sema.h"

/* ---- calls of builtins -------------------------------------------------------- */

Kw *kwarg(Args *a, const char *name) { return a->call->nkws ? call_kw(a->call, name) : NULL; }

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

/* What check_args gives a runtime operand: one placeholder for all, as its
 * readers only ask its kind (none writes a Value it is given). */
static Value runtime_operand = { .kind = V_VAR };

/* One operand of kind k; NULL after an error. For runtime operands the
 * result is the V_VAR placeholder. */
static Value *operand(Sema *S, char k, Expr *x)
{
	Value *v;
	switch (k) {
	case 'e': {
		if (scalar(S, x) == DT_ERROR)
			return NULL;
		if (x->val)
			return x->val;
		return &runtime_operand;
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
		v = x->kind == E_NAME ? eval_name(S, x) : NULL;
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
		if ((v ? scalar_named(S, x, v) : scalar(S, x)) == DT_ERROR)
			return NULL;
		if (x->dtype == DT_HANDLE)
			return &runtime_operand;
		break;
	case 'x':
		if (x->kind == E_CALL && x->nargs == 1 && !x->nkws && x->args[0]->kind == E_NAME &&
		    !strcmp(expr_str(x->a), "T.address_of")) {
			/* TVM's T.address_of(M) of a tensor map: the map itself */
			Sym *m = lookup(S, x->args[0]->str);
			if (m && m->val->kind == V_TMAP) {
				Pos p = x->pos;
				*x = *x->args[0];
				x->pos = p;
			}
		}
		v = eval(S, x);
		return IS_ERR(v) ? NULL : v ? v : &runtime_operand;
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

/* What a row's operand and keyword strings say of their counts, read once
 * per builtin: the rows are constant. */
static struct Arity {
	unsigned char req, max; /* operands required; at most (before a '*') */
	bool rest;              /* '*': the last kind repeats */
	bool required_kw;       /* a keyword marked '!' */
	bool read;
} arities[IN_COUNT];

static const struct Arity *arity(int id)
{
	struct Arity *r = &arities[id];
	if (r->read)
		return r;
	bool opt = false;
	for (const char *p = intrins[id].args; *p; p++) {
		if (*p == '|')
			opt = true;
		else if (*p == '*')
			r->rest = true;
		else
			r->max++, r->req += !opt;
	}
	r->required_kw = strchr(intrins[id].kws, '!') != NULL;
	r->read = true;
	return r;
}

bool check_args(Sema *S, Expr *call, int id, Args *a)
{
	const Intrin *in = &intrins[id];
	a->call = call;
	a->in = in;
	a->id = id;
	a->npos = 0;
	const struct Arity *ar = arity(id);
	int req = ar->req, max = ar->max;
	bool rest = ar->rest;
	/* the operands given are set below; those left out of the row's
	 * (optional ones, which readers test for NULL) and a few beyond are
	 * NULL. Not the whole array: it is 1 KB, and most calls have 2 or 3. */
	for (int i = call->nargs; i < max + 8 && i < MAX_OPERANDS; i++)
		a->pos[i] = NULL;
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
			         names.n ? "; it takes " : "", names.n ? names.s : "");
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
	/* (only a row that marks a keyword required with '!' has one) */
	for (const char *s = ar->required_kw ? in->kws : ""; *s;) {
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
	if (x->kind == E_NAME && x->var && x->var->base) {
		/* T.pointer_offset(B, e): B is what its name means here too (a
		 * buffer's name is bound in a block around the pointer's, and
		 * nothing hides it there) */
		*off = x->var->def->args[1];
		return x->var->base;
	}
	if (x->kind == E_NAME && x->var && x->var->def)
		return address(S, x->var->def, off, why, depth + 1);
	Value *v = x->kind == E_NAME || (x->kind == E_CALL && x->intrin == IN_POINTER_OFFSET) ? x->val : NULL;
	if (x->kind == E_NAME) {
		v = eval_name(S, x);
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

/* "f() writes" or "f() reads": how check_access's messages begin. */
static const char *access_what(Expr *call, int k)
{
	return xprintf("%s() %s", fn_name(call), k == 0 ? "writes" : "reads");
}

/* buffer_storage(b), kept by b's address: a kernel's accesses fall in a
 * few buffers (a lowered copy reads one and writes another, thousands of
 * times), and buffer_storage finds b's layout (a default one in a table)
 * and its span at each. The answer depends on b's scope, its layout and,
 * without one, its shape; a layout is not changed once a buffer holds it
 * (elem_offset= changes a copy: buffers.c), while a shape may be (a
 * pool's grows). A hit is the same buffer with the same scope, layout
 * and shape (the numbers compared, not the array's address), so the
 * same answer. */
enum { STORAGE_SETS = 32, STORAGE_DIMS = 4 };
static struct Storage {
	const Buffer *b;
	const Layout *layout;
	int scope, ndim;
	int64_t shape[STORAGE_DIMS];
	int64_t size;
} storage_kept[STORAGE_SETS];

static int64_t storage_of(const Buffer *b)
{
	struct Storage *k = &storage_kept[((uintptr_t)b >> 4) * 0x9E3779B97F4A7C15u >> 59];
	if (b->ndim > STORAGE_DIMS)
		return buffer_storage(b);
	if (k->b == b && k->layout == b->layout && k->scope == b->scope && k->ndim == b->ndim &&
	    !memcmp(k->shape, b->shape, sizeof(int64_t) * (size_t)b->ndim))
		return k->size;
	*k = (struct Storage){ b, b->layout, b->scope, b->ndim, { 0 }, buffer_storage(b) };
	memcpy(k->shape, b->shape, sizeof(int64_t) * (size_t)b->ndim);
	return k->size;
}

/* e without its integer casts, T.cast(x, "int64") (txc-lower's widening)
 * and T.cast(x, "int32") of a value that fits read as x */
static Expr *unwiden(const Expr *e)
{
	int64_t lo, hi;
	if (e->kind == E_CALL && e->intrin == IN_CAST && e->nargs == 2 && e->args[1]->kind == E_STR &&
	    (!strcmp(e->args[1]->str, "int64") ||
	     (!strcmp(e->args[1]->str, "int32") && expr_range(e->args[0], &lo, &hi) && lo >= INT32_MIN && hi <= INT32_MAX)))
		return unwiden(e->args[0]);
	Expr *c = expr_copy(e);
	if (e->kind == E_BIN) {
		c->a = unwiden(e->a);
		c->b = unwiden(e->b);
	}
	return c;
}

/* Whether an if around the access is txc-lower's guard of it, `off < m *
 * row` (either side maybe widened to 64 bits) with b's root of symbolic
 * extent m and row its elements a row: then the access lies below m rows,
 * so inside the bound, though its region may hang past the bound. */
static bool dyn_guarded(const Sema *S, const Buffer *b, const Expr *off, int64_t bytes)
{
	const Buffer *r = buffer_root((Buffer *)b);
	if (!r->dyn)
		return false;
	int64_t row = 1;
	for (int d = 1; d < r->ndim; d++)
		row *= r->shape[d];
	const char *want = expr_str(unwiden(off));
	for (int i = 0; i < S->nguards; i++) {
		const Expr *g = S->guards[i];
		if (g->kind != E_CMP || g->op != OP_LT)
			continue;
		Expr *rhs = unwiden(g->b);
		int64_t k = 1;
		if (rhs->kind == E_BIN && rhs->op == OP_MUL && rhs->b->kind == E_INT) {
			k = rhs->b->ival;
			rhs = rhs->a;
		}
		/* a vector never crosses the end (the row's elements times m's
		 * divisor are a multiple of its width) */
		if (rhs->kind != E_NAME || strcmp(rhs->str, r->dyn->name) || k != row ||
		    (row * (r->dyn->mult ? r->dyn->mult : 1) * dtype_bytes(r->dtype)) % bytes)
			continue;
		if (!strcmp(expr_str(unwiden(g->a)), want))
			return true;
	}
	return false;
}

/* A mutable variable in e of which nothing is known there, or NULL. */
static const Var *unknown_mut(const Expr *e)
{
	if (!e)
		return NULL;
	if (e->kind == E_NAME)
		return e->var && e->var->mut && e->var->hi <= e->var->lo ? e->var : NULL;
	const Var *v = NULL;
	if (e->kind == E_BIN || e->kind == E_UN || e->kind == E_COND) {
		v = unknown_mut(e->a);
		if (!v)
			v = unknown_mut(e->b);
		if (!v)
			v = unknown_mut(e->c);
	}
	for (int i = 0; !v && e->kind == E_CALL && i < e->nargs; i++)
		v = unknown_mut(e->args[i]);
	return v;
}

static void access_at(Sema *S, Expr *call, int k, int64_t bytes, int64_t align, Expr *src_size, Expr *pred);

void check_access(Sema *S, Expr *call, int k, int64_t bytes, Expr *src_size, Expr *pred)
{
	access_at(S, call, k, bytes, bytes, src_size, pred);
}

void check_span(Sema *S, Expr *call, int k, int64_t bytes, int64_t align)
{
	access_at(S, call, k, bytes, align, NULL, NULL);
}

static void access_at(Sema *S, Expr *call, int k, int64_t bytes, int64_t align, Expr *src_size, Expr *pred)
{
	Expr *x = call->args[k], *off = NULL;
	const char *why = NULL;
	if (S->dead) /* in a loop that never runs: no access is made */
		return;
	Buffer *b = address(S, x, &off, &why, 0);
	if (!b) {
		error_at(S->d, x->pos, "%s %lld bytes at '%s', whose bounds txc cannot check: %s", access_what(call, k),
		         (long long)bytes, expr_str(x), why);
		return;
	}
	if (b->scope == SC_TMEM)
		return;
	int64_t eb = dtype_bytes(b->dtype), mult, lo, hi, bmult;
	bool ranged = expr_range_multiple(off, &lo, &hi, &mult);
	if (mult < 0 || !mul_ok(mult, eb, &bmult) || (bmult % align && mult != 0)) {
		error_at(S->d, x->pos, "%s %lld bytes at element '%s' of '%s' (%lld-byte elements), which is not provably "
		         "a multiple of %lld bytes", access_what(call, k), (long long)bytes, expr_str(off), b->name,
		         (long long)eb, (long long)align);
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
	int64_t size = storage_of(b), last;
	if (!ranged) {
		const Var *mv = unknown_mut(off);
		if (mv)
			error_at(S->d, x->pos, "%s %lld bytes at element '%s' of '%s', which txc cannot bound: nothing is "
			         "known of variable '%s' (line %d) here; txc follows a variable through a loop where each "
			         "update is `%s += k` or `%s = %s + k`, k a constant or a name bound before the loop and not "
			         "negative, and a condition such as `while %s < n:` bounds it", access_what(call, k),
			         (long long)bytes, expr_str(off), b->name, mv->name, mv->pos.line, mv->name, mv->name, mv->name,
			         mv->name);
		else
			error_at(S->d, x->pos, "%s %lld bytes at element '%s' of '%s', which txc cannot bound (a name without "
			         "a known range)", access_what(call, k), (long long)bytes, expr_str(off), b->name);
		return;
	}
	if (mult > 0 && hi >= 0)
		hi -= hi % mult; /* a multiple of mult */
	if (lo < 0 || !mul_ok(hi, eb, &last) || !add_ok(last, bytes, &last) || (last > size * eb && !dyn_guarded(S, b, off, bytes)))
		error_at(S->d, x->pos, "%s %lld bytes at element '%s' of '%s', which reaches bytes %lld to %lld; '%s' has %lld",
		         access_what(call, k), (long long)bytes, expr_str(off), b->name, (long long)(lo * eb),
		         (long long)(hi * eb + bytes), b->name, (long long)(size * eb));
}


/* ---- the values operands take ---------------------------------------------------- */

/* Beyond its kind (intrin.def), an operand obeys the rules of the
 * instruction it becomes. They are checked here, at the operand, so that
 * txc-parse refuses what txc-cuda or txc-emu would: those trust them. */

static bool pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

/* cp.async's L2 prefetch (.L2::64B, .L2::128B, .L2::256B) */
bool l2_prefetch_size(int64_t n) { return n == 64 || n == 128 || n == 256; }

/* The cta_group of a tcgen05 instruction, 1 or 2, and one per kernel: PTX
 * refuses a kernel whose tcgen05 instructions mix cta_group::1 and
 * cta_group::2. Without the keyword it is 1, as txc-cuda emits it. */
static void cta_group(Sema *S, Expr *e, Args *a)
{
	Kw *k = kwarg(a, "cta_group");
	int64_t cg = k ? k->value->val->i : 1;
	Pos at = k ? k->value->pos : e->pos;
	const char *how = k ? "" : " (the default)";
	if (cg != 1 && cg != 2)
		error_at(S->d, at, "cta_group is 1 or 2, not %lld", (long long)cg);
	else if (!S->cta_group) {
		S->cta_group = cg;
		S->cta_group_at = at;
		S->cta_group_how = how;
	} else if (cg != S->cta_group)
		error_at(S->d, at, "cta_group=%lld%s, but the tcgen05 instruction at %d:%d has cta_group=%lld%s: the "
		         "tcgen05 instructions of a kernel take one cta_group", (long long)cg, how, S->cta_group_at.line,
		         S->cta_group_at.col, (long long)S->cta_group, S->cta_group_how);
}

/* One register operand of tcgen05.ld/st, ldmatrix or stmatrix (what the
 * instruction, family its register's name: "tcgen05", ...): a
 * buffer element is the 32-bit register that starts there (a float16
 * element and the next, or four 8-bit ones); a store also takes a 32-bit
 * value. */
static void word_register(Sema *S, Expr *x, bool ld, const char *what, const char *family)
{
	Value *v = x->kind == E_INDEX ? eval(S, x->a) : NULL;
	if (IS_ERR(v))
		return;
	if (v && v->kind == V_BUFFER) {
		Buffer *b = v->buffer;
		int bytes = dtype_bytes(b->dtype);
		const char *why = NULL;
		Expr *off = bytes < 4 ? buffer_offset_expr(b, x->args, &why) : NULL;
		if (bytes > 4)
			error_at(S->d, x->pos, "%s %s register holds 32 bits; '%s' is %s", family[0] == 'l' ? "an" : "a", family, b->name,
			         dtypes[b->dtype].name);
		else if (off && !expr_divisible(off, 4 / bytes))
			error_at(S->d, x->pos, "a register operand of %s starts a 32-bit word: its storage offset must be a "
			         "multiple of %d", dtypes[b->dtype].name, 4 / bytes);
		return;
	}
	int dt = x->dtype == DT_WEAK_INT ? DT_INT32 : x->dtype == DT_WEAK_FLOAT ? DT_FLOAT32 : x->dtype;
	if (ld)
		error_at(S->d, x->pos, "%s writes its registers: this operand must be a buffer element", what);
	else if (dt != DT_FLOAT32 && dt != DT_INT32 && dt != DT_UINT32 && dt != DT_ERROR)
		error_at(S->d, x->pos, "%s %s register holds 32 bits, not %s", family[0] == 'l' ? "an" : "a", family, dtype_str(dt));
}

/* ldmatrix/stmatrix(num, trans, address, registers...): .x1, .x2 or .x4,
 * num registers; the address is in shared memory (check_access proves
 * its 16 bytes inside and aligned). */
static void ldst_matrix(Sema *S, Expr *e, Args *a, bool ld)
{
	int64_t num = a->pos[0]->i;
	const char *what = ld ? "ldmatrix" : "stmatrix";
	if (num != 1 && num != 2 && num != 4) {
		error_at(S->d, e->args[0]->pos, "%s loads 1, 2 or 4 matrices (.x1, .x2, .x4), not %lld", what, (long long)num);
		return;
	}
	if (e->nargs - 3 != num) {
		error_at(S->d, e->pos, "%s .x%lld takes %lld register%s, not %d", what, (long long)num, (long long)num,
		         num == 1 ? "" : "s", e->nargs - 3);
		return;
	}
	Expr *off = NULL;
	const char *why = NULL;
	Buffer *b = address(S, e->args[2], &off, &why, 0);
	if (b && !(scopes[b->scope].flags & SCF_SHARED))
		error_at(S->d, e->args[2]->pos, "%s() %s rows of shared memory; '%s' is in %s memory", fn_name(e),
		         ld ? "reads" : "writes", b->name, scopes[b->scope].name);
	else if (b && off && !expr_divisible(off, 16 / dtype_bytes(b->dtype) ? 16 / dtype_bytes(b->dtype) : 1))
		error_at(S->d, e->args[2]->pos, "%s() takes a row of 16 aligned bytes; element '%s' of '%s' is not provably "
		         "a multiple of 16 bytes", fn_name(e), expr_str(off), b->name);
	for (int i = 3; i < e->nargs; i++)
		word_register(S, e->args[i], ld, what, what);
}

/* cp_async.bulk.s2c(dst, src, bytes, mbar, rank): shared memory all, the
 * bytes a positive multiple of 16 (check_span proves the spans and the
 * 16-byte alignment, the mbarrier's 8 bytes). */
static void bulk_s2c(Sema *S, Expr *e, Args *a)
{
	int64_t n = a->pos[2]->i;
	if (n <= 0 || n % 16)
		error_at(S->d, e->args[2]->pos, "cp.async.bulk moves a positive multiple of 16 bytes, not %lld", (long long)n);
	static const int ops[] = { 0, 1, 3 };
	static const char *const what[] = { "writes its destination in", "reads its source from", "completes on an mbarrier in" };
	for (int i = 0; i < 3; i++) {
		Expr *off = NULL;
		const char *why = NULL;
		Buffer *b = address(S, e->args[ops[i]], &off, &why, 0);
		if (b && !(scopes[b->scope].flags & SCF_SHARED))
			error_at(S->d, e->args[ops[i]]->pos, "%s() %s shared memory; '%s' is in %s memory", fn_name(e), what[i],
			         b->name, scopes[b->scope].name);
	}
}

/* tcgen05.ld/st(taddr, row, col, shape, num, pack, registers...): a shape
 * of tcgen05.def repeated num times, the shape's registers each time. */
static void tcgen05_ldst(Sema *S, Expr *e, Args *a, bool ld)
{
	const char *name = a->pos[3]->s;
	int64_t num = a->pos[4]->i;
	const Tcgen05Shape *s = tcgen05_shape(name);
	if (!s) {
		error_at(S->d, e->args[3]->pos, "tcgen05 shape \"%s\": txc emits %s", name, tcgen05_shape_list("and"));
		return;
	}
	if (!pow2(num) || num > s->max_num) {
		error_at(S->d, e->args[4]->pos, "tcgen05 .%s repeats 1, 2, 4, ... times, at most %d (%d registers), not %lld",
		         name, s->max_num, TCGEN05_MAX_REGS, (long long)num);
		return;
	}
	int64_t regs = num * s->regs;
	if (e->nargs - 6 != regs) {
		error_at(S->d, e->pos, "tcgen05.%s .%s.x%lld takes %lld register%s, not %d", ld ? "ld" : "st", name,
		         (long long)num, (long long)regs, regs == 1 ? "" : "s", e->nargs - 6);
		return;
	}
	for (int i = 6; i < e->nargs; i++)
		word_register(S, e->args[i], ld, ld ? "tcgen05.ld" : "tcgen05.st", "tcgen05");
}

static bool int_dtype(int dt, int bits);

/* A 64-bit integer operand (a descriptor): its dtype. */
static bool int64_operand(Sema *S, Expr *x, const char *what)
{
	int dt = x->dtype;
	if (dt == DT_WEAK_INT || dt == DT_ERROR || (dt > 0 && dt < DT_COUNT && (dtypes[dt].kind == DK_INT ||
	                                            dtypes[dt].kind == DK_UINT) && dtypes[dt].bits == 64))
		return true;
	error_at(S->d, x->pos, "%s is a 64-bit integer, not %s", what, dtype_str(dt));
	return false;
}

/* The value of x when it is an integer constant, or one in an integer
 * dtype's cast (T.uint64(N)); quietly false otherwise. */
static bool const_int64(Sema *S, Expr *x, int64_t *out)
{
	if (x->val && x->val->kind == V_INT)
		return *out = x->val->i, true;
	if (x->kind != E_CALL || x->nargs != 1 || x->nkws)
		return false;
	Diag *d = S->d, quiet = { .max_errors = -1 };
	S->d = &quiet;
	Value *f = eval(S, x->a), *v = NULL;
	if (f && !IS_ERR(f) && f->kind == V_DTYPE && (dtypes[f->dtype].kind == DK_INT || dtypes[f->dtype].kind == DK_UINT))
		v = eval(S, x->args[0]);
	S->d = d;
	if (!v || IS_ERR(v) || v->kind != V_INT)
		return false;
	*out = v->i;
	return true;
}

/* tcgen05.cp(taddr, row, col, shape, desc, multicast=, cta_group=): a
 * (shape, multicast) pair of tccp.def; a constant descriptor's fixed
 * fields. */
static void tcgen05_cp(Sema *S, Expr *e, Args *a)
{
	const char *shape = a->pos[3]->s;
	Kw *mk = kwarg(a, "multicast");
	const char *mc = mk && mk->value->val ? mk->value->val->s : "";
	bool known = false;
	Buf alts = {0};
	bputs(&alts, "");
	for (int i = 0; i < TCCP_NSHAPES; i++) {
		known |= !strcmp(tccp_shapes[i].shape, shape);
		if (!strcmp(tccp_shapes[i].shape, shape) && *tccp_shapes[i].multicast)
			bprintf(&alts, "%smulticast=\"%s\"", alts.n ? " or " : "", tccp_shapes[i].multicast);
	}
	if (!known)
		error_at(S->d, e->args[3]->pos, "tcgen05.cp shape \"%s\": PTX has 128x256b, 4x256b, 128x128b, 64x128b and "
		         "32x128b", shape);
	else if (!tccp_shape(shape, mc))
		error_at(S->d, mk ? mk->value->pos : e->args[3]->pos, "tcgen05.cp .%s %s%s%s", shape,
		         alts.n ? "takes " : "takes no multicast", alts.n ? alts.s : "", *mc ? xprintf(", not \"%s\"", mc) :
		         alts.n ? " (PTX requires one)" : "");
	Expr *d = e->args[4];
	int64_t k;
	if (int64_operand(S, d, "the shared-memory descriptor") && const_int64(S, d, &k)) {
		const char *why = smem_desc_invalid((uint64_t)k);
		if (why)
			error_at(S->d, d->pos, "the shared-memory descriptor 0x%016llx %s", (unsigned long long)k, why);
	}
	cta_group(S, e, a);
}

/* T.cuda.tcgen05.encode_matrix_descriptor(desc, addr, ldo, sdo, swizzle,
 * base_offset=): ldo, sdo and swizzle given as operands become keywords
 * (TVM writes either); desc a 64-bit integer element, addr a 16-byte
 * aligned shared address; the constant fields in range. */
static void smem_desc_operands(Sema *S, Expr *e, Args *a)
{
	static const char *const names[] = { "ldo", "sdo", "swizzle" };
	for (int i = 2; i < e->nargs; i++) {
		Kw *k = call_kw(e, names[i - 2]);
		if (k) {
			error_at(S->d, k->pos, "%s() has %s both as operand %d and as a keyword", fn_name(e), names[i - 2], i + 1);
			return;
		}
		call_add_kw(e, names[i - 2], e->args[i], e->args[i]->pos);
	}
	e->nargs = a->npos = e->nargs < 2 ? e->nargs : 2;
	for (int i = 0; i < 3; i++)
		if (!call_kw(e, names[i])) {
			error_at(S->d, e->pos, "%s() needs ldo, sdo and swizzle (as operands or keywords); %s is missing",
			         fn_name(e), names[i]);
			return;
		}
	const char *why = NULL;
	Expr *off = NULL;
	Buffer *b = address(S, e->args[0], &off, &why, 0);
	if (!b)
		error_at(S->d, e->args[0]->pos, "%s() writes the descriptor to a 64-bit integer element, whose place txc "
		         "cannot find: %s", fn_name(e), why);
	else if (dtype_bytes(b->dtype) != 8 || (dtypes[b->dtype].kind != DK_INT && dtypes[b->dtype].kind != DK_UINT))
		error_at(S->d, e->args[0]->pos, "%s() writes a 64-bit descriptor; '%s' is %s", fn_name(e), b->name,
		         dtypes[b->dtype].name);
	else if (buffer_root(b)->scope == SC_GLOBAL || buffer_root(b)->scope == SC_TMEM)
		error_at(S->d, e->args[0]->pos, "%s() writes the descriptor to registers or shared memory; '%s' is in %s "
		         "memory", fn_name(e), b->name, scopes[buffer_root(b)->scope].name);
	why = NULL;
	off = NULL;
	b = address(S, e->args[1], &off, &why, 0);
	if (!b) {
		error_at(S->d, e->args[1]->pos, "the matrix's start address must name a shared buffer: %s", why);
	} else if (!(scopes[buffer_root(b)->scope].flags & SCF_SHARED)) {
		error_at(S->d, e->args[1]->pos, "the matrix of a shared-memory descriptor is in shared memory; '%s' is in "
		         "%s memory", b->name, scopes[buffer_root(b)->scope].name);
	} else {
		int64_t eb = dtype_bytes(b->dtype), mult = expr_multiple(off), bm;
		if (mult < 0 || !mul_ok(mult, eb, &bm) || (bm % 16 && mult != 0))
			error_at(S->d, e->args[1]->pos, "the matrix's start address, element '%s' of '%s' (%lld-byte elements), "
			         "is not provably 16-byte aligned (the descriptor holds it >> 4)", expr_str(off), b->name,
			         (long long)eb);
	}
	static const struct { const char *name; int64_t hi; const char *what; } f[] = {
		{ "ldo", 0x3FFF, "the leading byte offset in 16-byte units, 0 to 16383" },
		{ "sdo", 0x3FFF, "the stride byte offset in 16-byte units, 0 to 16383" },
		{ "swizzle", SMEM_NSWIZZLES - 1, "0 (none), 1 (32B), 2 (64B), 3 (128B) or 4 (128B with 32-byte atoms)" },
		{ "base_offset", 7, "0 to 7 (bits [51:49])" },
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		Kw *k = call_kw(e, f[i].name);
		if (!k)
			continue;
		Value *v = k->value->val;
		if (v && v->kind == V_INT && (v->i < 0 || v->i > f[i].hi))
			error_at(S->d, k->value->pos, "%s is %s, not %lld", f[i].name, f[i].what, (long long)v->i);
		else if (i < 2 && !int_dtype(k->value->dtype, 32))
			error_at(S->d, k->value->pos, "%s is an integer, not %s", f[i].name, dtype_str(k->value->dtype));
	}
}

/* tcgen05.mma(d_taddr, a_desc, b_desc, idesc, enable_input_d[, masks],
 * kind=, cta_group=): kind "f16"; the descriptors 64-bit, the instruction
 * descriptor 32-bit, each checked when constant; the disable-output-lane
 * masks absent or all the constant 0 (doc/tcgen05-mma.md). */
static void tcgen05_mma(Sema *S, Expr *e, Args *a)
{
	Kw *kk = kwarg(a, "kind");
	bool bs = kk && kk->value->val && !strcmp(kk->value->val->s, "mxf8f6f4");
	bool known = !kk || !kk->value->val || bs || !strcmp(kk->value->val->s, "f16");
	if (!known)
		error_at(S->d, kk->value->pos, "tcgen05.mma kind \"%s\": txc emits .kind::f16 (float16 and bfloat16 "
		         "inputs, float32 accumulation) and .kind::mxf8f6f4 (block-scaled 8-, 6- and 4-bit inputs)",
		         kk->value->val->s);
	cta_group(S, e, a);
	Kw *ck = kwarg(a, "cta_group");
	int cg = ck && ck->value->val && ck->value->val->i == 2 ? 2 : 1;
	static const char *const scale_kw[2] = { "scale_a", "scale_b" };
	for (int i = 0; i < 2; i++) {
		Kw *sk = kwarg(a, scale_kw[i]);
		if (!known)
			break;
		if (!bs && sk)
			error_at(S->d, sk->value->pos, "%s= is the tensor-memory address of a block-scaled MMA's scales: "
			         "kind=\"mxf8f6f4\", not \"f16\"", scale_kw[i]);
		else if (bs && !sk)
			error_at(S->d, kk->value->pos, "tcgen05.mma kind=\"mxf8f6f4\" (.block_scale) takes %s=, the "
			         "tensor-memory address of %s's scales", scale_kw[i], i ? "B" : "A");
		else if (sk && !int_dtype(sk->value->dtype, 32) && sk->value->dtype != DT_ERROR)
			error_at(S->d, sk->value->pos, "%s= is a 32-bit tensor-memory address, not %s", scale_kw[i],
			         dtype_str(sk->value->dtype));
	}
	if (!int_dtype(e->args[0]->dtype, 32) && e->args[0]->dtype != DT_ERROR)
		error_at(S->d, e->args[0]->pos, "the accumulator's tensor-memory address is a 32-bit integer, not %s",
		         dtype_str(e->args[0]->dtype));
	for (int i = 1; i <= 2; i++) {
		Expr *d = e->args[i];
		int64_t k;
		if (int64_operand(S, d, i == 1 ? "A's shared-memory descriptor" : "B's shared-memory descriptor") &&
		    const_int64(S, d, &k)) {
			const char *why = smem_desc_invalid((uint64_t)k);
			if (why)
				error_at(S->d, d->pos, "the shared-memory descriptor 0x%016llx %s", (unsigned long long)k, why);
		}
	}
	Expr *id = e->args[3];
	int64_t k;
	if (!int_dtype(id->dtype, 32) && id->dtype != DT_ERROR)
		error_at(S->d, id->pos, "the instruction descriptor is a 32-bit integer, not %s", dtype_str(id->dtype));
	else if (const_int64(S, id, &k)) {
		const char *why = k < 0 || k > 0xFFFFFFFFll ? "does not fit 32 bits" :
		                  bs ? idescs_invalid((uint32_t)k, cg) : idesc_invalid((uint32_t)k, cg);
		if (why)
			error_at(S->d, id->pos, "the instruction descriptor 0x%08llx %s", (unsigned long long)k & 0xFFFFFFFFull,
			         why);
	}
	Expr *en = e->args[4];
	if (en->dtype != DT_BOOL && !int_dtype(en->dtype, 32) && en->dtype != DT_ERROR)
		error_at(S->d, en->pos, "enable_input_d is a boolean or a 32-bit integer, not %s", dtype_str(en->dtype));
	int masks = e->nargs - 5;
	if (masks && bs) {
		error_at(S->d, e->args[5]->pos, "a block-scaled tcgen05.mma (kind=\"mxf8f6f4\") has no disable-output-lane "
		         "masks");
		return;
	}
	if (masks && masks != 4 * cg) {
		error_at(S->d, e->args[5]->pos, "tcgen05.mma with cta_group %d takes %d disable-output-lane masks, not %d", cg,
		         4 * cg, masks);
		return;
	}
	for (int i = 5; i < e->nargs; i++)
		if (!const_int64(S, e->args[i], &k) || k != 0)
			error_at(S->d, e->args[i]->pos, "a disable-output-lane mask must be the constant 0: txc emits and runs "
			         "tcgen05.mma with every output lane enabled");
}

/* The first operand of an instruction-descriptor encoder: a 32-bit
 * integer element in registers or shared memory. */
static void idesc_place(Sema *S, Expr *e)
{
	const char *why = NULL;
	Expr *off = NULL;
	Buffer *b = address(S, e->args[0], &off, &why, 0);
	if (!b)
		error_at(S->d, e->args[0]->pos, "%s() writes the descriptor to a 32-bit integer element, whose place txc "
		         "cannot find: %s", fn_name(e), why);
	else if (dtype_bytes(b->dtype) != 4 || (dtypes[b->dtype].kind != DK_INT && dtypes[b->dtype].kind != DK_UINT))
		error_at(S->d, e->args[0]->pos, "%s() writes a 32-bit descriptor; '%s' is %s", fn_name(e), b->name,
		         dtypes[b->dtype].name);
	else if (buffer_root(b)->scope == SC_GLOBAL || buffer_root(b)->scope == SC_TMEM)
		error_at(S->d, e->args[0]->pos, "%s() writes the descriptor to registers or shared memory; '%s' is in %s "
		         "memory", fn_name(e), b->name, scopes[buffer_root(b)->scope].name);
}

/* An instruction-descriptor encoder's n_cta_groups, M, N and K against
 * the kind's shapes (invalid: its table's check; kind and kkind name it in
 * the two messages); false when n_cta_groups
 * is wrong (nothing more is checked). */
static bool idesc_shape(Sema *S, Args *a, const char *(*invalid)(int, int64_t, int64_t), const char *kind,
                        const char *kkind, int64_t k)
{
	Kw *gk = kwarg(a, "n_cta_groups");
	int64_t cg = gk ? gk->value->val->i : 1;
	if (cg != 1 && cg != 2) {
		error_at(S->d, gk->value->pos, "n_cta_groups is 1 or 2, not %lld", (long long)cg);
		return false;
	}
	Kw *mk = kwarg(a, "M"), *nk = kwarg(a, "N"), *kk = kwarg(a, "K");
	const char *bad = invalid((int)cg, mk->value->val->i, nk->value->val->i);
	if (bad)
		error_at(S->d, bad[0] == 'M' ? mk->value->pos : nk->value->pos, "%s shape: %s (PTX ISA Table 39)", kind, bad);
	if (kk->value->val->i != k)
		error_at(S->d, kk->value->pos, "K is %lld for %s, not %lld", (long long)k, kkind, (long long)kk->value->val->i);
	return true;
}

/* T.cuda.tcgen05.encode_instr_descriptor(desc, d_dtype=, a_dtype=,
 * b_dtype=, M=, N=, K=, trans_a=, trans_b=, n_cta_groups=, neg_a=,
 * neg_b=, sat_d=, is_sparse=): TVM's builtin, for dense .kind::f16 with D
 * in float32; desc a 32-bit integer element in registers or shared
 * memory. */
static void idesc_operands(Sema *S, Expr *e, Args *a)
{
	idesc_place(S, e);
	Kw *dk = kwarg(a, "d_dtype"), *ak = kwarg(a, "a_dtype"), *bk = kwarg(a, "b_dtype");
	if (dtype_lookup(dk->value->val->s) != DT_FLOAT32)
		error_at(S->d, dk->value->pos, "d_dtype is \"float32\": txc emits .kind::f16 with float32 accumulation, not "
		         "\"%s\"", dk->value->val->s);
	int at = dtype_lookup(ak->value->val->s), bt = dtype_lookup(bk->value->val->s);
	if (mma_itype_code(at) < 0)
		error_at(S->d, ak->value->pos, "a_dtype is \"float16\" or \"bfloat16\" (.kind::f16), not \"%s\"",
		         ak->value->val->s);
	else if (mma_itype_code(bt) < 0)
		error_at(S->d, bk->value->pos, "b_dtype is \"float16\" or \"bfloat16\" (.kind::f16), not \"%s\"",
		         bk->value->val->s);
	else if (at != bt)
		error_at(S->d, bk->value->pos, "b_dtype \"%s\" differs from a_dtype \"%s\": txc requires A and B of one type",
		         bk->value->val->s, ak->value->val->s);
	if (!idesc_shape(S, a, mma_shape_invalid, "tcgen05.mma .kind::f16", "tcgen05.mma .kind::f16", MMA_K))
		return;
	static const char *const off_only[] = { "sat_d", "is_sparse" };
	for (int i = 0; i < 2; i++) {
		Kw *k = kwarg(a, off_only[i]);
		if (k && k->value->val->i)
			error_at(S->d, k->value->pos, "%s=True: %s", off_only[i], i == 0 ? "saturation is for .kind::i8 only" :
			         "txc emits dense tcgen05.mma only");
	}
}

/* T.cuda.tcgen05.encode_instr_descriptor_block_scaled(desc, d_dtype=,
 * a_dtype=, b_dtype=, sfa_dtype=, sfb_dtype=, sfa_tmem_addr=,
 * sfb_tmem_addr=, M=, N=, K=, trans_a=, trans_b=, n_cta_groups=, neg_a=,
 * neg_b=, is_sparse=, a_sf_id=, b_sf_id=): TVM's builtin (its encoder
 * reads neither tensor-memory address), for the dense .kind::mxf8f6f4
 * with UE8M0 scales; a_sf_id / b_sf_id are txc's. */
static void idescs_operands(Sema *S, Expr *e, Args *a)
{
	idesc_place(S, e);
	Kw *dk = kwarg(a, "d_dtype");
	if (dtype_lookup(dk->value->val->s) != DT_FLOAT32)
		error_at(S->d, dk->value->pos, "d_dtype is \"float32\": a block-scaled tcgen05.mma accumulates in float32, "
		         "not \"%s\"", dk->value->val->s);
	static const char *const ab[2] = { "a_dtype", "b_dtype" }, *const sf[2] = { "sfa_dtype", "sfb_dtype" };
	const MmasFormat *fmt[2];
	for (int i = 0; i < 2; i++) {
		Kw *k = kwarg(a, ab[i]);
		fmt[i] = mmas_format_named(k->value->val->s);
		if (!fmt[i])
			error_at(S->d, k->value->pos, "%s is one of %s (.kind::mxf8f6f4), not \"%s\"", ab[i], mmas_format_names(),
			         k->value->val->s);
		k = kwarg(a, sf[i]);
		if (mmas_scale_code(k->value->val->s) < 0)
			error_at(S->d, k->value->pos, "%s is \"float8_e8m0fnu\" (UE8M0, the scale type of .kind::mxf8f6f4 "
			         "with .scale_vec::1X), not \"%s\"", sf[i], k->value->val->s);
	}
	static const char *const tr[2] = { "trans_a", "trans_b" };
	for (int i = 0; i < 2; i++) {
		Kw *k = kwarg(a, tr[i]);
		if (fmt[i] && fmt[i]->dt == DT_NONE && k->value->val->i)
			error_at(S->d, k->value->pos, "%s=True: only 8-bit A and B may be MN-major (%s is \"%s\"; CUTLASS's "
			         "InstrDescriptor: \"Major value of 1 is only valid for E4M3, E5M2, ...\")", tr[i], ab[i],
			         fmt[i]->name);
	}
	if (!idesc_shape(S, a, mmas_shape_invalid, "block-scaled tcgen05.mma .kind::mxf8f6f4",
	                 "a dense tcgen05.mma .kind::mxf8f6f4", MMAS_K))
		return;
	Kw *sp = kwarg(a, "is_sparse");
	if (sp && sp->value->val->i)
		error_at(S->d, sp->value->pos, "is_sparse=True: txc emits dense tcgen05.mma only");
	static const char *const ids[2] = { "a_sf_id", "b_sf_id" };
	for (int i = 0; i < 2; i++) {
		Kw *k = kwarg(a, ids[i]);
		int64_t v;
		if (!k)
			continue;
		if (!int_dtype(k->value->dtype, 32) && k->value->dtype != DT_ERROR)
			error_at(S->d, k->value->pos, "%s is an integer, not %s", ids[i], dtype_str(k->value->dtype));
		else if (const_int64(S, k->value, &v) && (v < 0 || v > 3))
			error_at(S->d, k->value->pos, "%s is 0 to 3 (the byte of the 32-bit scale cell), not %lld", ids[i],
			         (long long)v);
	}
}

/* The sizes of T.cuda.copy_bytes and T.ptx.cp_async, cp.async's cache
 * operator and prefetch, and the addresses they read and write. */
static void access_sizes(Sema *S, Expr *e, int id, Args *a)
{
	int64_t n = a->pos[2]->i;
	bool ok = id == IN_CP_ASYNC ? n == 4 || n == 8 || n == 16 : n == 1 || n == 2 || n == 4 || n == 8 || n == 16;
	if (!ok)
		error_at(S->d, e->args[2]->pos, "%s copies %s bytes, not %lld", fn_name(e),
		         id == IN_CP_ASYNC ? "4, 8 or 16" : "1, 2, 4, 8 or 16", (long long)n);
	else if (prove_accesses)
		for (int k = 0; k < 2; k++)
			check_access(S, e, k, n, id == IN_CP_ASYNC ? e->nargs > 5 ? e->args[5] : NULL : NULL,
			             id == IN_CP_ASYNC && e->nargs > 6 ? e->args[6] : NULL);
	if (id == IN_COPY_BYTES && e->nargs > 3) {
		const char *why = NULL;
		Buffer *b = address_buffer(S, e->args[1], &why);
		const char *bad = ld_quals_check(a->pos[3]->s);
		if (bad)
			error_at(S->d, e->args[3]->pos, "T.cuda.copy_bytes: %s", bad);
		else if (!b)
			error_at(S->d, e->args[1]->pos, "\"%s\" qualifies a global load; txc cannot tell what '%s' addresses: %s",
			         a->pos[3]->s, expr_str(e->args[1]), why);
		else if (b->scope != SC_GLOBAL)
			error_at(S->d, e->args[1]->pos, "\"%s\" qualifies a global load, and '%s' is in %s memory", a->pos[3]->s,
			         b->name, scopes[b->scope].name);
	}
	if (id != IN_CP_ASYNC)
		return;
	int64_t pf = e->nargs > 4 ? a->pos[4]->i : 0;
	if (pf != 0 && !l2_prefetch_size(pf))
		error_at(S->d, e->args[4]->pos, "the L2 prefetch size of cp.async is 64, 128 or 256 bytes (0: none), not %lld",
		         (long long)pf);
	const char *c = e->nargs > 7 ? a->pos[7]->s : "";
	if (*c && strcmp(c, "ca") && strcmp(c, "cg"))
		error_at(S->d, e->args[7]->pos, "the cache operator of cp.async is \"ca\" or \"cg\", not \"%s\"", c);
	else if (!strcmp(c, "cg") && n != 16)
		error_at(S->d, e->args[7]->pos, "cp.async.cg copies 16 bytes only, not %lld", (long long)n);
}

static bool int_dtype(int dt, int bits)
{
	return dt == DT_WEAK_INT || (dt > 0 && dt < DT_COUNT && (dtypes[dt].kind == DK_INT || dtypes[dt].kind == DK_UINT) &&
	                             dtypes[dt].bits <= bits);
}

/* Operand k of call e, the address of a 128-byte tensor map in memory: a
 * buffer, an element's address or a handle, in global memory (global:
 * true) or in global or shared memory. False after an error. */
static bool tmap_in_memory(Sema *S, Expr *e, int k, const char *what, bool global)
{
	Expr *x = e->args[k];
	Value *v = x->kind == E_NAME ? eval(S, x) : NULL;
	if (IS_ERR(v))
		return false;
	if (v && v->kind != V_BUFFER) {
		error_at(S->d, x->pos, "%s() takes %s here, not %s", fn_name(e), what, value_kind_name(v));
		return false;
	}
	if (!v) {
		int dt = scalar(S, x);
		if (dt == DT_ERROR)
			return false;
		if (dt != DT_HANDLE) {
			error_at(S->d, x->pos, "%s() takes %s here, not %s", fn_name(e), what, dtype_str(dt));
			return false;
		}
	}
	const char *why = NULL;
	Buffer *b = address_buffer(S, x, &why);
	int sc = b ? buffer_root(b)->scope : SC_GLOBAL;
	if (b && sc != SC_GLOBAL && (global || !(scopes[sc].flags & SCF_SHARED))) {
		error_at(S->d, x->pos, "%s() takes a tensor map in %s memory; '%s' is in %s memory", fn_name(e),
		         global ? "global" : "shared or global", b->name, scopes[sc].name);
		return false;
	}
	if (b && sc != SC_GLOBAL && (buffer_root(b)->align ? buffer_root(b)->align : 16) < 128) {
		error_at(S->d, x->pos, "%s(): a tensor map in shared memory is 128-byte aligned; allocate '%s' with "
		         "align=128", fn_name(e), buffer_root(b)->name);
		return false;
	}
	if (b && prove_accesses)
		check_access(S, e, k, TMENC_BYTES, NULL, NULL);
	return true;
}

/* The coordinates and shared operands of a bulk tensor copy. */
/* The shared operands of a bulk tensor copy: in shared memory; the box's
 * 128-byte aligned (a misaligned-address fault on Hopper, ptx.md), which
 * the buffer's declared alignment and a provable offset guarantee. */
static void tma_smem_operands(Sema *S, Expr *e, int id, int map_at)
{
	for (int k = 1; k < map_at; k++) {
		const char *why = NULL;
		Expr *off = NULL;
		Buffer *b = address(S, e->args[k], &off, &why, 0);
		const char *what = k == 2 ? "its mbarrier" : id == IN_TMA_LOAD ? "its destination" : "its source";
		if (b && !(scopes[buffer_root(b)->scope].flags & SCF_SHARED)) {
			error_at(S->d, e->args[k]->pos, "%s() takes %s in shared memory; '%s' is in %s memory", fn_name(e), what,
			         b->name, scopes[buffer_root(b)->scope].name);
			continue;
		}
		if (!b || k != 1)
			continue;
		Buffer *root = buffer_root(b);
		int64_t eb = dtype_bytes(b->dtype), mult = expr_multiple(off), at = b != root ? b->elem_offset * eb : 0;
		bool swz = root->swizzled_root || (root->layout && root->layout->swizzled);
		if (!swz && root->align < TMA_SMEM_ALIGN)
			error_at(S->d, e->args[k]->pos, "%s() needs %s at a %d-byte aligned shared address, and '%s' is only %lld-byte "
			         "aligned: allocate it with align=%d (or more)", fn_name(e), what, TMA_SMEM_ALIGN, root->name,
			         (long long)(root->align ? root->align : 16), TMA_SMEM_ALIGN);
		else if (mult < 0 || (mult != 0 && (mult * eb) % TMA_SMEM_ALIGN) || at % TMA_SMEM_ALIGN)
			error_at(S->d, e->args[k]->pos, "%s() needs %s at a %d-byte aligned shared address; element '%s' of '%s' "
			         "(%lld-byte elements%s) is not provably a multiple of %d bytes", fn_name(e), what, TMA_SMEM_ALIGN,
			         expr_str(off), b->name, (long long)eb,
			         at ? xprintf(", from byte %lld of '%s'", (long long)at, root->name) : "", TMA_SMEM_ALIGN);
	}
}

static void tma_shared_operands(Sema *S, Expr *e, int id, int map_at)
{
	for (int i = map_at + 1; i < e->nargs; i++) {
		int dt = e->args[i]->dtype;
		if (!int_dtype(dt, 32))
			error_at(S->d, e->args[i]->pos, "a TMA coordinate is a 32-bit integer, not %s", dtype_str(dt));
	}
	tma_smem_operands(S, e, id, map_at);
}

/* The size operand of cp_fenceproxy and fence.proxy.tensormap: 128. */
static void tmap_size(Sema *S, Expr *e, Args *a, int k)
{
	if (e->nargs > k && a->pos[k]->i != TMENC_BYTES)
		error_at(S->d, e->args[k]->pos, "%s() moves a whole tensor map: its size is 128 bytes, not %lld", fn_name(e),
		         (long long)a->pos[k]->i);
}

/* tensormap.replace(field, map, [ord,] value), the field's rules
 * (ir/tmfield.def) */
static void tmap_replace(Sema *S, Expr *e, Args *a)
{
	const char *name = a->pos[0]->s;
	int f = tm_field_lookup(name);
	if (f < 0) {
		Buf all = {0};
		for (int i = 0; i < TMF_COUNT; i++)
			bprintf(&all, "%s%s", i ? ", " : "", tm_fields[i].name);
		error_at(S->d, e->args[0]->pos, "tensormap.replace has no field \"%s\"; the fields are %s", name, all.s);
		return;
	}
	const TmField *t = &tm_fields[f];
	if (e->nargs != 3 + t->ord) {
		error_at(S->d, e->pos, "tensormap.replace of \"%s\" takes (field, map, %svalue), not %d operands", name,
		         t->ord ? "ord, " : "", e->nargs);
		return;
	}
	if (!tmap_in_memory(S, e, 1, "the address of a 128-byte tensor map", false))
		return;
	if (t->ord) {
		int64_t o, most = f == TMF_STRIDE ? TMAP_MAX_RANK - 2 : TMAP_MAX_RANK - 1;
		Expr *x = e->args[2];
		if (!x->val || x->val->kind != V_INT) {
			error_at(S->d, x->pos, "the ord of tensormap.replace is a constant (PTX takes an immediate)");
			return;
		}
		o = x->val->i;
		if (o < 0 || o > most)
			error_at(S->d, x->pos, "the ord of \"%s\" is %s, 0 to %lld, not %lld", name,
			         f == TMF_STRIDE ? "a stride (of dimension ord + 1)" : "a dimension", (long long)most, (long long)o);
	}
	Expr *v = e->args[e->nargs - 1];
	int dt = v->dtype;
	if (f == TMF_ADDRESS) {
		if (dt != DT_HANDLE && !(dt > 0 && dt < DT_COUNT && dtypes[dt].bits == 64 &&
		                         (dtypes[dt].kind == DK_INT || dtypes[dt].kind == DK_UINT)))
			error_at(S->d, v->pos, "the value of \"global_address\" is an address (T.address_of(x)) or a "
			         "64-bit integer, not %s", dtype_str(dt));
		else if (dt == DT_HANDLE) {
			const char *why = NULL;
			Buffer *b = address_buffer(S, v, &why);
			if (b && buffer_root(b)->scope != SC_GLOBAL)
				error_at(S->d, v->pos, "the value of \"global_address\" is an address in global memory; '%s' is in %s "
				         "memory", b->name, scopes[buffer_root(b)->scope].name);
		}
		return;
	}
	if (!int_dtype(dt, t->bits)) {
		error_at(S->d, v->pos, "the value of \"%s\" is a %d-bit integer, not %s", name, t->bits, dtype_str(dt));
		return;
	}
	if (!v->val || v->val->kind != V_INT) {
		if (t->imm)
			error_at(S->d, v->pos, "the value of \"%s\" is a constant (PTX takes an immediate)", name);
		return;
	}
	int64_t n = v->val->i;
	if (n < t->lo || n > t->hi)
		error_at(S->d, v->pos, "the value of \"%s\" is %s, not %lld", name, t->doc, (long long)n);
	else if (f == TMF_STRIDE && n % 16)
		error_at(S->d, v->pos, "the value of \"global_stride\" is a byte stride, a multiple of 16, not %lld",
		         (long long)n);
}

/* The TMA instructions: (rank, [shared address, [mbarrier,]] tensor map,
 * coordinates...), the map declared by T.tensormap with that rank, as
 * many 32-bit coordinates as the rank, the shared operand in shared memory. */
static void tma_operands(Sema *S, Expr *e, int id, Args *a)
{
	int map_at = id == IN_TMA_LOAD ? 3 : id == IN_TMA_PREFETCH ? 1 : 2;
	Value *m = a->pos[map_at];
	int64_t rank = a->pos[0]->i;
	if (m->kind != V_TMAP) {
		/* a tensor map in global memory, through its address: its rank
		 * and fields are the emulator's to check, at run time */
		if (!tmap_in_memory(S, e, map_at, "a tensor map (T.tensormap) or the global address of one", true))
			return;
		if (rank < 1 || rank > TMAP_MAX_RANK)
			error_at(S->d, e->args[0]->pos, "%s() takes rank 1 to %d, not %lld", fn_name(e), TMAP_MAX_RANK,
			         (long long)rank);
		else if (e->nargs - map_at - 1 != rank)
			error_at(S->d, e->pos, "%s() gives %d coordinate%s for rank %lld", fn_name(e), e->nargs - map_at - 1,
			         e->nargs - map_at - 1 == 1 ? "" : "s", (long long)rank);
		else
			tma_shared_operands(S, e, id, map_at);
		check_red_op(S, kwarg(a, "red_op"));
		return;
	}
	TensorMap *t = m->tmap;
	if (rank != t->rank) {
		error_at(S->d, e->args[0]->pos, "%s() says rank %lld, but tensor map '%s' has %d dimension%s", fn_name(e),
		         (long long)rank, t->name, t->rank, t->rank == 1 ? "" : "s");
		return;
	}
	bool load = id == IN_TMA_LOAD || id == IN_TMA_PREFETCH;
	int ninfo = load ? tmap_info_count(t) : 0, given = e->nargs - map_at - 1;
	if (!load && t->mode != TMAP_TILED && !tmap_modes[t->mode].store) {
		error_at(S->d, e->args[map_at]->pos, "%s() has no %s form: PTX stores and reduces through tile and im2col "
		         "maps only ('%s' is mode \"%s\")", fn_name(e), tmap_modes[t->mode].name, t->name,
		         tmap_modes[t->mode].name);
		return;
	}
	if (!load && t->mode == TMAP_IM2COL)
		for (int i = 0; i < t->rank - 2; i++)
			if (t->lower[i] < 0 || t->upper[i] > 0) {
				error_at(S->d, e->args[map_at]->pos, "%s() through im2col map '%s' (.im2col_no_offs): its bounding "
				         "box must stay inside the tensor, lower_corner >= 0 and upper_corner <= 0, not %lld and %lld "
				         "in dimension %d", fn_name(e), t->name, (long long)t->lower[i], (long long)t->upper[i], i + 1);
				return;
			}
	if (given != t->rank + ninfo) {
		if (t->mode == TMAP_TILED)
			error_at(S->d, e->pos, "%s() gives %d coordinate%s; tensor map '%s' has %d dimension%s%s", fn_name(e),
			         given, given == 1 ? "" : "s", t->name, t->rank, t->rank == 1 ? "" : "s",
			         given > t->rank && load ? " (im2col operands need a T.tensormap_im2col map)" : "");
		else if (load)
			error_at(S->d, e->pos, "%s() gives %d operand%s after the tensor map; %s map '%s' takes %d coordinates "
			         "and then %d %s", fn_name(e), given, given == 1 ? "" : "s", tmap_modes[t->mode].name, t->name,
			         t->rank, ninfo, t->mode == TMAP_IM2COL ? "im2col offsets (W, H, D: dimensions 1 to rank-2)" :
			         "im2col operands (wHalo, wOffset)");
		else
			error_at(S->d, e->pos, "%s() gives %d operand%s after the tensor map; through im2col map '%s' it stores "
			         "with .im2col_no_offs: %d coordinates, no offsets", fn_name(e), given, given == 1 ? "" : "s",
			         t->name, t->rank);
		return;
	}
	for (int k = 0; k < ninfo; k++) {
		Expr *x = e->args[map_at + 1 + t->rank + k];
		if (x->val && x->val->kind == V_INT && (x->val->i < 0 || x->val->i > tmap_info_max(t, k)))
			error_at(S->d, x->pos, "%s is %lld; through %s map '%s' (rank %d) it is 0 to %lld", tmap_info_name(t, k),
			         (long long)x->val->i, tmap_modes[t->mode].name, t->name, t->rank, (long long)tmap_info_max(t, k));
	}
	for (int i = map_at + 1; i < e->nargs; i++) {
		int dt = e->args[i]->dtype;
		if (dt != DT_WEAK_INT && !(dt > 0 && dt < DT_COUNT && (dtypes[dt].kind == DK_INT || dtypes[dt].kind == DK_UINT) &&
		                          dtypes[dt].bits <= 32))
			error_at(S->d, e->args[i]->pos, i > map_at + t->rank ? "a TMA im2col operand is an integer of at most 32 "
			         "bits (the instruction takes its low 16), not %s" : "a TMA coordinate is a 32-bit integer, not %s",
			         dtype_str(dt));
	}
	tma_smem_operands(S, e, id, map_at);
	check_red_op(S, kwarg(a, "red_op"));
	Kw *sp = kwarg(a, "dst_space");
	if (sp && sp->value->val && strcmp(sp->value->val->s, "shared::cluster") && strcmp(sp->value->val->s, "shared::cta"))
		error_at(S->d, sp->value->pos, "dst_space= is \"shared::cluster\" or \"shared::cta\", not \"%s\"",
		         sp->value->val->s);
	check_cta_mask(S, kwarg(a, "cta_mask"));
	Kw *cm = kwarg(a, "cta_mask");
	if (sp && sp->value->val && !strcmp(sp->value->val->s, "shared::cta") && cm &&
	    !(cm->value->val && cm->value->val->kind == V_INT && cm->value->val->i == 0))
		error_at(S->d, cm->pos, "cta_mask= multicasts through the cluster's window of shared memory; "
		         "dst_space=\"shared::cta\" names the CTA's own");
}

void check_operands(Sema *S, Expr *e, int id, Args *a)
{
	switch (id) {
	case IN_TMA_LOAD: case IN_TMA_STORE: case IN_TMA_REDUCE: case IN_TMA_PREFETCH:
		tma_operands(S, e, id, a);
		return;
	case IN_TMAP_PREFETCH:
		if (a->pos[0]->kind != V_TMAP)
			error_at(S->d, e->args[0]->pos, "%s() takes a tensor map (T.tensormap), not %s", fn_name(e),
			         value_kind_name(a->pos[0]));
		return;
	case IN_COPY_BYTES: case IN_CP_ASYNC:
		access_sizes(S, e, id, a);
		return;
	case IN_ZERO_BYTES: {
		int64_t n = a->pos[1]->i;
		const char *why = NULL;
		Buffer *b = address_buffer(S, e->args[0], &why);
		if (n != 1 && n != 2 && n != 4 && n != 8 && n != 16)
			error_at(S->d, e->args[1]->pos, "%s stores 1, 2, 4, 8 or 16 bytes, not %lld", fn_name(e), (long long)n);
		else if (b && buffer_root(b)->scope != SC_LOCAL && !(scopes[buffer_root(b)->scope].flags & SCF_SHARED))
			error_at(S->d, e->args[0]->pos, "%s fills shared memory or registers; '%s' is in %s memory", fn_name(e),
			         b->name, scopes[buffer_root(b)->scope].name);
		else if (prove_accesses)
			check_access(S, e, 0, n, NULL, NULL);
		return;
	}
	case IN_TMAP_COPY:
		if (a->pos[1]->kind != V_TMAP)
			error_at(S->d, e->args[1]->pos, "%s() copies a kernel-parameter tensor map (T.tensormap), not %s",
			         fn_name(e), value_kind_name(a->pos[1]));
		else
			tmap_in_memory(S, e, 0, "the address of 128 bytes for the tensor map", false);
		return;
	case IN_TMAP_REPLACE:
		tmap_replace(S, e, a);
		return;
	case IN_TMAP_CP_FENCE: {
		if (!tmap_in_memory(S, e, 0, "the global address of a tensor map", true))
			return;
		const char *why = NULL;
		Buffer *b = address_buffer(S, e->args[1], &why);
		if (b && !(scopes[buffer_root(b)->scope].flags & SCF_SHARED))
			error_at(S->d, e->args[1]->pos, "%s() copies a tensor map from shared memory; '%s' is in %s memory",
			         fn_name(e), b->name, scopes[buffer_root(b)->scope].name);
		else if (tmap_in_memory(S, e, 1, "the shared address of a tensor map", false))
			tmap_size(S, e, a, 2);
		return;
	}
	case IN_FENCE_TMAP:
		if (tmap_in_memory(S, e, 0, "the global address of a tensor map", true))
			tmap_size(S, e, a, 1);
		return;
	case IN_CP_WAIT: case IN_BULK_WAIT: {
		/* cp.async{.bulk}.wait_group N: at most N groups left pending */
		int64_t n = e->nargs ? a->pos[0]->i : 0;
		if (n < 0 || n > 63)
			error_at(S->d, e->args[0]->pos, "wait_group N takes N from 0 to 63, not %lld", (long long)n);
		return;
	}
	case IN_TC_ALLOC: case IN_TC_DEALLOC: {
		/* whole tensor-memory columns, a power of two of them */
		Kw *k = kwarg(a, "n_cols");
		int64_t n = k->value->val->i, most = axes[AX_TCOL].extent;
		if (n < 32 || n > most || !pow2(n))
			error_at(S->d, k->value->pos, "n_cols is a power of two from 32 to %lld, not %lld", (long long)most,
			         (long long)n);
		cta_group(S, e, a);
		return;
	}
	case IN_TC_RELINQ: case IN_TC_COMMIT:
		cta_group(S, e, a);
		return;
	case IN_TC_LD: case IN_TC_ST:
		tcgen05_ldst(S, e, a, id == IN_TC_LD);
		return;
	case IN_LDMATRIX: case IN_STMATRIX:
		ldst_matrix(S, e, a, id == IN_LDMATRIX);
		return;
	case IN_BULK_S2C:
		bulk_s2c(S, e, a);
		return;
	case IN_TC_CP:
		tcgen05_cp(S, e, a);
		return;
	case IN_TC_SMEM_DESC:
		smem_desc_operands(S, e, a);
		return;
	case IN_TC_MMA:
		tcgen05_mma(S, e, a);
		return;
	case IN_TC_IDESC:
		idesc_operands(S, e, a);
		return;
	case IN_TC_IDESC_BS:
		idescs_operands(S, e, a);
		return;
	case IN_FENCE_ASYNC: {
		const char *s = e->nargs ? a->pos[0]->s : "shared::cta";
		if (*s && strcmp(s, "shared::cta") && strcmp(s, "shared::cluster") && strcmp(s, "global"))
			error_at(S->d, e->args[0]->pos, "fence.proxy.async takes \"shared::cta\", \"shared::cluster\", \"global\" "
			         "or \"\" (all state spaces), not \"%s\"", s);
		return;
	}
	case IN_STORAGE_SYNC: {
		const char *s = a->pos[0]->s;
		if (strcmp(s, "shared") && strcmp(s, "shared.dyn") && strcmp(s, "warp"))
			error_at(S->d, e->args[0]->pos, "%s() synchronizes \"shared\" or \"shared.dyn\" (the CTA) or \"warp\", "
			         "not \"%s\"", fn_name(e), s);
		return;
	}
	}
}
