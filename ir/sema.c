/* The checker: resolves every name, gives buffers their shape, dtype, scope
 * and layout, and checks the rules of doc/txir.md. It reports each error it
 * finds and goes on with the next statement. */
#include <stdlib.h>
#include <string.h>

#include "sema.h"

bool prove_accesses;
bool desugared;

/* ---- names ----------------------------------------------------------------- */

/* The blocks and names of kernels, loops and branches, once the block is
 * checked: nothing keeps an Env or a Sym past its pop_env (lookups hand
 * out a Sym for the moment, and a block's Values, which others keep, are
 * not among these), so the next block takes them, while they are still
 * in cache: a lowered kernel has a loop of three names per copy. A
 * module's block is never given back (its names are the Module's). */
static Env *spare_envs;  /* by up; each with its emptied table */
static Sym *spare_syms;  /* by next */

void push_env(Sema *S, bool module)
{
	Env *e = spare_envs;
	if (e && !module)
		spare_envs = e->up;
	else
		e = xalloc(sizeof *e);
	e->up = S->env;
	e->module = module;
	S->env = e;
}

void pop_env(Sema *S)
{
	Env *e = S->env;
	S->env = e->up;
	if (e->module)
		return;
	for (int i = 0, left = e->n; left; i++) {
		Sym *x = e->tab[i], *next;
		e->tab[i] = NULL;
		for (; x; x = next, left--) {
			next = x->next;
			x->next = spare_syms;
			spare_syms = x;
		}
	}
	e->n = 0;
	e->up = spare_envs;
	spare_envs = e;
}

/* A Sym of nothing: a spare one (pop_env), else a new one. */
static Sym *new_sym(void)
{
	Sym *s = spare_syms;
	if (!s)
		return xalloc(sizeof *s);
	spare_syms = s->next;
	*s = (Sym){ 0 };
	return s;
}

/* str_hash of a name, kept by the name's address: the names sema is
 * given are the lexer's and the builders' strings in the arena and
 * string literals, none of them written once made, and the arena frees
 * nothing before the exit, so an address holds the same text (and hash)
 * throughout. A lowered kernel reads the same few names (its thread
 * index, T, its pointers) thousands of times, each hashed at each read.
 * A name another takes the place of is only hashed again. */
static inline unsigned name_hash(const char *name)
{
	static struct NameHash { const char *name; unsigned hash; } kept[128][2];
	struct NameHash *k = kept[((uintptr_t)name >> 3) * 0x9E3779B97F4A7C15u >> 57];
	if (k[0].name == name)
		return k[0].hash;
	if (k[1].name == name)
		return k[1].hash;
	k[1] = k[0]; /* two ways a set, the newer first: a kernel's score of
	              * hot names meet in a set in most runs */
	k[0] = (struct NameHash){ name, str_hash(name) };
	return k[0].hash;
}

/* (inlined into lookup, which every name read goes through) */
static inline Sym *find(const Env *e, const char *name, unsigned hash)
{
	if (!e->cap)
		return NULL;
	for (Sym *s = e->tab[hash & (unsigned)(e->cap - 1)]; s; s = s->next)
		if (s->hash == hash && (s->name == name || strcmp(s->name, name) == 0))
			return s;
	return NULL;
}

Sym *env_find_hashed(const Env *e, const char *name, unsigned hash) { return find(e, name, hash); }

Sym *env_find(Env *e, const char *name) { return find(e, name, name_hash(name)); }

static inline Sym *lookup_in(const Sema *S, const char *name)
{
	unsigned h = name_hash(name);
	for (Env *e = S->env; e; e = e->up) {
		Sym *s = find(e, name, h);
		if (s)
			return s;
	}
	return NULL;
}

Sym *lookup(Sema *S, const char *name) { return lookup_in(S, name); }

/* (here, where the lookup is inlined: most names are read through it) */
Value *eval_name(Sema *S, Expr *e)
{
	Sym *s = lookup_in(S, e->str);
	if (!s)
		return fail(S, e->pos, "name '%s' is not defined", e->str);
	name_found(e, s);
	if (s->val->kind == V_OPAQUE)
		return opaque_use(S, e, s->val);
	return s->val;
}

/* A table at most half full, of 8 slots at first: most blocks bind a
 * few names (a lowered loop: its variable and two pointers). */
static void insert(Env *e, Sym *s, unsigned hash)
{
	if (2 * (e->n + 1) > e->cap) {
		int cap = e->cap ? 2 * e->cap : 8;
		Sym **tab = xalloc(sizeof(Sym *) * (size_t)cap);
		for (int i = 0; i < e->cap; i++)
			for (Sym *x = e->tab[i], *next; x; x = next) {
				next = x->next;
				unsigned h = x->hash & (unsigned)(cap - 1);
				x->next = tab[h];
				tab[h] = x;
			}
		e->tab = tab;
		e->cap = cap;
	}
	s->hash = hash;
	unsigned h = hash & (unsigned)(e->cap - 1);
	s->next = e->tab[h];
	e->tab[h] = s;
	e->n++;
}

/* A name is bound once in its block and may not hide a name of an
 * enclosing block of the same kernel (module names may be hidden): the
 * blocks from `from` up are searched, S->env's unless the caller knows
 * that those below `from` do not bind the name. */
static void define_from(Sema *S, Env *from, const char *name, unsigned h, Value *v, Pos pos)
{
	for (Env *e = from; e; e = e->up) {
		Sym *old = find(e, name, h);
		if (old && old->pos.place) {
			error_at(S->d, pos, "'%s' is already defined (line %d); names are bound once", name, old->pos.line);
			return;
		}
		if (e->module)
			break;
	}
	Sym *s = new_sym();
	s->name = name;
	s->val = v;
	s->pos = pos;
	insert(S->env, s, h);
	if (S->env->module) {
		vpush(S->m->names, S->m->nnames, ((struct Binding){ name, v }));
		map_put(&S->m->byname, name, v);
	}
}

static void define_hashed(Sema *S, const char *name, unsigned h, Value *v, Pos pos)
{
	define_from(S, S->env, name, h, v, pos);
}

void define(Sema *S, const char *name, Value *v, Pos pos) { define_hashed(S, name, name_hash(name), v, pos); }

void bind_name(Sema *S, const char *name, Value *v, Pos pos)
{
	Sym *s = new_sym();
	s->name = name;
	s->val = v;
	s->pos = pos;
	insert(S->env, s, name_hash(name));
}

Value *module_value(const Module *m, const char *name)
{
	return map_get(&m->byname, name);
}

static void predefine(Sema *S, const char *name, Value *v)
{
	Sym *s = new_sym();
	s->name = name;
	s->val = v;
	insert(S->env, s, name_hash(name));
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

/* Tx.gemm_async(C, A, B, ...): the operands' memories and types, the
 * keywords txc refuses; the shapes are the variant's (tcgen05_mma). */
static void gemm(Sema *S, Expr *call, Value *fn)
{
	Args a;
	if (!check_args(S, call, fn->intrin, &a))
		return;
	if (!S->in_device) {
		error_at(S->d, call->pos, "%s() before T.device_entry()", fn_name(call));
		return;
	}
	call->es = (int)fn->i;
	/* SFA=, SFB=: a block-scaled gemm_async (.kind::mxf8f6f4): both, each a
	 * region of 8-bit tensor memory (UE8M0 scale bytes; the variant checks
	 * where they are) */
	static const char *const sf[2] = { "SFA", "SFB" };
	Kw *sk[2] = { kwarg(&a, sf[0]), kwarg(&a, sf[1]) };
	bool scaled = sk[0] || sk[1];
	for (int i = 0; i < 2; i++) {
		if (scaled && !sk[i]) {
			error_at(S->d, (sk[1 - i] ? sk[1 - i] : sk[i])->pos, "%s= without %s=: a block-scaled gemm_async "
			         "(tcgen05.mma .kind::mxf8f6f4) takes the scales of A and of B", sf[1 - i], sf[i]);
			return;
		}
		if (!sk[i])
			continue;
		const Value *v = sk[i]->value->val;
		if (!v || v->kind != V_REGION || buffer_root((Buffer *)v->buffer)->scope != SC_TMEM ||
		    dtypes[v->buffer->dtype].bits != 8 || dtypes[v->buffer->dtype].kind != DK_UINT) {
			error_at(S->d, sk[i]->value->pos, "%s= is a region of uint8 tensor memory: the UE8M0 scale bytes "
			         "of %s (one per row and 32 of K) that tcgen05.mma .kind::mxf8f6f4 reads", sf[i], i ? "B" : "A");
			return;
		}
	}
	Kw *cg = kwarg(&a, "cta_group");
	if (cg && cg->value->val && cg->value->val->kind == V_INT && cg->value->val->i != 1) {
		if (cg->value->val->i == 2)
			error_at(S->d, cg->value->pos, "not supported yet: cta_group=2: a CTA pair's tcgen05.mma; gemm_async "
			         "runs cta_group 1");
		else
			error_at(S->d, cg->value->pos, "cta_group= is 1 or 2, not %lld", (long long)cg->value->val->i);
		return;
	}
	static const char *const kn[2] = { "mma_m", "mma_n" };
	for (int i = 0; i < 2; i++) {
		Kw *k = kwarg(&a, kn[i]);
		if (k && k->value->val && k->value->val->kind == V_INT && k->value->val->i <= 0) {
			error_at(S->d, k->value->pos, "%s= is a positive instruction %s, not %lld", kn[i], i ? "N" : "M",
			         (long long)k->value->val->i);
			return;
		}
	}
	Kw *acc = kwarg(&a, "accum");
	if (acc && acc->value->dtype != DT_BOOL && acc->value->dtype != DT_ERROR && !(acc->value->dtype == DT_WEAK_INT ||
	    (acc->value->dtype < DT_COUNT && (dtypes[acc->value->dtype].kind == DK_INT ||
	     dtypes[acc->value->dtype].kind == DK_UINT) && dtypes[acc->value->dtype].bits <= 32))) {
		error_at(S->d, acc->value->pos, "accum= is a boolean or a 32-bit integer (tcgen05.mma's enable_input_d), not %s",
		         dtype_str(acc->value->dtype));
		return;
	}
	static const char *const nm[3] = { "C", "A", "B" };
	for (int i = 0; i < 3; i++) {
		const Buffer *b = a.pos[i]->buffer;
		int sc = buffer_root((Buffer *)b)->scope;
		if (i == 0 && (sc != SC_TMEM || b->dtype != DT_FLOAT32)) {
			error_at(S->d, call->args[i]->pos, "gemm_async's C is a float32 region of tensor memory (the "
			         "accumulator of tcgen05.mma .kind::f16); '%s' is %s in %s memory", b->name, dtypes[b->dtype].name,
			         scopes[sc].name);
			return;
		}
		if (i > 0 && scaled && (!(scopes[sc].flags & SCF_SHARED) || (b->dtype != DT_FP8E4M3 && b->dtype != DT_FP8E5M2))) {
			error_at(S->d, call->args[i]->pos, "gemm_async's %s with SFA=/SFB= is a float8_e4m3fn or float8_e5m2 "
			         "region of shared memory (tcgen05.mma .kind::mxf8f6f4); '%s' is %s in %s memory", nm[i], b->name,
			         dtypes[b->dtype].name, scopes[sc].name);
			return;
		}
		if (i > 0 && !scaled && (!(scopes[sc].flags & SCF_SHARED) || (b->dtype != DT_FLOAT16 && b->dtype != DT_BFLOAT16))) {
			error_at(S->d, call->args[i]->pos, "gemm_async's %s is a float16 or bfloat16 region of shared memory "
			         "(tcgen05.mma .kind::f16); '%s' is %s in %s memory", nm[i], b->name, dtypes[b->dtype].name,
			         scopes[sc].name);
			return;
		}
	}
	if (!scaled && a.pos[1]->buffer->dtype != a.pos[2]->buffer->dtype) {
		error_at(S->d, call->args[2]->pos, "gemm_async's B is %s and A %s: txc requires A and B of one type "
		         "(doc/tcgen05-mma.md)", dtypes[a.pos[2]->buffer->dtype].name, dtypes[a.pos[1]->buffer->dtype].name);
		return;
	}
	Kw *d = kwarg(&a, "dispatch");
	if (d && d->value->kind != E_STR && d->value->val && d->value->val->kind == V_STR) {
		Expr *name = new_expr(E_STR, d->value->pos);
		name->str = d->value->val->s;
		name->val = d->value->val;
		d->value = name;
	}
}

/* A copy_async only TMA runs (a load into shared memory completing on
 * an mbarrier, a store from shared memory to global) reads or writes its
 * shared operand in boxes at 128-byte aligned addresses: its storage,
 * allocated without align=, is placed so (as TVM's shared.dyn base is),
 * and says so (align=128 on its T.alloc_buffer), for the lowered kernel. */
static void tma_align(const Value *dst, const Value *src, bool mbar)
{
	if (!dst || !src || !dst->buffer || !src->buffer)
		return;
	Buffer *d = buffer_root(dst->buffer), *s = buffer_root(src->buffer);
	bool load = (scopes[d->scope].flags & SCF_SHARED) && (scopes[s->scope].flags & SCF_GLOBAL) && mbar;
	bool store = (scopes[d->scope].flags & SCF_GLOBAL) && (scopes[s->scope].flags & SCF_SHARED);
	Buffer *b = load ? d : store ? s : NULL;
	if (!b || b->align || b->swizzled_root || (b->layout && b->layout->swizzled) || !b->decl ||
	    b->decl->kind != E_CALL || call_kw(b->decl, "align"))
		return;
	b->align = TMA_SMEM_ALIGN;
	call_add_kw(b->decl, "align", new_int(b->decl->pos, TMA_SMEM_ALIGN), b->decl->pos);
}

static void copy(Sema *S, Expr *call, Value *fn)
{
	Args a;
	if (!tvm_tile_aliases(S, call))
		return;
	/* with oob_fill=, a load's global region may hang past the tensor's
	 * edge (region(); the checks below and the tma variant's) */
	S->oob_ok = fn->intrin == IN_COPY_ASYNC && call_kw(call, "oob_fill");
	bool args_ok = check_args(S, call, fn->intrin, &a);
	S->oob_ok = false;
	if (!args_ok)
		return;
	if (!S->in_device) {
		error_at(S->d, call->pos, "%s() before T.device_entry()", fn_name(call));
		return;
	}
	call->es = (int)fn->i;
	Kw *oob = kwarg(&a, "oob_fill");
	check_red_op(S, kwarg(&a, "reduce"));
	Kw *mask = kwarg(&a, "cta_mask");
	check_cta_mask(S, mask);
	const Value *dv = call->nargs > 0 ? call->args[0]->val : NULL;
	if (mask && dv && (dv->kind == V_BUFFER || dv->kind == V_REGION) && dv->buffer &&
	    !(scopes[buffer_root(dv->buffer)->scope].flags & SCF_SHARED))
		error_at(S->d, mask->value->pos, "cta_mask= multicasts a TMA load (global -> shared) to the CTAs of the "
		         "cluster; this copy writes %s memory", scopes[buffer_root(dv->buffer)->scope].name);
	if (oob && oob->value->val && oob->value->val->kind == V_STR) {
		const char *f = oob->value->val->s;
		const Value *od = a.pos[0], *os = a.pos[1];
		if (strcmp(f, "zero") && strcmp(f, "nan")) {
			error_at(S->d, oob->value->pos, "oob_fill= is \"zero\" or \"nan\", not \"%s\"", f);
			return;
		}
		int oss = buffer_root(os->buffer)->scope, ods = buffer_root(od->buffer)->scope;
		if (!(scopes[oss].flags & SCF_GLOBAL) || !(scopes[ods].flags & SCF_SHARED)) {
			error_at(S->d, oob->pos, "oob_fill= fills the out-of-bounds elements of a global -> shared load; this copy "
			         "is %s -> %s", scopes[oss].name, scopes[ods].name);
			return;
		}
		if (!os->buffer->is_param) {
			error_at(S->d, oob->pos, "not supported yet: oob_fill= on '%s', a view of a tensor: TMA fills past the "
			         "tensor's edges, not the view's; copy from the tensor itself", os->buffer->name);
			return;
		}
		if (!strcmp(f, "nan") && dtypes[os->buffer->dtype].kind != DK_FLOAT) {
			error_at(S->d, oob->value->pos, "oob_fill=\"nan\" fills with NaN, which %s '%s' has not: it is for "
			         "floating-point tensors", dtypes[os->buffer->dtype].name, os->buffer->name);
			return;
		}
	}
	if (fn->intrin == IN_COPY_ASYNC)
		tma_align(a.pos[0], a.pos[1], kwarg(&a, "mbar") != NULL);
	Kw *d = kwarg(&a, "dispatch");
	if (d && d->value->kind != E_STR && d->value->val && d->value->val->kind == V_STR) {
		/* dispatch=variant, a constant: the passes read the name itself */
		Expr *name = new_expr(E_STR, d->value->pos);
		name->str = d->value->val->s;
		name->val = d->value->val;
		d->value = name;
	}
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
				bool count = plan_count_field(n);
				if (count && v && v->kind == V_INT && v->i <= 0) {
					error_at(S->d, p->kws[k].value->pos, "%s= of a plan must be positive", p->kws[k].name);
					return;
				}
			}
		}
	}
	Value *dst = a.pos[0], *src = a.pos[1];
	/* TVM's keywords that txc honours (ir/tvm.def) */
	Kw *pf = kwarg(&a, "prefetch_size"), *direct = kwarg(&a, "direct");
	if (pf) {
		Value *v = pf->value->val;
		int id = fn->intrin;
		bool str = v && v->kind == V_STR && id == IN_COPY;
		if (!v || (v->kind != V_INT && !str) || (v->kind == V_INT && !l2_prefetch_size(v->i)) ||
		    (str && !(strncmp(v->s, "L2::", 4) == 0 && !ld_quals_check(v->s)))) {
			error_at(S->d, pf->value->pos, "prefetch_size= is an L2 prefetch with each global load: 64, 128 or 256 "
			         "bytes%s, not %s", fn->intrin == IN_COPY ? xprintf(" (also %s)", ld_quals_list(ld_prefetch)) : "",
			         expr_str(pf->value));
			return;
		}
		if (fn->intrin == IN_COPY && a.pos[1]->buffer && buffer_root(a.pos[1]->buffer)->scope != SC_GLOBAL) {
			error_at(S->d, pf->pos, "prefetch_size= goes with the copy's global loads, and the source '%s' is in %s "
			         "memory", a.pos[1]->buffer->name, scopes[buffer_root(a.pos[1]->buffer)->scope].name);
			return;
		}
	}
	if (direct && direct->value->val && direct->value->val->i) {
		int64_t bytes = region_elements(dst) * dtype_bytes(dst->buffer->dtype);
		if (call->es != ES_THREAD) {
			error_at(S->d, direct->pos, "direct=True is one thread's copy: write it as Tx.copy_async, not at %s scope",
			         exec_scope_names[call->es]);
			return;
		}
		if (bytes != 4 && bytes != 8 && bytes != 16) {
			error_at(S->d, direct->pos, "direct=True is one cp.async of 4, 8 or 16 bytes; this region has %lld",
			         (long long)bytes);
			return;
		}
	}
	Kw *cache = kwarg(&a, "cache");
	if (cache && cache->value->val && cache->value->val->kind == V_STR) {
		if (strcmp(cache->value->val->s, "nc") != 0) {
			error_at(S->d, cache->value->pos, "not supported yet: cache=\"%s\": txc's copies honour cache=\"nc\" "
			         "(ld.global.nc)", cache->value->val->s);
			return;
		}
		if (src->buffer->scope != SC_GLOBAL) {
			error_at(S->d, cache->pos, "cache=\"nc\" reads global memory through the read-only path, and the source "
			         "'%s' is in %s memory", src->buffer->name, scopes[src->buffer->scope].name);
			return;
		}
	}
	Kw *l1 = kwarg(&a, "l1_evict");
	if (l1 && l1->value->val && l1->value->val->kind == V_STR) {
		const char *why = strncmp(l1->value->val->s, "L1::", 4) == 0 ? ld_quals_check(l1->value->val->s) : "";
		if (why) {
			error_at(S->d, l1->value->pos, "l1_evict= is an L1 eviction priority of the copy's global loads (%s), not "
			         "\"%s\"", ld_quals_list(ld_l1_evict), l1->value->val->s);
			return;
		}
		if (src->buffer->scope != SC_GLOBAL) {
			error_at(S->d, l1->pos, "l1_evict= qualifies the copy's global loads, and the source '%s' is in %s memory",
			         src->buffer->name, scopes[src->buffer->scope].name);
			return;
		}
	}
	Kw *pred = kwarg(&a, "predicate"), *fill = kwarg(&a, "fill_mode");
	if (fill && fill->value->val && fill->value->val->kind == V_STR && strcmp(fill->value->val->s, "zero") != 0) {
		error_at(S->d, fill->value->pos, "not supported yet: fill_mode=\"%s\": txc's predicated cp.async zero-fills "
		         "(fill_mode=\"zero\")", fill->value->val->s);
		return;
	}
	if (fill && !pred) {
		error_at(S->d, fill->pos, "fill_mode= is the zero fill of predicate=, and there is no predicate=");
		return;
	}
	if (pred) {
		if (pred->value->dtype != DT_BOOL && pred->value->dtype != DT_ERROR) {
			error_at(S->d, pred->value->pos, "predicate= must be a boolean (a comparison), not %s",
			         dtype_str(pred->value->dtype));
			return;
		}
		if (!fill) {
			error_at(S->d, pred->pos, "not supported yet: predicate= without fill_mode=\"zero\" (a cp.async skipped "
			         "and its destination left as it was); txc's predicated cp.async zero-fills");
			return;
		}
		if (call->es != ES_THREAD) {
			error_at(S->d, pred->pos, "not supported yet: predicate= on a collective copy_async (%s scope): which "
			         "elements a thread zero-fills would depend on the partition; write it on each thread's own copy, "
			         "Tx.copy_async", exec_scope_names[call->es]);
			return;
		}
	}
	if (dst->buffer->dtype != src->buffer->dtype) {
		error_at(S->d, call->pos, "%s() from %s '%s' to %s '%s': tile copies do not convert dtypes",
		         fn_name(call), dtypes[src->buffer->dtype].name, src->buffer->name,
		         dtypes[dst->buffer->dtype].name, dst->buffer->name);
		return;
	}
	/* TVM pairs the elements of the two regions in the row-major order of
	 * each: the shapes may differ, the element counts may not */
	int64_t nd = region_elements(dst), ns = region_elements(src);
	if (nd != ns) {
		Buf d = {0}, s = {0};
		for (int k = 0; k < dst->ndim; k++)
			bprintf(&d, "%s%lld", k ? "x" : "", (long long)dst->extents[k]);
		for (int k = 0; k < src->ndim; k++)
			bprintf(&s, "%s%lld", k ? "x" : "", (long long)src->extents[k]);
		error_at(S->d, call->pos, "%s(): the destination region is %s (%lld elements) but the source region is %s "
		         "(%lld elements); a copy pairs the elements of its regions in row-major order, so they must have "
		         "as many", fn_name(call), d.s, (long long)nd, s.s, (long long)ns);
		return;
	}
}

/* ---- statements ---------------------------------------------------------------------- */

static void stmts(Sema *S, Stmt ***v, int *n);

static bool is_buffer_maker(int id)
{
	return id == IN_MATCH_BUFFER || id == IN_ALLOC_BUFFER || id == IN_ALLOC_SHARED ||
	       id == IN_ALLOC_LOCAL || id == IN_DECL_BUFFER;
}

static bool is_launch(int id) { return is_launch_id(id); }

/* A scalar parameter named by e, or NULL. */
static Var *param_of(const Expr *e)
{
	return e->kind == E_NAME && e->var && e->var->param ? e->var : NULL;
}

static bool const_of(const Expr *e, int64_t *k)
{
	if (!e->val || e->val->kind != V_INT)
		return false;
	*k = e->val->i;
	return true;
}

/* One conjunct of T.assume(cond) narrows a scalar parameter's range
 * [lo, hi) or gives it a divisor; the range starts as its dtype's. */
static void assume(Sema *S, Expr *c, Expr *whole)
{
	if (c->kind == E_AND) {
		assume(S, c->a, whole);
		assume(S, c->b, whole);
		return;
	}
	const char *form = "T.assume() takes a conjunction (`and`) of `P < K`, `P <= K`, `P > K`, `P >= K`, `P == K` "
	                   "and `P % K == 0`, P a scalar parameter and K an integer constant";
	if (c->kind != E_CMP || c->op == OP_NE) {
		error_at(S->d, expr_start(c), "%s", form);
		return;
	}
	int64_t k, z;
	Var *p;
	if (c->op == OP_EQ && c->a->kind == E_BIN && c->a->op == OP_MOD && (p = param_of(c->a->a)) &&
	    const_of(c->a->b, &k) && const_of(c->b, &z) && z == 0) {
		if (k <= 0) {
			error_at(S->d, c->a->b->pos, "the divisor of a scalar parameter in T.assume() must be positive");
			return;
		}
		int64_t m = p->mult ? p->mult : 1, a = m, b = k;
		while (b) {
			int64_t t = a % b;
			a = b;
			b = t;
		}
		if (!mul_ok(m / a, k, &p->mult))
			error_at(S->d, c->pos, "the divisors T.assume() gives '%s' overflow", p->name);
		return;
	}
	int op = c->op;
	if ((p = param_of(c->b)) && const_of(c->a, &k)) /* K < P is P > K */
		op = op == OP_LT ? OP_GT : op == OP_LE ? OP_GE : op == OP_GT ? OP_LT : op == OP_GE ? OP_LE : op;
	else if (!(p = param_of(c->a)) || !const_of(c->b, &k)) {
		error_at(S->d, expr_start(c), "%s", form);
		return;
	}
	if (op == OP_GT && k == INT64_MAX) {
		error_at(S->d, expr_start(whole), "T.assume(%s) can never hold: it leaves '%s' no value", expr_str(whole),
		         p->name);
		return;
	}
	int64_t lo = p->lo, hi = p->hi; /* [lo, hi) */
	if (hi <= lo) { /* no range yet: the dtype's */
		const DType *t = &dtypes[p->dtype];
		bool uns = t->kind == DK_UINT;
		lo = uns ? 0 : t->bits >= 64 ? INT64_MIN : -((int64_t)1 << (t->bits - 1));
		hi = t->bits >= 63 ? INT64_MAX : ((int64_t)1 << (t->bits - !uns));
	}
	if ((op == OP_LT || op == OP_LE || op == OP_EQ) && k < hi - (op != OP_LT))
		hi = op == OP_LT ? k : k + 1;
	if ((op == OP_GT || op == OP_GE || op == OP_EQ) && k >= lo + (op == OP_GT))
		lo = op == OP_GT ? k + 1 : k;
	if (lo >= hi) {
		error_at(S->d, expr_start(whole), "T.assume(%s) can never hold: it leaves '%s' no value", expr_str(whole),
		         p->name);
		return;
	}
	p->lo = lo;
	p->hi = hi;
}

/* T.attr({key: value}): TVM's annotation of a kernel. txc gives
 * "tirx.dyn_smem_bytes" its meaning; any other key is refused. */
static void kernel_attr(Sema *S, Expr *e)
{
	e->intrin = IN_ATTR;
	if (e->nargs != 1 || e->nkws) {
		error_at(S->d, e->pos, e->nargs == 3 ? "not supported yet: T.attr(node, key, value), TIR's attribute statement; "
		         "txc takes a kernel's annotations as T.attr({key: value})" : "T.attr() takes one dict {key: value}");
		return;
	}
	Value *d = eval_const(S, e->args[0], "the dict of T.attr");
	if (IS_ERR(d))
		return;
	if (d->kind != V_DICT) {
		error_at(S->d, e->args[0]->pos, "T.attr() takes a dict {key: value}, not %s", value_kind_name(d));
		return;
	}
	if (S->env->up && !S->env->up->module) {
		error_at(S->d, e->pos, "T.attr() annotates the kernel: write it in the kernel's body, not in a loop or branch");
		return;
	}
	for (int i = 0; i < d->nelts; i++) {
		Value *k = d->elts[i], *v = d->vals[i];
		if (k->kind != V_STR || strcmp(k->s, "tirx.dyn_smem_bytes") != 0) {
			error_at(S->d, e->args[0]->pos, "not supported yet: the kernel annotation %s%s%s; txc knows "
			         "\"tirx.dyn_smem_bytes\"", k->kind == V_STR ? "\"" : "", k->kind == V_STR ? k->s : value_kind_name(k),
			         k->kind == V_STR ? "\"" : "");
			continue;
		}
		if (v->kind != V_INT || v->i < 0) {
			error_at(S->d, e->args[0]->pos, "\"tirx.dyn_smem_bytes\" is a number of bytes, not %s",
			         v->kind == V_INT ? xprintf("%lld", (long long)v->i) : value_kind_name(v));
			continue;
		}
		if (S->func->dyn_smem) {
			error_at(S->d, e->pos, "\"tirx.dyn_smem_bytes\" is given twice");
			continue;
		}
		S->func->dyn_smem = v->i;
		S->func->dyn_smem_at = e->pos;
	}
}

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
	Value *fn;
	if (!ptx_rewrite(S, e, &fn))
		return;
	if (!fn)
		fn = eval(S, e->a);
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
	if ((id == IN_TC_LD || id == IN_TC_ST) && e->nkws && tvm_tcgen05_ldst_kw(S, e) < 0)
		return;
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
	case IN_GEMM_ASYNC:
		gemm(S, e, fn);
		return;
	case IN_PREFETCH: {
		/* Tx.prefetch(A[region]): as a load past the edge, the region may
		 * hang past the tensor's (TMA skips what lies outside) */
		if (!tvm_tile_aliases(S, e))
			return;
		S->oob_ok = true;
		bool ok = check_args(S, e, id, &a);
		S->oob_ok = false;
		if (!ok)
			return;
		if (!S->in_device) {
			error_at(S->d, e->pos, "%s() before T.device_entry()", fn_name(e));
			return;
		}
		Buffer *b = a.pos[0]->buffer;
		if (buffer_root(b)->scope != SC_GLOBAL || !b->is_param)
			error_at(S->d, e->args[0]->pos, "%s() prefetches a region of a global buffer parameter into L2; '%s' is %s",
			         fn_name(e), b->name, buffer_root(b)->scope != SC_GLOBAL ?
			         xprintf("in %s memory", scopes[buffer_root(b)->scope].name) : "a view of one");
		return;
	}
	case IN_ATTR:
		kernel_attr(S, e);
		return;
	case IN_ASSUME:
		if (!check_args(S, e, id, &a))
			return;
		if (S->in_device) {
			error_at(S->d, e->pos, "T.assume() comes before T.device_entry(): it bounds scalar parameters before "
			         "any use");
			return;
		}
		assume(S, e->args[0], e->args[0]);
		return;
	case IN_ELECT_SYNC:
		if (e->nargs == 3)
			error_at(S->d, e->pos, "%s", elect_sync_form);
		else
			error_at(S->d, e->pos, "the result of %s() is not used: it is a boolean, as in `if %s():`", fn_name(e),
			         fn_name(e));
		return;
	case IN_MATCH_BUFFER: {
		/* TVM's unbound T.match_buffer(h, ...): gives the handle its shape;
		 * the buffer is named after the handle */
		Buffer *b = make_buffer(S, e->nargs ? expr_str(e->args[0]) : "?", e->pos, e, id);
		if (b)
			vpush(S->bufs, S->nbufs, b);
		return;
	}
	case IN_EVALUATE:
		e->intrin = IN_EVALUATE;
		if (e->nargs != 1 || e->nkws) {
			error_at(S->d, e->pos, "T.evaluate() takes one call or value");
			return;
		}
		Value *ef = e->args[0]->kind == E_CALL ? eval(S, e->args[0]->a) : NULL;
		if (IS_ERR(ef))
			return;
		if (e->args[0]->kind != E_CALL || (ef && (ef->kind == V_DTYPE || (ef->kind == V_FUNC &&
		    (ef->intrin == IN_CAST || ef->intrin == IN_MIN || ef->intrin == IN_MAX))))) {
			/* a value computed and dropped, as TVM's T.evaluate(buf[i, j]):
			 * its indices are checked, the emulator reads it */
			if (scalar(S, e->args[0]) != DT_ERROR && !S->in_device)
				error_at(S->d, e->pos, "T.evaluate() before T.device_entry()");
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
		    is_py_builtin(id) || id == IN_ADDRESS_OF || id == IN_MIN || id == IN_MAX || id == IN_SLICE || id == IN_RANGE ||
		    id == IN_POINTER_OFFSET || id == IN_PLAN || id == IN_SHARED_SCALAR || id == IN_LOCAL_SCALAR || id == IN_TC_FRAG || id == IN_TMEM_ADDR ||
		    id == IN_META_VAR || id == IN_SMEM_POOL || id == IN_MBARRIER || id == IN_TMABAR || id == IN_GRID ||
		    id == IN_SERIAL || id == IN_UNROLL || id == IN_TENSORMAP || id == IN_TENSORMAP_IM2COL || id == IN_PRIM_FUNC || id == IN_HANDLE || id == IN_BUFFER_T ||
		    id == IN_LET) {
			error_at(S->d, e->pos, "the result of %s() is not used", fn_name(e));
			return;
		}
		if (!check_args(S, e, id, &a))
			return;
		S->tmem_ops += id == IN_TC_ALLOC || id == IN_TC_DEALLOC || id == IN_TC_RELINQ || id == IN_TC_LD || id == IN_TC_ST;
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
		if ((id == IN_LDMATRIX || id == IN_STMATRIX) && prove_accesses && e->nargs > 2)
			check_access(S, e, 2, 16, NULL, NULL);
		if (id == IN_BULK_S2C && prove_accesses && e->nargs == 5 && e->args[2]->val && e->args[2]->val->kind == V_INT &&
		    e->args[2]->val->i > 0) {
			check_span(S, e, 0, e->args[2]->val->i, 16);
			check_span(S, e, 1, e->args[2]->val->i, 16);
			check_access(S, e, 3, 8, NULL, NULL);
		}
		check_operands(S, e, id, &a);
	}
}

Var *new_var(const char *name, Pos pos, int dt)
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

/* Whether a value of dtype vt may be stored into dtype dt unconverted. */
bool fits(int vt, int dt)
{
	return vt == dt || (vt == DT_WEAK_INT && dtypes[dt].kind != DK_BOOL) ||
	       (vt == DT_WEAK_FLOAT && dtypes[dt].kind == DK_FLOAT);
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
	if (fits(vt, dt))
		return;
	if (op >= 0 || value != s->value || vt >= DT_COUNT || dt == DT_HANDLE || vt == DT_HANDLE) {
		error_at(S->d, value->pos, "cannot store %s into %s buffer '%s'; convert with T.cast", dtype_str(vt),
		         dtypes[dt].name, bv->buffer->name);
		return;
	}
	/* TVMScript converts the value of a store to the buffer's dtype (and
	 * warns where a float becomes an integer): written out as T.cast */
	if (dtypes[vt].kind == DK_FLOAT && dtypes[dt].kind != DK_FLOAT)
		warn_at(S->d, expr_start(value), "storing %s into %s buffer '%s' converts it and may lose precision (TVM's implicit "
		        "cast); write T.cast to say so", dtypes[vt].name, dtypes[dt].name, bv->buffer->name);
	Expr *name = new_expr(E_STR, value->pos);
	name->str = dtypes[dt].name;
	Expr *args[] = { value, name };
	Expr *cast = ex_call("T.cast", 2, args);
	for (Expr *f = cast->a; f; f = f->kind == E_ATTR ? f->a : NULL)
		f->pos = value->pos;
	cast->pos = value->pos;
	s->value = cast;
	scalar(S, cast);
}

/* `x = v` or `x += v` where x names a one-element buffer: TVM stores into
 * its element (x[0] = v), as for T.shared_scalar's names. */
static bool scalar_target_sym(Stmt *s, const Sym *sym)
{
	if (!sym || !sym->val || IS_ERR(sym->val) || sym->val->kind != V_BUFFER)
		return false;
	Buffer *b = sym->val->buffer;
	if (b->ndim != 1 || b->shape[0] != 1)
		return false;
	tvm_scalar_element(s->targets[0]);
	return true;
}

static bool scalar_target(Sema *S, Stmt *s)
{
	if (s->ntargets != 1 || s->targets[0]->kind != E_NAME || !S->func)
		return false;
	return scalar_target_sym(s, lookup(S, s->targets[0]->str));
}

/* A[...] with a slice, or a subscripted region name: a region, not an
 * element. */
static bool is_region_expr(Sema *S, Expr *e)
{
	for (int i = 0; i < e->nargs; i++)
		if (e->args[i]->kind == E_SLICE)
			return true;
	Value *b = eval(S, e->a);
	if (b && !IS_ERR(b) && b->kind == V_BUFFER)
		for (int i = 0; i < e->nargs; i++) {
			/* a slice constant, A[s, 0] */
			Expr *x = e->args[i];
			Value *v = x->kind == E_NAME || x->kind == E_ATTR ? eval(S, x) : NULL;
			if (v && !IS_ERR(v) && v->kind == V_SLICE)
				return true;
		}
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
		if (s->targets[i]->kind == E_NAME && (!old || !old->pos.place)) /* unbound, or a builtin's name */
			define(S, s->targets[i]->str, &verr, s->targets[i]->pos);
	}
}

bool assign1(Sema *S, Stmt *s)
{
	Expr *value = s->value;
	if (s->ntargets == 1 && s->targets[0]->kind == E_TUPLE && !s->targets[0]->paren) {
		Stmt *u = new_stmt(S_ASSIGN, s->pos); /* `a, = x` */
		*u = *s;
		u->targets = s->targets[0]->args;
		u->ntargets = s->targets[0]->nargs;
		return assign1(S, u);
	}
	/* `x = ...` in a kernel: x's hash and its binding in the kernel's
	 * blocks, found once for scalar_target, the rebinding check and define
	 * (a buffer is never bound at module level, so the binding that
	 * scalar_target looks at is this one, or there is none) */
	Expr *t0 = s->targets[0];
	bool one = s->ntargets == 1 && t0->kind == E_NAME && S->func;
	unsigned h0 = one ? name_hash(t0->str) : 0;
	Sym *k0 = one ? kernel_lookup_hashed(S, t0->str, h0) : NULL;
	if (s->ntargets == 1 && (t0->kind == E_INDEX || (one && scalar_target_sym(s, k0)))) {
		store(S, s, s->targets[0], value, -1);
		return true;
	}
	if (s->ann)
		return annotated(S, s);
	if (S->func) {
		for (int i = 0; i < s->ntargets; i++) {
			Expr *t = s->targets[i];
			Sym *old = one ? k0 : t->kind == E_NAME ? kernel_lookup(S, t->str) : NULL;
			if (!old || !old->pos.place || IS_ERR(old->val))
				continue;
			if (s->ntargets == 1 && old->val->kind == V_VAR && old->val->var->mut)
				reassign(S, s, t, old->val->var, value, -1);
			else
				bound_once(S, t, old);
			return true;
		}
	}
	for (int i = 0; i < s->ntargets; i++)
		if (s->targets[i]->kind != E_NAME) {
			error_at(S->d, s->targets[i]->pos, "cannot assign to %s; assign to a name or a buffer element",
			         s->targets[i]->kind == E_TUPLE ? "a nested tuple" : expr_str(s->targets[i]));
			return false;
		}
	Value *v = NULL, *rfn = NULL;
	bool in_func = S->func != NULL;
	/* TVM's forms, not where desugared (desugar_stmt) */
	if (in_func && !desugared && s->ntargets == 1 && tvm_is_view_chain(value) && !tvm_view_chain(S, value))
		return false; /* TVM's X.sub[...], X.permute(...): one view of the root */
	if (value->kind == E_CALL && in_func) {
		int64_t mbar = 0, phase = 0;
		bool tma = false;
		int pr = desugared ? 0 : pool_alloc(S, value, &mbar, &phase, &tma);
		if (pr < 0 || (pr == 0 && !desugared && tvm_view_dtype(S, value) < 0))
			return false;
		Value *fn = eval(S, value->a);
		if (IS_ERR(fn))
			return false;
		Buffer *b = NULL;
		bool scalar = fn && fn->kind == V_FUNC && (fn->intrin == IN_SHARED_SCALAR || fn->intrin == IN_LOCAL_SCALAR);
		bool pool = fn && fn->kind == V_FUNC && fn->intrin == IN_SMEM_POOL;
		if (pool) {
			if (!pool_new(S, value))
				return false;
			fn = eval(S, value->a);
		} else if (scalar) {
			Args a;
			if (!check_args(S, value, fn->intrin, &a))
				return false;
			tvm_scalar(value, fn->intrin);
			fn = eval(S, value->a);
		} else if (fn && fn->kind == V_FUNC && fn->intrin == IN_TC_FRAG) {
			Args a;
			if (!check_args(S, value, fn->intrin, &a))
				return false;
			tvm_tc_frag(value);
			fn = eval(S, value->a);
		}
		if (fn && fn->kind == V_FUNC && (fn->intrin == IN_TENSORMAP || fn->intrin == IN_TENSORMAP_IM2COL)) {
			if (s->ntargets != 1) {
				error_at(S->d, s->pos, "a tensor map is assigned to one name");
				return false;
			}
			TensorMap *t = make_tensormap(S, s->targets[0]->str, s->targets[0]->pos, value, fn->intrin);
			if (!t)
				return false;
			v = vnew(V_TMAP);
			v->tmap = t;
		} else if (fn && fn->kind == V_FUNC && (is_buffer_maker(fn->intrin) || is_launch(fn->intrin))) {
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
				b->scalar = scalar;
				if (pool)
					pool_made(b);
				b->mbar_depth = mbar;
				b->mbar_phase = phase;
				b->mbar_tma = tma;
			}
		} else if (!fn && value->a->kind == E_ATTR &&
		           (strcmp(value->a->str, "view") == 0 || strcmp(value->a->str, "local") == 0)) {
			Value *base = eval(S, value->a->a);
			if (IS_ERR(base))
				return false;
			if (base && base->kind == V_BUFFER && !strcmp(value->a->str, "local") &&
			    !tvm_local(S, value, base->buffer))
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
		Expr *f = value->a;
		while (f->kind == E_ATTR)
			f = f->a;
		if (!v && f->kind == E_NAME && runtime_builtin(fn))
			rfn = fn; /* T.pointer_offset(...): fn is its callee's value */
	}
	if (!v && in_func && value->kind == E_INDEX && is_region_expr(S, value)) {
		/* a name for part of a buffer: X = A[r * 128 : r * 128 + 128, :] */
		v = region(S, value);
		if (IS_ERR(v))
			return false;
		value->val = v;
	}
	if (!v) {
		/* eval gives NULL for a call of a runtime builtin (it only
		 * writes out its splats: none where desugared), and scalar
		 * below has its callee */
		v = rfn ? (desugared || expand_call(S, value) ? NULL : &verr) : eval(S, value);
		if (IS_ERR(v))
			return false;
		bool mut = in_func && s->ntargets == 1 && s->targets[0]->rebound;
		if (mut && v && v->kind == V_VAR && v->var->dtype == DT_HANDLE)
			mut = false; /* a pointer is bound once, as in TVMScript */
		if (mut && v && (v->kind == V_VAR || v->kind == V_INT || v->kind == V_FLOAT || v->kind == V_BOOL)) {
			/* assigned again later: a mutable variable, of the value's dtype */
			int dt = scalar(S, value);
			if (dt == DT_ERROR)
				return false;
			v = scalar_var(s->targets[0], value, literal_dtype(value, dt), true);
			mut_set(S, v->var, s->targets[0], value, -1);
		}
		if (v && v->kind == V_VAR && in_func && !mut && !v->var->mut && v->var->dtype != DT_HANDLE)
			v = NULL; /* `r = bx`: r a name of its own for bx's value (TVM's alias: bx never changes) */
		if (v && (v->kind == V_VAR || v->kind == V_BUFFER || v->kind == V_HANDLE || v->kind == V_REGION ||
		          v->kind == V_DATA) && !mut) {
			error_at(S->d, value->pos, "'%s' is %s; a name cannot be bound to another name's %s", expr_str(value),
			         value_kind_name(v), v->kind == V_VAR ? "value (use it directly)" : "buffer");
			return false;
		}
		if (!v) {
			if (!in_func) {
				error_at(S->d, value->pos, "a module-level assignment must be a compile-time constant");
				return false;
			}
			Buffer *base = NULL;
			int dt = rfn ? scalar_builtin(S, value, rfn, &base) : scalar(S, value);
			if (dt == DT_ERROR)
				return false;
			if (s->ntargets != 1) {
				error_at(S->d, s->pos, "cannot unpack a scalar into %d names", s->ntargets);
				return false;
			}
			v = scalar_var(s->targets[0], value, concrete(dt), mut && concrete(dt) != DT_HANDLE);
			if (v->var->def == value)
				v->var->base = base;
			if (v->var->mut)
				mut_set(S, v->var, s->targets[0], value, -1);
		}
	}
	if (s->ntargets == 1) {
		if (one && !k0) {
			/* the kernel's blocks do not bind it (k0), nor do they now:
			 * what was checked since binds names only in blocks of its
			 * own, popped again (a comprehension's): only the module's
			 * block may */
			Env *m = S->env;
			while (!m->module)
				m = m->up;
			define_from(S, m, t0->str, h0, v, t0->pos);
		} else if (one)
			define_hashed(S, t0->str, h0, v, t0->pos);
		else
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

/* for i, j, ... in T.grid(m, n, ...): rewritten into the nest
 * for i in range(m): for j in range(n): ..., one loop per name. */
static bool grid(Sema *S, Stmt *s)
{
	Expr *t = s->targets[0], *it = s->value;
	Args a;
	if (!check_args(S, it, IN_GRID, &a))
		return false;
	int n = t->kind == E_TUPLE ? t->nargs : 1;
	if (n != it->nargs) {
		error_at(S->d, t->pos, "T.grid() of %d extent%s runs %d loop variable%s, not %d", it->nargs,
		         it->nargs == 1 ? "" : "s", it->nargs, it->nargs == 1 ? "" : "s", n);
		return false;
	}
	Stmt *inner = s;
	for (int i = n - 1; i >= 0; i--) {
		Stmt *l = i == 0 ? s : new_stmt(S_FOR, s->pos);
		Expr *r = new_call(it->args[i]->pos, new_name(it->args[i]->pos, "range"));
		call_add_arg(r, it->args[i]);
		if (i > 0) {
			l->body = inner == s ? s->body : NULL;
			l->nbody = inner == s ? s->nbody : 0;
			if (inner != s)
				vpush(l->body, l->nbody, inner);
		} else if (inner != s) {
			s->body = NULL;
			s->nbody = 0;
			vpush(s->body, s->nbody, inner);
		}
		l->targets = NULL;
		l->ntargets = 0;
		vpush(l->targets, l->ntargets, t->kind == E_TUPLE ? t->args[i] : t);
		l->value = r;
		inner = l;
	}
	return true;
}

/* Whether the callee of call is builtin id: 1, 0, or -1 after an error.
 * The rewrites below ask it only of a call their syntax already points
 * at (an attribute of that name): evaluating any callee early would
 * report a method call's errors out of turn. */
static int callee_is(Sema *S, const Expr *call, int id)
{
	Value *fn = eval(S, call->a);
	if (IS_ERR(fn))
		return -1;
	return fn && fn->kind == V_FUNC && fn->intrin == id;
}

/* TVM's threads of a CTA in several dimensions, `tx, ty = T.thread_id([32,
 * 4])` (threadIdx.x and .y, x the fastest, as CUDA numbers the threads of
 * a block): rewritten in place into one dimension, `_tid0 =
 * T.thread_id([128])`, and each name bound to its digit, `tx = _tid0 % 32`,
 * `ty = _tid0 // 32`, so that a warp is the same 32 threads. 1 done, 0 not
 * one, -1 error. */
static int thread_dims(Sema *S, Stmt ***v, int *n, int i)
{
	Stmt *s = (*v)[i];
	if (s->kind != S_ASSIGN || s->ann || s->value->kind != E_CALL || s->value->nargs != 1 || s->value->nkws ||
	    (s->value->args[0]->kind != E_LIST && s->value->args[0]->kind != E_TUPLE) || s->value->a->kind != E_ATTR ||
	    strcmp(s->value->a->str, "thread_id") != 0)
		return 0;
	/* the names: targets, or one tuple of them */
	Expr **tv = s->targets, *l = s->value->args[0];
	int nt = s->ntargets;
	if (nt == 1 && tv[0]->kind == E_TUPLE) {
		nt = tv[0]->nargs;
		tv = tv[0]->args;
	}
	if (nt < 2 || nt > 3 || l->nargs != nt)
		return 0;
	for (int k = 0; k < nt; k++)
		if (tv[k]->kind != E_NAME)
			return 0;
	int is = callee_is(S, s->value, IN_THREAD_ID);
	if (is <= 0)
		return is;
	int64_t e[3], total = 1;
	for (int k = 0; k < nt; k++) {
		bool ok = eval_int(S, l->args[k], "a thread extent", &e[k]);
		if (ok && (e[k] <= 0 || e[k] > 1024 || (total *= e[k]) > 1024)) {
			error_at(S->d, l->args[k]->pos, "T.thread_id() extents multiply to at most 1024 threads, each at "
			         "least 1");
			ok = false;
		}
		if (!ok) {
			for (int j = 0; j < nt; j++) /* silence the errors that would follow */
				if (!kernel_lookup(S, tv[j]->str))
					define(S, tv[j]->str, &verr, tv[j]->pos);
			return -1;
		}
	}
	const char *name;
	do
		name = xprintf("_tid%d", S->nviews++);
	while (lookup(S, name));
	Expr *one = new_expr(E_LIST, l->pos), *call = new_call(s->value->pos, s->value->a);
	Expr *ext = new_int(l->args[0]->pos, total);
	expr_set_args(one, &ext, 1);
	call_add_arg(call, one);
	Stmt *d = new_stmt(S_ASSIGN, s->pos);
	vpush(d->targets, d->ntargets, new_name(tv[0]->pos, name));
	d->value = call;
	(*v)[i] = d;
	int64_t inner = 1;
	for (int k = 0; k < nt; k++) {
		Stmt *a = new_stmt(S_ASSIGN, tv[k]->pos);
		vpush(a->targets, a->ntargets, tv[k]);
		Expr *x = ex_div(new_name(tv[k]->pos, name), inner);
		a->value = k == nt - 1 ? x : ex_mod(x, e[k]);
		inner *= e[k];
		stmt_insert(v, n, i + 1 + k, a);
	}
	return 1;
}

/* The txc launch id a TVM thread tag binds ("blockIdx.x": "T.cta_id"),
 * or NULL after an error at at (.y and .z: declare the dimensions at
 * once). */
static const char *binding_path(Sema *S, const char *tag, Pos at, const char *what);

/* TVM's `bx = T.launch_thread("blockIdx.x", n)`: rewritten in place into
 * `bx = T.cta_id([n])` (the thread tags of T.thread_binding). 1 done, 0
 * not one, -1 error. */
static int launch_thread(Sema *S, Stmt *s)
{
	if (s->kind != S_ASSIGN || s->ann || s->ntargets != 1 || s->targets[0]->kind != E_NAME ||
	    s->value->kind != E_CALL || s->value->a->kind != E_ATTR || strcmp(s->value->a->str, "launch_thread") != 0)
		return 0;
	int is = callee_is(S, s->value, IN_LAUNCH_THREAD);
	if (is <= 0)
		return is;
	Args a;
	const char *path = NULL;
	if (!check_args(S, s->value, IN_LAUNCH_THREAD, &a) ||
	    !(path = binding_path(S, a.pos[0]->s, s->value->args[0]->pos, "T.launch_thread"))) {
		define(S, s->targets[0]->str, &verr, s->targets[0]->pos); /* silence the errors that would follow */
		return -1;
	}
	Expr *l = new_expr(E_LIST, s->value->args[1]->pos), *ext = s->value->args[1];
	expr_set_args(l, &ext, 1);
	Expr *call = ex_call(path, 1, &l);
	call->pos = call->a->pos = s->value->pos;
	s->value = call;
	return 1;
}

/* TVM's launch loops: `for bx in T.thread_binding(n, thread="blockIdx.x"):`
 * (also (0, n, "blockIdx.x") and (n, "blockIdx.x")) runs its body once per
 * CTA, which is what txc's launch declaration says. Rewritten in place into
 * `bx = T.cta_id([n])` followed by the loop's body, spliced into the list
 * the loop was in. 1 done, 0 not one, -1 error. */
static const struct { const char *thread, *path; } bindings[] = {
	{"blockIdx.x", "T.cta_id"},
	{"threadIdx.x", "T.thread_id"},
	{"clusterCtaIdx.x", "T.cta_id_in_cluster"},
};

static const char *binding_path(Sema *S, const char *tag, Pos at, const char *what)
{
	for (size_t k = 0; k < sizeof bindings / sizeof bindings[0]; k++)
		if (!strcmp(bindings[k].thread, tag))
			return bindings[k].path;
	size_t len = strlen(tag);
	bool yz = len > 2 && tag[len - 2] == '.' && (tag[len - 1] == 'y' || tag[len - 1] == 'z');
	if (yz)
		error_at(S->d, at, "not supported yet: %s on \"%s\": txc binds the x dimension; declare several "
		         "dimensions at once, as in bx, by = T.cta_id([nx, ny])", what, tag);
	else
		error_at(S->d, at, "%s binds \"blockIdx.x\", \"threadIdx.x\" or \"clusterCtaIdx.x\", not \"%s\"", what, tag);
	return NULL;
}

static int thread_binding(Sema *S, Stmt ***v, int *n, int i)
{
	Stmt *s = (*v)[i];
	if (s->kind != S_FOR || s->value->kind != E_CALL || s->value->a->kind != E_ATTR ||
	    strcmp(s->value->a->str, "thread_binding") != 0)
		return 0;
	if (!desugar(S, &s->value))
		return -1;
	Expr *it = s->value, *t = s->targets[0];
	int is = callee_is(S, it, IN_THREAD_BINDING);
	if (is <= 0)
		return is;
	Args a;
	if (!check_args(S, it, IN_THREAD_BINDING, &a))
		return -1;
	Kw *th = kwarg(&a, "thread"), *ann = kwarg(&a, "annotations");
	if (ann) {
		error_at(S->d, ann->pos, "not supported yet: annotations= on T.thread_binding (txc's launch has none)");
		return -1;
	}
	/* (n, thread=), (n, "x"), (lo, hi, "x") or (lo, hi, thread=) */
	Expr *lo = NULL, *hi = it->args[0], *name = th ? th->value : NULL;
	int nnum = it->nargs;
	if (!th && it->nargs > 1) {
		name = it->args[it->nargs - 1];
		nnum--;
	}
	if (nnum > 2 || (th && it->nargs == 3)) {
		error_at(S->d, it->pos, "T.thread_binding takes (extent, thread=) or (start, stop, thread)");
		return -1;
	}
	if (nnum == 2) {
		lo = it->args[0];
		hi = it->args[1];
	}
	if (!name) {
		error_at(S->d, it->pos, "T.thread_binding needs the thread it binds (thread=\"blockIdx.x\", \"threadIdx.x\" or \"clusterCtaIdx.x\")");
		return -1;
	}
	Value *nv = eval_const(S, name, "the thread");
	if (IS_ERR(nv))
		return -1;
	if (nv->kind != V_STR) {
		error_at(S->d, name->pos, "the thread T.thread_binding binds is a string such as \"blockIdx.x\"");
		return -1;
	}
	const char *path = binding_path(S, nv->s, name->pos, "T.thread_binding");
	if (!path)
		return -1;
	int64_t start = 0, ext;
	if (lo && !eval_int(S, lo, "the start of a launch loop", &start))
		return -1;
	if (!eval_int(S, hi, "the extent of a launch loop", &ext))
		return -1;
	if (start != 0) {
		error_at(S->d, lo->pos, "a launch loop starts at 0 (the first %s), not %lld", nv->s, (long long)start);
		return -1;
	}
	if (t->kind != E_NAME) {
		error_at(S->d, t->pos, "a launch loop's variable is one name");
		return -1;
	}
	if (s->norelse) {
		error_at(S->d, s->pos, "a launch loop has no else branch");
		return -1;
	}
	/* bx = T.cta_id([n]); then the body */
	Expr *l = new_expr(E_LIST, hi->pos);
	vpush(l->args, l->nargs, new_int(hi->pos, ext));
	Expr *f = new_expr(E_ATTR, it->pos);
	f->a = new_name(it->pos, "T");
	f->str = path + 2;
	Expr *c = new_call(it->pos, f);
	call_add_arg(c, l);
	Stmt *asg = new_stmt(S_ASSIGN, s->pos);
	vpush(asg->targets, asg->ntargets, t);
	asg->value = c;
	(*v)[i] = asg;
	for (int k = 0; k < s->nbody; k++)
		stmt_insert(v, n, i + 1 + k, s->body[k]);
	return 1;
}

/* Whether check_args(it, id) of a loop's range(...), T.serial(...) or
 * T.unroll(...) would report nothing and write nothing new: the call was
 * checked as one (intrin), it has no keywords and one to three integer
 * literals, each annotated as scalar() annotates it. Those rows take one
 * to three scalar operands on any target, so the check passes; it writes
 * into each literal an equal value (vint: no reader compares them by
 * address) and the weak integer dtype, and id into intrin, what they
 * hold. The lowering shares one range(n) among its loops (variants/
 * lowering.c), checked again at each. */
static bool range_checked(const Expr *it, int id)
{
	if (it->intrin != id || it->nkws || it->nargs < 1 || it->nargs > 3)
		return false;
	for (int i = 0; i < it->nargs; i++)
		if (!literal_done(it->args[i]))
			return false;
	return true;
}

/* T.int32(e): e read at the given integer dtype. */
static Expr *cast_to(Expr *e, int dt)
{
	Expr *f = new_expr(E_ATTR, e->pos);
	f->a = new_name(e->pos, "T");
	f->str = dtypes[dt].name;
	Expr *c = new_call(e->pos, f);
	call_add_arg(c, e);
	return c;
}

/* TVM's keywords of a loop range, T.serial(lo, hi, step=2, unroll=False,
 * annotations={...}, dtype="uint32"), rewritten in place into the
 * positional form txc keeps: step= becomes the third bound (lo 0 where
 * only the extent is given); dtype= wraps each bound in T.int32(...) or
 * T.uint32(...), which types the variable as TVM's bounds cast to it do;
 * unroll=True makes the loop T.unroll; unroll=False or a count, and
 * annotations=, are hints to TVM's code generator that do not change what
 * the loop computes, and are dropped. False after an error. */
static bool loop_keywords(Sema *S, Expr *it, int id)
{
	if (!it->nkws)
		return true;
	if (id == IN_RANGE) {
		error_at(S->d, it->kws[0].pos, "range() takes no keyword arguments; T.serial(...) takes step=, unroll=, "
		         "annotations= and dtype=");
		return false;
	}
	Expr *step = NULL;
	int dt = DT_NONE;
	bool unroll = false;
	for (int i = 0; i < it->nkws; i++) {
		Kw *kw = &it->kws[i];
		if (!strcmp(kw->name, "step")) {
			step = kw->value;
		} else if (!strcmp(kw->name, "dtype")) {
			Value *v = eval(S, kw->value);
			if (IS_ERR(v))
				return false;
			dt = v && v->kind == V_STR ? dtype_lookup(v->s) : v && v->kind == V_DTYPE ? v->dtype : DT_NONE;
			if (dt != DT_INT32 && dt != DT_UINT32) {
				error_at(S->d, kw->value->pos, "a loop variable's dtype must be \"int32\" or \"uint32\", not %s",
				         expr_str(kw->value));
				return false;
			}
		} else if (!strcmp(kw->name, "unroll")) {
			Value *v = eval(S, kw->value);
			if (IS_ERR(v))
				return false;
			if (!v || (v->kind != V_BOOL && v->kind != V_INT) || (v->kind == V_INT && v->i < 0)) {
				error_at(S->d, kw->value->pos, "unroll= takes True, False or an unroll count, not %s",
				         expr_str(kw->value));
				return false;
			}
			unroll = v->kind == V_BOOL && v->i;
		} else if (!strcmp(kw->name, "annotations")) {
			Value *v = eval(S, kw->value);
			if (IS_ERR(v))
				return false;
			if (!v || v->kind != V_DICT) {
				error_at(S->d, kw->value->pos, "annotations= takes a dict of constants, not %s",
				         expr_str(kw->value));
				return false;
			}
		} else {
			error_at(S->d, kw->pos, "%s() has no keyword argument '%s'; it takes step, unroll, annotations and "
			         "dtype", fn_name(it), kw->name);
			return false;
		}
	}
	if (step) {
		if (it->nargs == 1) {
			call_add_arg(it, it->args[0]);
			it->args[0] = new_int(it->args[1]->pos, 0);
		} else if (it->nargs != 2) {
			error_at(S->d, step->pos, "%s() of %d bounds takes no step=", fn_name(it), it->nargs);
			return false;
		}
		call_add_arg(it, step);
	}
	/* int32 is a literal bound's own dtype (a step stays a constant) */
	for (int i = 0; dt != DT_NONE && i < it->nargs && i < 2; i++)
		if (dt != DT_INT32 || it->args[i]->kind != E_INT)
			it->args[i] = cast_to(it->args[i], dt);
	if (unroll && id == IN_SERIAL) {
		Expr *f = new_expr(E_ATTR, it->a->pos);
		f->a = new_name(it->a->pos, "T");
		f->str = "unroll";
		it->a = f;
	}
	it->kws = NULL;
	it->nkws = 0;
	return true;
}

static void for_stmt(Sema *S, Stmt *s)
{
	Expr *t = s->targets[0], *it = s->value;
	/* TVM's T.vectorized(n): a thread's loop its code generator turns
	 * into vector operations, the same values as T.unroll(n) */
	if (it->kind == E_CALL && it->a->kind == E_ATTR && it->a->a->kind == E_NAME && strcmp(it->a->a->str, "T") == 0 &&
	    (strcmp(it->a->str, "vectorized") == 0 || strcmp(it->a->str, "parallel") == 0)) {
		Value *ns = eval(S, it->a->a);
		if (ns && !IS_ERR(ns) && ns->kind == V_NAMESPACE && strcmp(ns->s, "T") == 0) {
			if (it->a->str[0] == 'p') {
				error_at(S->d, it->a->pos, "not supported yet: T.parallel, a loop over CPU threads; a GPU kernel's "
				         "threads are its launch (T.thread_id)");
				return;
			}
			Expr *f = new_expr(E_ATTR, it->a->pos);
			f->a = it->a->a;
			f->str = "unroll";
			it->a = f;
		}
	}
	Value *fn = it->kind == E_CALL ? eval(S, it->a) : NULL;
	if (IS_ERR(fn))
		return;
	if (fn && fn->kind == V_FUNC && fn->intrin == IN_GRID) {
		if (!grid(S, s))
			return;
		t = s->targets[0];
		it = s->value;
		fn = eval(S, it->a);
	}
	if (!fn || fn->kind != V_FUNC || (fn->intrin != IN_RANGE && fn->intrin != IN_SERIAL && fn->intrin != IN_UNROLL)) {
		error_at(S->d, it->pos, "a loop runs over range(...), T.serial(...) or T.unroll(...)");
		return;
	}
	if (!loop_keywords(S, it, fn->intrin))
		return;
	fn = eval(S, it->a);
	Args a;
	if (!range_checked(it, fn->intrin) && !check_args(S, it, fn->intrin, &a))
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
	bool empty = false;
	if ((!lo || expr_range(lo, &l0, &l1)) && expr_range(hi, &h0, &h1)) {
		if (h1 > l0) {
			v->lo = l0;
			v->hi = h1;
		}
		empty = h1 <= l0; /* range(0), range(4, 4): the body never runs */
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
	S->dead += empty;
	/* at most this many trips, where the bounds' ranges are known */
	int64_t trips = -1;
	if (v->hi > v->lo && it->args[it->nargs - 1]->val && it->nargs == 3 && it->args[2]->val->kind == V_INT)
		trips = (v->hi - v->lo + it->args[2]->val->i - 1) / it->args[2]->val->i;
	else if (v->hi > v->lo && it->nargs < 3)
		trips = v->hi - v->lo;
	else if (empty)
		trips = 0;
	MutLoop *L = mut_loop_enter(S, s, trips);
	int nctrl = S->nctrl;
	for (int i = 0; i < it->nargs; i++) /* the trips: the same in every thread where the bounds are */
		ctrl_push(S, it->args[i]);
	stmts(S, &s->body, &s->nbody);
	mut_loop_back(S, L);
	S->nctrl = nctrl;
	mut_loop_leave(S, L);
	S->dead -= empty;
	pop_env(S);
}

/* The Python of a statement's expressions rewritten into the text it
 * means (pyconst.c); false after an error.
 *
 * Skipped where `desugared` is set: the module was verified before, which
 * rewrote its kernels' Python in place, and the statements added since
 * (the passes' and txc-lower's) are made by the builders (ir/build.c) and
 * from copies of verified trees (expr_copy), never with Python's sugar: a
 * splat, a keyword dict, a comprehension, an f-string, a builtin over
 * constants, getattr or T.ceildiv. Desugaring a tree it has desugared
 * finds none of these and rewrites nothing; what it evaluates on the way
 * (a call's callee) the statement's own check evaluates too, so that a
 * statement it would refuse is refused without it.
 *
 * So are TVM's forms that sema rewrites in place into txc's (tvm.c,
 * pool.c): a view chain (X.sub[...], X.permute(...)) or a view passed
 * directly to a call, a pool's alloc(), MBarrier(), X.view("dtype").
 * The builders make none, and a verified tree has none left; where they
 * are not found, their checks set nothing (pool_alloc's depth, phase and
 * tma stay 0). */
static bool desugar_stmt(Sema *S, Stmt *s)
{
	if (desugared)
		return true;
	switch (s->kind) {
	case S_EXPR: case S_IF: case S_FOR: case S_WHILE:
		return desugar(S, &s->value);
	case S_DECL:
		return !s->ann || desugar(S, &s->ann);
	case S_ASSIGN: case S_AUGASSIGN:
		if (s->ann && !desugar(S, &s->ann))
			return false;
		for (int i = 0; i < s->ntargets; i++)
			if (s->targets[i]->kind != E_NAME && !desugar(S, &s->targets[i]))
				return false;
		return desugar(S, &s->value);
	default:
		return true;
	}
}

/* TVM's `m = T.int32()` before T.device_entry(): a size that TVM reads
 * from a tensor's shape (T.match_buffer(a, (m, 256))). txc's kernel
 * takes it as a scalar parameter after the declared ones (txc-run
 * --arg m=...). */
static bool implicit_param(Sema *S, Stmt *s)
{
	Expr *v = s->value;
	if (!S->func || S->in_device || s->ntargets != 1 || s->targets[0]->kind != E_NAME || !v || v->kind != E_CALL ||
	    v->nargs || v->nkws)
		return false;
	Value *fn = eval(S, v->a);
	if (!fn || IS_ERR(fn) || fn->kind != V_DTYPE)
		return false;
	const char *name = s->targets[0]->str;
	int k = dtypes[fn->dtype].kind;
	if (k != DK_INT && k != DK_UINT) {
		error_at(S->d, v->pos, "not supported yet: a %s size variable; the sizes a kernel takes are integers",
		         dtypes[fn->dtype].name);
		define(S, name, &verr, s->targets[0]->pos);
		return true;
	}
	if (S->env->up && !S->env->up->module) {
		error_at(S->d, v->pos, "%s = %s() declares a size of the kernel: write it in the kernel's body, before "
		         "T.device_entry()", name, fn_name(v));
		define(S, name, &verr, s->targets[0]->pos);
		return true;
	}
	if (kernel_lookup(S, name)) {
		error_at(S->d, s->targets[0]->pos, "'%s' is already defined", name);
		return true;
	}
	Var *var = new_var(name, s->targets[0]->pos, fn->dtype);
	s->targets[0]->var = var; /* (a declaration: the emulator does nothing for it) */
	var->param = true;
	var->set = true;
	vpush(S->func->scalars, S->func->nscalars, var);
	Value *val = vnew(V_VAR);
	val->var = var;
	define(S, name, val, s->targets[0]->pos);
	return true;
}

/* TVM's T.func_attr({"global_symbol": "f", ...}): attributes of the
 * PrimFunc for TVM's build, none of which changes what the kernel does;
 * the statement becomes `pass` once its argument is seen to be a dict of
 * constants. 1 done, 0 not one, -1 error. */
static int func_attr(Sema *S, Stmt *s)
{
	Expr *e = s->value;
	if (s->kind != S_EXPR || !S->func || e->kind != E_CALL || e->a->kind != E_ATTR ||
	    strcmp(e->a->str, "func_attr") != 0)
		return 0;
	Value *ns = eval(S, e->a->a);
	if (IS_ERR(ns) || !ns || ns->kind != V_NAMESPACE || strcmp(ns->s, "T") != 0)
		return 0;
	Value *v = e->nargs == 1 && !e->nkws ? eval(S, e->args[0]) : NULL;
	if (IS_ERR(v))
		return -1;
	if (!v || v->kind != V_DICT) {
		error_at(S->d, e->pos, "T.func_attr() takes one dict of constants, such as {\"global_symbol\": \"main\"}");
		return -1;
	}
	s->kind = S_PASS;
	s->value = NULL;
	return 1;
}

/* TVM's `v: T.float32[8]` (`m: T.f32[4, 8]`): a local buffer, the
 * statement rewritten into `v = T.alloc_local((8,), "float32")`. */
static bool local_annotation(Sema *S, Stmt *s)
{
	Expr *ann = s->ann;
	if (!ann || ann->kind != E_INDEX || s->ntargets != 1 || s->targets[0]->kind != E_NAME)
		return false;
	Value *v = eval(S, ann->a);
	if (!v || IS_ERR(v) || v->kind != V_DTYPE)
		return false;
	Expr *shape = new_expr(E_TUPLE, ann->pos);
	shape->paren = true;
	for (int i = 0; i < ann->nargs; i++)
		vpush(shape->args, shape->nargs, ann->args[i]);
	Expr *f = new_expr(E_ATTR, ann->pos);
	f->a = new_name(ann->pos, "T");
	f->str = "alloc_local";
	Expr *c = new_call(ann->pos, f);
	call_add_arg(c, shape);
	Expr *d = new_expr(E_STR, ann->pos);
	d->str = dtypes[v->dtype].name;
	call_add_arg(c, d);
	s->kind = S_ASSIGN;
	s->ann = NULL;
	s->value = c;
	return true;
}

/* An if's or a while's condition bounds the names it compares, in its
 * body: under `if tx < 32:` tx is in [0, 32), so `A[bx, tx * 2 + i]` of
 * a 64-wide A is in bounds there (the index checks and access proofs
 * read a Var's range). Taken from a conjunction (and, &) of comparisons
 * `name < k`, `<=`, `>`, `>=` (either side the name), k a constant or a
 * value of known range (`t < ntiles`, ntiles at most 2048: t < 2048), of
 * an integer name whose range is known (a mutable variable's range
 * there, vars.c: an assignment in the body replaces it); with neg, where
 * the condition fails (an else-branch): a `not` of those, an `or` (|) of
 * them, each comparison reversed; each narrowed Var's
 * range is kept in nw[] and put back after the body. Only a narrowing
 * that leaves two values or more: a Var of one value is never read as a
 * constant. The range memos read the Var's range at each hit (arith.c,
 * facts_same), so a fact found in the body is not reused outside it.
 * Returns the count in nw. */
typedef struct Narrow { Var *v; int64_t lo, hi; } Narrow;

static int narrow_by(const Expr *c, bool neg, Narrow *nw, int n, int max)
{
	/* and of the conditions, or (neg) not of their or */
	if (c->kind == (neg ? E_OR : E_AND) || (c->kind == E_BIN && c->op == (neg ? OP_BITOR : OP_BITAND))) {
		n = narrow_by(c->a, neg, nw, n, max);
		return narrow_by(c->b, neg, nw, n, max);
	}
	if (c->kind == E_NOT)
		return narrow_by(c->a, !neg, nw, n, max);
	if (c->kind != E_CMP || n == max)
		return n;
	const Expr *x = c->a, *k = c->b;
	int op = c->op;
	if (neg) /* not (x < k): x >= k */
		op = op == OP_LT ? OP_GE : op == OP_LE ? OP_GT : op == OP_GT ? OP_LE : op == OP_GE ? OP_LT :
		     op == OP_EQ ? OP_NE : -1;
	if (x->kind != E_NAME) { /* k OP name: name (OP mirrored) k */
		x = c->b, k = c->a;
		op = op == OP_LT ? OP_GT : op == OP_LE ? OP_GE : op == OP_GT ? OP_LT : op == OP_GE ? OP_LE : op;
	}
	int64_t klo, khi;
	Var *v = x->kind == E_NAME && !x->val ? x->var : NULL;
	if (!v || v->hi <= v->lo || !expr_range(k, &klo, &khi) || v->dtype >= DT_COUNT ||
	    (dtypes[v->dtype].kind != DK_INT && dtypes[v->dtype].kind != DK_UINT))
		return n;
	/* k a constant, or a value in [klo, khi] (`t < ntiles`) */
	int64_t lo = v->lo, hi = v->hi; /* [lo, hi) */
	switch (op) {
	case OP_LT: hi = khi < hi ? khi : hi; break;
	case OP_LE: hi = khi < INT64_MAX && khi + 1 < hi ? khi + 1 : hi; break;
	case OP_GT: lo = klo < INT64_MAX && klo + 1 > lo ? klo + 1 : lo; break;
	case OP_GE: lo = klo > lo ? klo : lo; break;
	case OP_NE: /* a constant at either end of the range: past it */
		if (klo != khi)
			return n;
		lo = klo == lo ? lo + 1 : lo;
		hi = klo == hi - 1 && hi - 1 > lo ? hi - 1 : hi;
		break;
	default: return n;
	}
	/* a range of one value only for a mutable variable (a thread's id
	 * narrowed to one value would read as the same in every thread) */
	if (hi - lo < (v->mut ? 1 : 2) || (lo == v->lo && hi == v->hi))
		return n;
	nw[n++] = (Narrow){ v, v->lo, v->hi };
	v->lo = lo, v->hi = hi;
	return n;
}

/* The ranges narrow_by narrowed, as they were: the last narrowed first. */
static void unnarrow(Narrow *nw, int nn)
{
	while (nn > 0) {
		nn--;
		nw[nn].v->lo = nw[nn].lo;
		nw[nn].v->hi = nw[nn].hi;
	}
}

static void stmt(Sema *S, Stmt *s)
{
	if (func_attr(S, s))
		return;
	if (!desugar_stmt(S, s)) {
		if (s->kind == S_ASSIGN)
			for (int i = 0; i < s->ntargets; i++) /* silence the errors that would follow */
				if (s->targets[i]->kind == E_NAME && !lookup(S, s->targets[i]->str))
					define(S, s->targets[i]->str, &verr, s->targets[i]->pos);
		return;
	}
	switch (s->kind) {
	case S_PASS:
		return;
	case S_EXPR:
		switch (S->func ? pool_stmt(S, s) : 0) {
		case -1: return;
		case 1: stmt(S, s); return; /* TVM's pool and mbarrier methods, in txc's statements */
		}
		call_stmt(S, s->value, s);
		return;
	case S_ASSIGN:
		if (implicit_param(S, s))
			return;
		assign(S, s);
		return;
	case S_DECL:
		if (S->func && local_annotation(S, s)) {
			stmt(S, s);
			return;
		}
		if (!annotated(S, s) && !kernel_lookup(S, s->targets[0]->str))
			define(S, s->targets[0]->str, &verr, s->targets[0]->pos);
		return;
	case S_AUGASSIGN:
		if (scalar_target(S, s)) {
			store(S, s, s->targets[0], s->value, s->op);
			return;
		}
		if (s->targets[0]->kind == E_NAME && S->func) {
			Sym *old = kernel_lookup(S, s->targets[0]->str);
			if (old && old->val->kind == V_VAR && old->val->var->mut)
				reassign(S, s, s->targets[0], old->val->var, s->value, s->op);
			else if (old && old->pos.place && !IS_ERR(old->val))
				bound_once(S, s->targets[0], old);
			else if (!old)
				error_at(S->d, s->targets[0]->pos, "cannot update '%s': it has no value yet; assign it first",
				         s->targets[0]->str);
			return;
		}
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
		bool guard = S->nguards < (int)(sizeof S->guards / sizeof S->guards[0]);
		if (guard)
			S->guards[S->nguards++] = s->value;
		MutRange *mv;
		int nm = mut_before(S, s->body, s->nbody, s->orelse, s->norelse, &mv);
		Narrow nw[8];
		int nn = dt == DT_BOOL ? narrow_by(s->value, false, nw, 0, 8) : 0;
		ctrl_push(S, s->value);
		stmts(S, &s->body, &s->nbody);
		for (int i = 0; i < nm; i++) /* what the body left */
			mv[i].blo = mv[i].v->lo, mv[i].bhi = mv[i].v->hi;
		unnarrow(nw, nn);
		for (int i = 0; i < nm; i++) /* the else-branch starts from the ranges before */
			mv[i].v->lo = mv[i].lo, mv[i].v->hi = mv[i].hi;
		if (guard)
			S->nguards--;
		pop_env(S);
		push_env(S, false);
		/* the else-branch, and the way past an if without one: where the
		 * condition fails */
		nn = dt == DT_BOOL ? narrow_by(s->value, true, nw, 0, 8) : 0;
		stmts(S, &s->orelse, &s->norelse);
		for (int i = 0; i < nm; i++) /* what the else-branch left, before the narrowing is undone */
			mv[i].lo = mv[i].v->lo, mv[i].hi = mv[i].v->hi;
		unnarrow(nw, nn);
		for (int i = 0; i < nm; i++)
			mv[i].v->lo = mv[i].lo, mv[i].v->hi = mv[i].hi;
		S->nctrl--;
		mut_join(mv, nm);
		pop_env(S);
		return;
	}
	case S_WHILE: {
		push_env(S, false);
		MutLoop *L = mut_loop_enter(S, s, -1); /* the condition is read at every trip */
		int dt = scalar(S, s->value);
		if (dt != DT_ERROR && dt != DT_BOOL)
			error_at(S->d, s->value->pos, "a while condition must be a boolean (a comparison), not %s",
			         dtype_str(dt));
		Narrow nw[8];
		int nn = dt == DT_BOOL ? narrow_by(s->value, false, nw, 0, 8) : 0;
		ctrl_push(S, s->value);
		stmts(S, &s->body, &s->nbody);
		mut_loop_back(S, L);
		S->nctrl--;
		unnarrow(nw, nn);
		mut_loop_leave(S, L);
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
		if (inline_is_def(S, s)) {
			inline_def(S, s);
			return;
		}
		error_at(S->d, s->pos, "a kernel cannot be defined inside another");
		return;
	case S_RETURN: case S_RAISE:
		error_at(S->d, s->pos, "'%s' belongs in a helper function (a module-level def without @T.prim_func); "
		         "a kernel returns nothing", s->kind == S_RETURN ? "return" : "raise");
		return;
	}
}

/* TVM's keyword bundle in a kernel, `args = T.meta_var({"dispatch": "tma",
 * "mbar": bar.ptr_to([0])})`, later unpacked into calls, `f(..., **args)`:
 * the name is bound to the dict display itself (V_DICT with macro), whose
 * items expand_call writes into each call as keywords, a fresh copy of each
 * value there (TVM's meta_var: the value is substituted where it is used);
 * the statement itself goes from the IR. 1: bound (or an error reported),
 * 0: not such a statement. */
static int meta_dict(Sema *S, Stmt *s)
{
	if (s->kind != S_ASSIGN || s->ntargets != 1 || s->targets[0]->kind != E_NAME || s->ann)
		return 0;
	Expr *e = s->value;
	if (e->kind != E_CALL || e->nargs != 1 || e->nkws || e->args[0]->kind != E_DICT)
		return 0;
	Value *fn = eval(S, e->a);
	if (!fn || IS_ERR(fn) || fn->kind != V_FUNC || fn->intrin != IN_META_VAR)
		return 0;
	Expr *d = e->args[0];
	for (int i = 0; i < d->nargs; i++)
		if (d->args[i]->kind != E_PAIR || d->args[i]->a->kind != E_STR) {
			error_at(S->d, d->args[i]->pos, "not supported yet: T.meta_var of a dict whose items are not all "
			         "\"keyword\": value (a string key, then its value)");
			return 1;
		}
	Value *v = vnew(V_DICT);
	v->macro = d;
	define(S, s->targets[0]->str, v, s->targets[0]->pos);
	return 1;
}

static bool is_assume(const Stmt *s)
{
	const Expr *e = s->kind == S_EXPR ? s->value : NULL;
	if (!e || e->kind != E_CALL || e->a->kind != E_ATTR || strcmp(e->a->str, "assume") != 0)
		return false;
	return e->a->a->kind == E_NAME && strcmp(e->a->a->str, "T") == 0;
}

/* The T.Buffer parameters of symbolic extent get their bounds. */
static void bound_pending(Sema *S)
{
	for (int i = 0; i < S->npending; i++)
		dyn_bound(S, S->pending[i], "at the top of the kernel's body");
	S->npending = 0;
}

/* The names a kernel's statements use (its E_NAME nodes), listed for
 * txc-lower's fresh names (Func's used): lower_begin walked the whole
 * kernel for them, from memory long out of the cache in a long kernel;
 * here each statement is walked once sema is done with it, while its
 * nodes are in the cache. A name met lately (the same string) is not
 * listed again. The lists of a verify_module's kernels lie one after
 * another in one array from malloc (used_pool, begun again by the next
 * verify_module that lists), as prescan's tables are: the arena would
 * keep each array a list outgrew.
 * The list is lower_begin's walk's answer: sema writes names into a
 * statement only while it checks it (rewrites in place, desugaring,
 * statements it splices in are checked after), and the passes between
 * the parse and txc-lower change only plans= and dispatch= keywords. The
 * names of a plan (T.plan, S[...], axes and layouts) are in the tree only
 * where the plans are written out (plans_flush: --dump-dir), which the
 * list may lack: none is a name the lowering makes fresh ones from (tid,
 * f, g_ptr, X_map, ...), as the in-process run, whose plans stay in
 * memory, already shows. The verify of txc-lower's output lists nothing:
 * no lowering follows it (func_list_used walks a kernel not listed). */
static const char *used_seen[64]; /* the names used_expr met lately, by address */

static const char **used_pool;
static int used_n, used_cap;

static void used_push(Func *f, const char *name)
{
	if (used_n == used_cap) {
		used_cap = used_cap ? 2 * used_cap : 1024;
		used_pool = realloc(used_pool, sizeof *used_pool * (size_t)used_cap);
		if (!used_pool)
			die("out of memory");
	}
	used_pool[used_n++] = name;
	f->nused++;
}

const char *const *func_used(const Func *f)
{
	return used_pool + f->used_at;
}

static void used_expr(Func *f, const Expr *e)
{
	for (; e; e = e->a) { /* the first operand's chain as a loop */
		if (e->kind == E_NAME) {
			const char **seen = &used_seen[((uintptr_t)e->str >> 3) % 64];
			if (*seen != e->str)
				used_push(f, e->str);
			*seen = e->str;
		}
		if (e->b && e->b->kind > E_NONE) /* a constant has no operands */
			used_expr(f, e->b);
		if (e->c && e->c->kind > E_NONE)
			used_expr(f, e->c);
		for (int i = 0; i < e->nargs; i++)
			if (e->args[i]->kind > E_NONE)
				used_expr(f, e->args[i]);
		for (int i = 0; i < e->nkws; i++)
			if (e->kws[i].value && e->kws[i].value->kind > E_NONE)
				used_expr(f, e->kws[i].value);
	}
}

/* s's own names, not its blocks' (stmts lists each of those) */
static void used_names(Func *f, const Stmt *s)
{
	for (int k = 0; k < s->ntargets; k++)
		used_expr(f, s->targets[k]);
	used_expr(f, s->value);
}

static void used_begin(Func *f)
{
	f->used_kept = true;
	f->used_at = used_n;
	f->nused = 0;
	memset(used_seen, 0, sizeof used_seen);
}

static void used_block(Func *f, Stmt **v, int n)
{
	for (int i = 0; i < n; i++) {
		used_names(f, v[i]);
		used_block(f, v[i]->body, v[i]->nbody);
		used_block(f, v[i]->orelse, v[i]->norelse);
	}
}

void func_list_used(Func *f)
{
	used_begin(f);
	used_block(f, f->stmt->body, f->stmt->nbody);
}

static void stmts(Sema *S, Stmt ***v, int *n)
{
	for (int i = 0; i < *n; i++) {
		/* a view passed directly to a call: bound to a fresh name just
		 * before it, and checked as that assignment first */
		Stmt *views[LAYOUT_MAX_ITERS];
		int k = S->func && !desugared ? tvm_inplace_views(S, (*v)[i], views, LAYOUT_MAX_ITERS) : 0;
		for (int j = 0; j < k; j++)
			stmt_insert(v, n, i + j, views[j]);
		if (S->func && thread_binding(S, v, n, i) < 0)
			continue;
		if (S->func && !desugared && thread_dims(S, v, n, i) < 0)
			continue;
		if (S->func && !desugared && launch_thread(S, (*v)[i]) < 0)
			continue;
		int inl = S->func && !desugared ? inline_call(S, v, n, i) : 0;
		if (inl < 0)
			continue;
		if (inl) { /* the body, checked here: its calls nest in it */
			static int inline_depth;
			if (inline_depth >= 64) {
				error_at(S->d, (*v)[i]->pos, "not supported yet: @T.inline calls nested more than 64 deep "
				         "(a recursive @T.inline function)");
				continue;
			}
			inline_depth++;
			stmt(S, (*v)[i]);
			inline_depth--;
			if (S->func->used_kept)
				used_names(S->func, (*v)[i]);
			continue;
		}
		if (S->func && !S->in_device && tvm_host_tensormap(S, v, n, i) < 0)
			continue;
		if (S->npending && !is_assume((*v)[i]))
			bound_pending(S);
		Stmt **parts;
		int np = S->func && !desugared ? unpack_split(S, (*v)[i], &parts) : 0;
		if (np < 0)
			continue;
		for (int j = 0; j < np; j++) /* `a, b = x, y`: a = x, then b = y */
			if (j)
				stmt_insert(v, n, i + j, parts[j]);
			else
				(*v)[i] = parts[0];
		int r = S->func ? meta_dict(S, (*v)[i]) : 0;
		if (r) { /* bound, or refused: the statement goes */
			memmove(&(*v)[i], &(*v)[i + 1], sizeof(Stmt *) * (size_t)(*n - i - 1));
			(*n)--;
			i--;
			continue;
		}
		stmt(S, (*v)[i]);
		if (S->func && S->func->used_kept)
			used_names(S->func, (*v)[i]);
	}
}

/* ---- kernels and the module ---------------------------------------------------------- */

/* Whether a parameter is declared with a dtype (n: T.int32). */
static bool scalar_param(Sema *S, Param *p)
{
	if (!p->type || p->type->kind == E_CALL)
		return false;
	Value *tv = eval(S, p->type);
	return tv && !IS_ERR(tv) && tv->kind == V_DTYPE;
}

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
			if (!buffer_shape(S, b, t->args[0]))
				return;
			if (b->dyn && kwarg(&a, "layout")) {
				error_at(S->d, kwarg(&a, "layout")->value->pos, "not supported yet: a layout for '%s', whose extent "
				         "'%s' is symbolic; such a buffer is row-major", b->name, b->dyn->name);
				return;
			}
			if (b->dyn) /* its bound: from the T.assume statements that open the body */
				vpush(S->pending, S->npending, b);
			b->dtype = a.pos[1] ? a.pos[1]->dtype : DT_FLOAT32; /* TVM's default */
			b->scope = SC_GLOBAL;
			Kw *sc = kwarg(&a, "scope");
			if (sc && sc->value->val && sc->value->val->kind == V_STR && strcmp(sc->value->val->s, "global") != 0) {
				const char *scn = sc->value->val->s;
				bool regs = !strcmp(scn, "local"), smem = !strncmp(scn, "shared", 6);
				error_at(S->d, sc->value->pos, "not supported yet: a kernel parameter in scope \"%s\": the host "
				         "launches a kernel with pointers to global memory, and %s; allocate it in the kernel: "
				         "%s = T.alloc_buffer(shape, dtype, scope=\"%s\"%s)", scn,
				         regs ? "a thread's registers exist only once it runs, so a __global__ function cannot take "
				         "them (TVM's tests declare one only to compile and inspect a copy out of registers, never to launch it)" : smem ? "a CTA's shared memory exists only once it runs "
				         "and starts uninitialized" : "no other memory", p->name, regs || smem ? scn : "shared",
				         call_kw(t, "layout") ? ", layout=..." : "");
				return;
			}
			b->is_param = true;
			if (!set_layout(S, b, kwarg(&a, "layout")))
				return;
			vpush(S->func->params, S->func->nparams, b);
			vpush(S->bufs, S->nbufs, b);
			v = vnew(V_BUFFER);
			v->buffer = b;
		} else if (tv && tv->kind == V_DTYPE && t->kind != E_CALL) {
			int k = dtypes[tv->dtype].kind;
			if (k != DK_INT && k != DK_UINT) {
				error_at(S->d, expr_start(t), "not supported yet: a %s kernel parameter; scalar parameters are "
				         "integers (T.int32, T.int64, ...), given to txc-emu and txc-run with --arg NAME=INTEGER",
				         dtypes[tv->dtype].name);
				define(S, p->name, &verr, p->pos);
				return;
			}
			Var *var = new_var(p->name, p->pos, tv->dtype);
			var->param = true;
			var->set = true;
			vpush(S->func->scalars, S->func->nscalars, var);
			v = vnew(V_VAR);
			v->var = var;
		}
	}
	if (!v) {
		error_at(S->d, p->type ? p->type->pos : p->pos,
		         "parameter '%s' needs a type: T.handle, T.Buffer(shape, dtype), or an integer dtype such as T.int32",
		         p->name);
		return;
	}
	define(S, p->name, v, p->pos);
}

/* The grid and its clusters (launch.def's GRID rows): T.cta_id declares
 * the grid, T.cta_id_in_cluster the cluster shape, T.cluster_id the
 * clusters of the grid; without T.cta_id the grid is the clusters times
 * the cluster shape. Each dimension of the grid holds whole clusters. */
static void check_grid(Sema *S, Func *f)
{
	const int64_t *cta = S->launch_dims[IN_CTA_ID], *in = S->launch_dims[IN_CTA_ID_IN_CLUSTER],
	              *of = S->launch_dims[IN_CLUSTER_ID];
	bool has_cta = cta[0] > 0, has_in = in[0] > 0, has_of = of[0] > 0;
	f->has_cluster = has_in || has_of;
	if (f->has_cluster && (f->grid_dyn[0] || f->grid_dyn[1] || f->grid_dyn[2])) {
		error_at(S->d, S->launch_list[IN_CTA_ID], "not supported yet: a grid of clusters whose extent is a run-time "
		         "value; the grid holds whole clusters, which txc checks on constant extents");
		return;
	}
	for (int d = 0; d < 3; d++) {
		char dim = "xyz"[d];
		int64_t k = has_in ? in[d] : 1, c = has_of ? of[d] : 1, lim = d == 0 ? INT32_MAX : 65535;
		f->cluster[d] = k;
		f->grid[d] = has_cta ? cta[d] : 1;
		if (!has_cta && (!mul_ok(c, k, &f->grid[d]) || f->grid[d] > lim)) {
			error_at(S->d, S->launch_list[IN_CLUSTER_ID],
			         "T.cluster_id's clusters of %lld CTAs make a grid of more than %lld CTAs in dimension %c, "
			         "more than CUDA launches", (long long)k, (long long)lim, dim);
			return;
		}
		if (f->grid[d] % k) {
			error_at(S->d, S->launch_list[IN_CTA_ID_IN_CLUSTER],
			         "a cluster of %lld CTAs in dimension %c does not divide the grid's %lld there (T.cta_id on "
			         "line %d); the grid holds whole clusters", (long long)k, dim, (long long)f->grid[d],
			         S->launch_pos[IN_CTA_ID].line);
			return;
		}
		if (has_of && c != f->grid[d] / k) {
			error_at(S->d, S->launch_list[IN_CLUSTER_ID],
			         "T.cluster_id declares %lld cluster%s in dimension %c, but the grid's %lld CTAs there (T.cta_id "
			         "on line %d) in clusters of %lld make %lld", (long long)c, c == 1 ? "" : "s", dim,
			         (long long)f->grid[d], S->launch_pos[IN_CTA_ID].line, (long long)k,
			         (long long)(f->grid[d] / k));
			return;
		}
	}
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
			int64_t span, lim = a >= AX_CBX && a <= AX_CBZ ? f->cluster[a - AX_CBX] :
			                    axis_mod(a) ? axis_mod(a) / axis_div(a) : f->threads / axis_div(a);
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
	if (s->ret && s->ret->kind != E_NONE)
		error_at(S->d, s->ret->pos, "a kernel returns nothing: its return annotation is '-> None' or none");
	for (int i = 0; i < s->nparams; i++)
		if (s->params[i].dflt)
			error_at(S->d, s->params[i].dflt->pos, "not supported yet: a default value of a kernel's parameter");
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
	memset(S->launch_dims, 0, sizeof S->launch_dims);
	S->cta_group = 0;
	S->tmem_ops = 0;
	if (!desugared) /* txc-lower's output is not lowered again */
		used_begin(f);
	push_env(S, false);
	prescan(s);
	S->npending = 0;
	/* the scalar parameters first: a T.Buffer's shape may name one */
	bool *typed = xalloc(sizeof(bool) * (size_t)(s->nparams + 1));
	for (int i = 0; i < s->nparams; i++)
		typed[i] = !s->params[i].type || desugared || desugar(S, &s->params[i].type);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < s->nparams; i++)
			if (typed[i] && scalar_param(S, &s->params[i]) == !pass)
				param(S, &s->params[i]);
	int errors = S->d->errors;
	stmts(S, &s->body, &s->nbody);
	mut_uniform(S);
	mut_forget(S);
	bound_pending(S);
	/* handles without a shape (unless a failed match_buffer explains it) */
	for (int i = 0; i < s->nparams && S->d->errors == errors; i++) {
		Sym *sym = env_find(S->env, s->params[i].name);
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
	f->sig = xalloc((size_t)(s->nparams + f->nscalars + f->ntmaps) + 1);
	f->sig_at = xalloc(sizeof(int) * (size_t)(s->nparams + f->nscalars + f->ntmaps + 1));
	for (int i = 0; i < s->nparams; i++) {
		Sym *sym = env_find(S->env, s->params[i].name);
		for (int k = 0; sym && k < f->nparams; k++)
			if ((sym->val->kind == V_HANDLE && f->params[k]->param == sym->val->var) ||
			    (sym->val->kind == V_BUFFER && f->params[k] == sym->val->buffer)) {
				f->sig[f->nsig] = 'b';
				f->sig_at[f->nsig++] = nparams;
				vpush(params, nparams, f->params[k]);
			}
		for (int k = 0; sym && k < f->nscalars; k++)
			if (sym->val->kind == V_VAR && sym->val->var == f->scalars[k]) {
				f->sig[f->nsig] = 's';
				f->sig_at[f->nsig++] = k;
			}
	}
	f->params = params;
	f->nparams = nparams;
	for (int k = 0; k < f->nscalars; k++) { /* m = T.int32(): after the declared parameters */
		bool in = false;
		for (int i = 0; i < f->nsig; i++)
			in |= f->sig[i] == 's' && f->sig_at[i] == k;
		if (!in) {
			f->sig[f->nsig] = 's';
			f->sig_at[f->nsig++] = k;
		}
	}
	for (int k = 0; k < f->ntmaps; k++) {
		f->sig[f->nsig] = 't';
		f->sig_at[f->nsig++] = k;
	}
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
			n = S->launch_ext[from] * axis_div(thread_launch(from)->axis);
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
		if (id == IN_LANE_ID && S->launch[id] && n % ES_WARP_SIZE)
			error_at(S->d, S->launch_pos[id], "T.lane_id needs whole warps, but the CTA has %lld threads",
			         (long long)n);
		if (!S->launch[id] || id == from || id == IN_LANE_ID || S->launch_ext[id] == want)
			continue;
		if (!axis_mod(l->axis))
			error_at(S->d, S->launch_pos[id], "%s([%lld]) means %lld threads, but the CTA has %lld",
			         intrins[id].path, (long long)S->launch_ext[id],
			         (long long)(S->launch_ext[id] * axis_div(l->axis)), (long long)n);
		else
			error_at(S->d, S->launch_pos[id], "%s([%lld]): a CTA of %lld threads has %lld %ss in a %s",
			         intrins[id].path, (long long)S->launch_ext[id], (long long)n, (long long)want,
			         exec_scope_names[axes[l->axis].inner], exec_scope_names[axes[l->axis].outer]);
	}
	check_grid(S, f);
	check_thread_axes(S, f);
	/* check_tmem_allocs judges only the statements whose call is one of
	 * the ops tmem_ops counts (call_builtin): without an error, stmts
	 * checked every statement and call_stmt counted those; after one, a
	 * statement left unchecked may keep what an earlier verify_module
	 * wrote, and the walk runs as before */
	if (S->tmem_ops || S->d->errors != errors)
		check_tmem_allocs(S, f);
	pool_check(S, f);
	int64_t used = smem_plan(f);
	if (f->dyn_smem && f->dyn_smem < used)
		error_at(S->d, f->dyn_smem_at, "T.attr gives the kernel %lld bytes of dynamic shared memory, but its shared "
		         "buffers take %lld", (long long)f->dyn_smem, (long long)used);
	else if (f->dyn_smem > targets[S->m->target].smem)
		error_at(S->d, f->dyn_smem_at, "T.attr asks for %lld bytes of dynamic shared memory; %s allows at most %lld",
		         (long long)f->dyn_smem, target_label(S->m->target), (long long)targets[S->m->target].smem);
	else
		check_memory_limits(S, f);
}

/* A name from a module txc does not know, or that txc knows but not the
 * name: an error only where it is used (opaque_use). */
static Value *opaque(Sema *S, const char *module, const char *name, bool known)
{
	S->opaque_bound = true;
	Value *v = vnew(V_OPAQUE);
	v->s = module;
	v->name = name;
	v->i = known;
	return v;
}

static bool same_meaning(const Value *a, const Value *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case V_OPAQUE: return !strcmp(a->s, b->s) && !a->name == !b->name && (!a->name || !strcmp(a->name, b->name));
	case V_NAMESPACE: return !strcmp(a->s, b->s);
	case V_FUNC: return a->intrin == b->intrin;
	case V_AXIS: return a->axis == b->axis;
	default: return false;
	}
}

/* Imports bind names once, but as in Python an import may bind a name
 * again to what it means already (`import tvm` then `import tvm.testing`). */
static void bind_import(Sema *S, const char *name, Value *v, Pos pos)
{
	Sym *old = env_find(S->env, name);
	if (old && old->pos.place && same_meaning(old->val, v))
		return;
	define(S, name, v, pos);
}

static void import(Sema *S, Stmt *s)
{
	if (!s->from) {
		/* `import a.b.c` binds a (the package), `import a.b.c as x` the module */
		const char *module = s->name ? s->module : xstrndup(s->module, strcspn(s->module, "."));
		bool known;
		const char *dot = strrchr(module, '.');
		const char *path = dot ? import_lookup(xstrndup(module, (size_t)(dot - module)), dot + 1, &known) : NULL;
		Value *v = path && strcmp(path, "T") == 0 ? meaning(path) : opaque(S, module, NULL, false);
		bind_import(S, s->name ? s->name : module, v, s->pos);
		return;
	}
	for (int i = 0; i < s->naliases; i++) {
		Alias *a = &s->aliases[i];
		bool known;
		const char *path = import_lookup(s->module, a->name, &known);
		bind_import(S, a->as ? a->as : a->name, path ? meaning(path) : opaque(S, s->module, a->name, known), a->pos);
	}
}

bool verify_module(Module *m, Diag *d)
{
	Sema S = {0};
	S.m = m;
	S.d = d;
	m->nnames = 0;
	m->byname = (Map){ 0 };
	if (!desugared) /* its kernels list their names anew */
		used_n = 0;
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
			if (s->ndecorators)
				kernel(&S, s);
			else
				helper_def(&S, s);
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
