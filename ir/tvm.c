/* TVM's spellings beside txc's own: each is rewritten in place, where sema
 * meets it, into the txc builtin that means the same (so every program
 * after txc-parse sees only txc's own spelling), or refused with "not
 * supported yet" and why (the rows of ir/tvm.def). */
#include <string.h>

#include "sema.h"

static const struct TileKw {
	const char *name;
	char kind;
	const char *op, *variant, *meaning, *why;
} tile_kws[] = {
#define TILE_KW(name, kind, op, variant, meaning, why) { name, kind, op, variant, meaning, why },
#define TVM_NAME(path, why)
#define TVM_METHOD(name, why)
#define TILE_ALIAS(tvm, txc)
#define CACHE_POLICY(name, policy)
#include "tvm.def"
#undef TILE_KW
#undef TVM_NAME
#undef TVM_METHOD
#undef TILE_ALIAS
#undef CACHE_POLICY
};

static const struct Refused { const char *name, *why; } tvm_names[] = {
#define TILE_KW(name, kind, op, variant, meaning, why)
#define TVM_NAME(path, why) { path, why },
#define TVM_METHOD(name, why)
#define TILE_ALIAS(tvm, txc)
#define CACHE_POLICY(name, policy)
#include "tvm.def"
#undef TILE_KW
#undef TVM_NAME
#undef TVM_METHOD
#undef TILE_ALIAS
#undef CACHE_POLICY
}, tvm_methods[] = {
#define TILE_KW(name, kind, op, variant, meaning, why)
#define TVM_NAME(path, why)
#define TVM_METHOD(name, why) { name, why },
#define TILE_ALIAS(tvm, txc)
#define CACHE_POLICY(name, policy)
#include "tvm.def"
#undef TILE_KW
#undef TVM_NAME
#undef TVM_METHOD
#undef TILE_ALIAS
#undef CACHE_POLICY
};

static const struct KwAlias { const char *tvm, *txc; } tile_aliases[] = {
#define TILE_KW(name, kind, op, variant, meaning, why)
#define TVM_NAME(path, why)
#define TVM_METHOD(name, why)
#define TILE_ALIAS(tvm, txc) { tvm, txc },
#define CACHE_POLICY(name, policy)
#include "tvm.def"
#undef TILE_KW
#undef TVM_NAME
#undef TVM_METHOD
#undef TILE_ALIAS
#undef CACHE_POLICY
};

static const struct Policy { const char *name; uint64_t policy; } cache_policies[] = {
#define TILE_KW(name, kind, op, variant, meaning, why)
#define TVM_NAME(path, why)
#define TVM_METHOD(name, why)
#define TILE_ALIAS(tvm, txc)
#define CACHE_POLICY(name, policy) { name, policy },
#include "tvm.def"
#undef TILE_KW
#undef TVM_NAME
#undef TVM_METHOD
#undef TILE_ALIAS
#undef CACHE_POLICY
};

#define COUNT(v) (sizeof v / sizeof v[0])

const char *tvm_refused_name(const char *path)
{
	for (size_t i = 0; i < COUNT(tvm_names); i++)
		if (strcmp(tvm_names[i].name, path) == 0)
			return tvm_names[i].why;
	return NULL;
}

static const struct TileKw *tile_kw(const char *name)
{
	for (size_t i = 0; i < COUNT(tile_kws); i++)
		if (strcmp(tile_kws[i].name, name) == 0)
			return &tile_kws[i];
	return NULL;
}

int tvm_tile_kw(Sema *S, Expr *call, Kw *kw, int id)
{
	const struct TileKw *t = tile_kw(kw->name);
	if (!t)
		return -1;
	if (t->why) {
		error_at(S->d, kw->pos, "not supported yet: %s=: %s", kw->name, t->why);
		return 0;
	}
	const char *op = id == IN_COPY ? "copy" : "copy_async";
	if (strcmp(t->op, "*") != 0 && strcmp(t->op, op) != 0) {
		error_at(S->d, kw->pos, "%s() has no keyword argument '%s'; it is a keyword of %s (%s)", fn_name(call),
		         kw->name, t->op, t->variant);
		return 0;
	}
	return t->kind;
}

bool tvm_is_tile_kw(const char *name)
{
	const struct TileKw *t = tile_kw(name);
	return t && !t->why;
}

const char *tile_kw_variant(const char *name)
{
	const struct TileKw *t = tile_kw(name);
	return t && !t->why ? t->variant : NULL;
}

/* TVM's names of txc's tile keywords (TILE_ALIAS), renamed in place, and
 * cache_hint="name" (CACHE_POLICY) made the policy's constant. False after
 * an error. */
bool tvm_tile_aliases(Sema *S, Expr *call)
{
	bool ok = true;
	for (int i = 0; i < call->nkws; i++) {
		Kw *kw = &call->kws[i];
		for (size_t a = 0; a < COUNT(tile_aliases); a++) {
			const struct KwAlias *al = &tile_aliases[a];
			if (strcmp(kw->name, al->tvm) != 0)
				continue;
			if (call_kw(call, al->txc)) {
				error_at(S->d, kw->pos, "%s= is TVM's name of %s=, which is given too", al->tvm, al->txc);
				ok = false;
				break;
			}
			if (!strcmp(al->tvm, "tensormap_l2_promotion")) {
				/* TVM's enum (0..3) or its names, as bytes */
				static const char *const names[][2] = { { "none", "L2::none" }, { "L2::64B", "" },
				                                         { "L2::128B", "" }, { "L2::256B", "" } };
				static const int bytes[] = { 0, 64, 128, 256 };
				Value *v = eval_const(S, kw->value, "tensormap_l2_promotion=");
				if (IS_ERR(v)) {
					ok = false;
					break;
				}
				int k = -1;
				for (int j = 0; j < 4 && v->kind == V_STR; j++)
					if (!strcmp(v->s, names[j][0]) || !strcmp(v->s, names[j][1]))
						k = j;
				if (v->kind == V_INT && v->i >= 0 && v->i <= 3)
					k = (int)v->i;
				if (k < 0) {
					error_at(S->d, kw->value->pos, "tensormap_l2_promotion= is 0, 1, 2, 3 or \"none\", \"L2::64B\", "
					         "\"L2::128B\", \"L2::256B\" (TVM's), not %s", v->kind == V_STR ? xprintf("\"%s\"", v->s) :
					         v->kind == V_INT ? xprintf("%lld", (long long)v->i) : value_kind_name(v));
					ok = false;
					break;
				}
				kw->value = new_int(kw->value->pos, bytes[k]);
			}
			kw->name = al->txc;
		}
		if (!strcmp(kw->name, "cache_hint") && kw->value->kind == E_STR) {
			size_t c = 0;
			while (c < COUNT(cache_policies) && strcmp(cache_policies[c].name, kw->value->str) != 0)
				c++;
			if (c == COUNT(cache_policies)) {
				Buf names = { 0 };
				for (size_t j = 0; j < COUNT(cache_policies); j++)
					bprintf(&names, "%s\"%s\"", j ? ", " : "", cache_policies[j].name);
				error_at(S->d, kw->value->pos, "cache_hint= is a 64-bit L2 cache policy or one of %s, not \"%s\"",
				         names.s, kw->value->str);
				ok = false;
				continue;
			}
			kw->value = new_int(kw->value->pos, (int64_t)cache_policies[c].policy);
		}
	}
	return ok;
}

/* ---- building txc's spelling --------------------------------------------------- */

static Expr *callee(Pos p, const char *path)
{
	/* "T.address_of" as T . address_of */
	Expr *f = new_name(p, "T");
	Expr *a = new_expr(E_ATTR, p);
	a->a = f;
	a->str = path + 2;
	return a;
}

/* The call e becomes path(args...) (keywords dropped). */
static void become_call(Expr *e, const char *path, int n, Expr **args)
{
	e->a = callee(e->pos, path);
	e->args = NULL;
	e->nargs = 0;
	e->kws = NULL;
	e->nkws = 0;
	for (int i = 0; i < n; i++)
		call_add_arg(e, args[i]);
}

/* [i, j] or (i, j): the indices of one element of b. */
static bool index_list(Sema *S, Expr *call, Buffer *b, const char *method)
{
	if (call->nargs != 1 || call->nkws || (call->args[0]->kind != E_LIST && call->args[0]->kind != E_TUPLE)) {
		error_at(S->d, call->pos, "%s.%s() takes one list of indices, one per dimension: %s.%s([i, j])", b->name,
		         method, b->name, method);
		return false;
	}
	Expr *l = call->args[0];
	if (l->nargs != b->ndim) {
		error_at(S->d, l->pos, "buffer '%s' has %d dimension%s but %s() was given %d ind%s", b->name, b->ndim,
		         b->ndim == 1 ? "" : "s", method, l->nargs, l->nargs == 1 ? "ex" : "ices");
		return false;
	}
	return true;
}

static const char *const methods[] = { "ptr_to", "access_ptr", "elem_offset_of" };

bool tvm_is_method(const char *name)
{
	for (size_t i = 0; i < COUNT(methods); i++)
		if (strcmp(methods[i], name) == 0)
			return true;
	return strcmp(name, "local") == 0;
}

Value *tvm_refused_member(Sema *S, Expr *e)
{
	for (size_t i = 0; i < COUNT(tvm_methods); i++)
		if (strcmp(tvm_methods[i].name, e->str) == 0)
			return fail(S, e->pos, "not supported yet: %s.%s: %s", e->a->kind == E_NAME ? e->a->str : "view(...)",
			            e->str, tvm_methods[i].why);
	return NULL;
}

Value *tvm_member(Sema *S, Expr *e, Buffer *b)
{
	if (tvm_refused_member(S, e))
		return &verr;
	if (b->mbar_depth && !strcmp(e->str, "remote_view"))
		return fail(S, e->pos, "not supported yet: %s.remote_view(): an mbarrier of another CTA of a cluster; txc "
		            "launches no clusters yet", b->name);
	if (b->mbar_depth && (!strcmp(e->str, "init") || !strcmp(e->str, "wait") || !strcmp(e->str, "arrive")))
		return fail(S, e->pos, "%s.%s(...) is a statement of its own", b->name, e->str);
	if (b->pool && (!strcmp(e->str, "alloc") || !strcmp(e->str, "commit")))
		return fail(S, e->pos, "%s", !strcmp(e->str, "alloc") ? xprintf("%s.alloc(...) is assigned to a name: "
		            "X = %s.alloc(shape, dtype)", b->name, b->name) : xprintf("%s.commit() is a statement of its own",
		            b->name));
	if (b->pool)
		return fail(S, e->pos, "pool '%s' has no attribute '%s' (txc's pools have alloc and commit; other TVM pool "
		            "methods are not supported yet)", b->name, e->str);
	return fail(S, e->pos, "buffer '%s' has no attribute '%s' (it has data, shape, dtype, view, local, ptr_to, "
	            "access_ptr and elem_offset_of)", b->name, e->str);
}

/* buf.ptr_to([i, j]) -> T.address_of(buf[i, j]);
 * buf.access_ptr("r", offset=k) -> T.pointer_offset(buf, k);
 * buf.elem_offset_of([i, j]) -> the storage offset of buf[i, j], as an expression;
 * T.meta_var(x) -> x. */
/* A shape operand of tile_to: a tuple of positive integer constants. */
static bool shape_arg(Sema *S, Expr *x, const char *what, int64_t **out, int *n)
{
	Value *v = eval(S, x);
	if (IS_ERR(v))
		return false;
	if (v && v->kind == V_INT) {
		*out = xalloc(sizeof(int64_t));
		(*out)[0] = v->i;
		*n = 1;
	} else if (v && v->kind == V_TUPLE && v->nelts >= 1 && v->nelts <= LAYOUT_MAX_ITERS) {
		*out = xalloc(sizeof(int64_t) * (size_t)v->nelts);
		*n = v->nelts;
		for (int i = 0; i < v->nelts; i++) {
			if (v->elts[i]->kind != V_INT)
				goto bad;
			(*out)[i] = v->elts[i]->i;
		}
	} else {
		goto bad;
	}
	for (int i = 0; i < *n; i++)
		if ((*out)[i] <= 0)
			goto bad;
	return true;
bad:
	error_at(S->d, x->pos, "tile_to() takes %s as a tuple of positive integer constants", what);
	return false;
}

/* L.tile_to(to_shape, atom_shape): TVM's Layout.tile_to, the atom L (of
 * shape atom_shape) repeated over to_shape, its copies in row-major order:
 * L.tile(TileLayout(S[to // atom]), to // atom, atom). A ComposeLayout keeps
 * its swizzle over the tiled layout, as TVM's does. Rewritten in place into
 * the layout it makes. 1 done, 0 not one, -1 error. */
/* A call of X.method(...) whose X is a value of kind `kind`: 1 with *out
 * its value, 0 not one, -1 after an error evaluating X. */
static int receiver(Sema *S, Expr *f, const char *method, enum ValueKind kind, Value **out)
{
	if (f->kind != E_ATTR || strcmp(f->str, method) != 0)
		return 0;
	Value *v = eval(S, f->a);
	if (IS_ERR(v))
		return -1;
	if (!v || v->kind != kind)
		return 0;
	*out = v;
	return 1;
}

static int tile_to(Sema *S, Expr *e)
{
	Expr *f = e->a;
	Value *lv;
	int r = receiver(S, f, "tile_to", V_LAYOUT, &lv);
	if (r <= 0)
		return r;
	if (lv->i) {
		error_at(S->d, f->pos, "tile_to() tiles a layout with a shard S[...], not %s",
		         lv->i == 2 ? "a swizzle alone (compose it over a tile layout first)" : "replicas R[...] alone");
		return -1;
	}
	if (!expand_call(S, e)) /* tile_to(*shapes) written out */
		return -1;
	if (e->nargs != 2 || e->nkws) {
		error_at(S->d, e->pos, "tile_to() takes two shapes: L.tile_to(to_shape, atom_shape)");
		return -1;
	}
	int64_t *to, *atom;
	int n, na;
	if (!shape_arg(S, e->args[0], "the shape to tile to", &to, &n) ||
	    !shape_arg(S, e->args[1], "the atom's shape", &atom, &na))
		return -1;
	if (n != na) {
		error_at(S->d, e->pos, "tile_to(): the shape to tile to has %d dimensions but the atom's shape has %d", n, na);
		return -1;
	}
	int64_t tiles[LAYOUT_MAX_ITERS], size, want = 1, total = 1;
	for (int d = 0; d < n; d++)
		if (!mul_ok(want, atom[d], &want))
			want = -1;
	for (int d = 0; d < n; d++)
		if (!mul_ok(total, to[d], &total)) {
			error_at(S->d, e->args[0]->pos, "tile_to(): the shape to tile to has more than 2^63 elements");
			return -1;
		}
	if (!layout_size(lv->layout, &size) || size != want) {
		error_at(S->d, e->args[1]->pos, "tile_to(): the atom has %lld elements but its shape %s has %lld",
		         (long long)size, expr_str(e->args[1]), (long long)want);
		return -1;
	}
	for (int d = 0; d < n; d++) {
		if (to[d] % atom[d]) {
			error_at(S->d, e->args[0]->pos, "tile_to(): dimension %d of the shape to tile to (%lld) is not a multiple "
			         "of the atom's (%lld)", d, (long long)to[d], (long long)atom[d]);
			return -1;
		}
		tiles[d] = to[d] / atom[d];
	}
	Layout *inner = layout_copy(lv->layout);
	inner->swizzled = false;
	Layout *outer = layout_new();
	layout_default(outer, tiles, n);
	const char *why = NULL;
	Layout *t = layout_tile(outer, tiles, inner, atom, n, &why);
	if (!t) {
		error_at(S->d, e->pos, "tile_to(): %s", why);
		return -1;
	}
	t = layout_canonical(t);
	t->swizzled = lv->layout->swizzled;
	t->swz_m = lv->layout->swz_m, t->swz_b = lv->layout->swz_b, t->swz_s = lv->layout->swz_s;
	Pos p = e->pos;
	Expr *x = layout_expr(t);
	if (!t->swizzled)
		x = ex_call("TileLayout", 1, &x);
	*e = *x;
	e->pos = p;
	return 1;
}

/* TVM's keyword form of tcgen05.ld / st, T.ptx.tcgen05.ld(taddr, regs...,
 * shape="32x32b", num=1, row=0, col=0, pack=False) -> txc's positional
 * T.ptx.tcgen05.ld(taddr, row, col, shape, num, pack, regs...): 1 when
 * rewritten, 0 when e is not that form, -1 after an error. */
int tvm_tcgen05_ldst_kw(Sema *S, Expr *e)
{
	if (!e->nkws || e->a->kind != E_ATTR)
		return 0;
	Value *fn = eval(S, e->a);
	if (IS_ERR(fn))
		return -1;
	if (!fn || fn->kind != V_FUNC || (fn->intrin != IN_TC_LD && fn->intrin != IN_TC_ST))
		return 0;
	static const char *const names[] = { "row", "col", "shape", "num", "pack" };
	Expr *kw[5] = { 0 };
	for (int i = 0; i < e->nkws; i++) {
		size_t k = 0;
		while (k < 5 && strcmp(names[k], e->kws[i].name) != 0)
			k++;
		if (k == 5) {
			error_at(S->d, e->kws[i].pos, "%s() has no keyword argument '%s'; TVM's form takes shape=, num=, row=, "
			         "col= and pack=", intrins[fn->intrin].path, e->kws[i].name);
			return -1;
		}
		kw[k] = e->kws[i].value;
	}
	if (!kw[2]) {
		error_at(S->d, e->pos, "%s(taddr, registers..., shape=...) needs shape= (\"32x32b\", \"16x64b\", ...)",
		         intrins[fn->intrin].path);
		return -1;
	}
	if (e->nargs < 2) {
		error_at(S->d, e->pos, "%s(taddr, registers..., shape=...) takes the address and the registers",
		         intrins[fn->intrin].path);
		return -1;
	}
	int n = e->nargs;
	Expr **args = xalloc(sizeof(Expr *) * (size_t)(n + 5));
	args[0] = e->args[0];
	args[1] = kw[0] ? kw[0] : new_int(e->pos, 0);
	args[2] = kw[1] ? kw[1] : new_int(e->pos, 0);
	args[3] = kw[2];
	args[4] = kw[3] ? kw[3] : new_int(e->pos, 1);
	args[5] = kw[4] ? kw[4] : new_expr(E_FALSE, e->pos);
	for (int i = 1; i < n; i++)
		args[5 + i] = e->args[i];
	become_call(e, intrins[fn->intrin].path, n + 5, args);
	return 1;
}

int tvm_call(Sema *S, Expr *e)
{
	Expr *f = e->a;
	int r = tile_to(S, e);
	if (r)
		return r;
	if ((f->kind == E_ATTR && f->a->kind == E_NAME && strcmp(f->str, "meta_var") == 0) ||
	    (f->kind == E_NAME && strcmp(f->str, "meta_var") == 0)) {
		Value *fn = eval(S, f);
		if (IS_ERR(fn))
			return -1;
		if (!fn || fn->kind != V_FUNC || fn->intrin != IN_META_VAR)
			return 0;
		if (e->nargs != 1 || e->nkws) {
			error_at(S->d, e->pos, "T.meta_var() takes one value");
			return -1;
		}
		Pos p = e->pos;
		*e = *e->args[0];
		e->pos = p;
		return 1;
	}
	if (f->kind != E_ATTR || f->a->kind != E_NAME)
		return 0;
	size_t m = 0;
	while (m < COUNT(methods) && strcmp(methods[m], f->str) != 0)
		m++;
	if (m == COUNT(methods))
		return 0;
	Value *bv = eval(S, f->a);
	if (IS_ERR(bv))
		return -1;
	if (!bv || bv->kind != V_BUFFER)
		return 0;
	Buffer *b = bv->buffer;
	Expr *base = f->a;
	if (m == 0 || m == 2) {
		if (!index_list(S, e, b, f->str))
			return -1;
		Expr *l = e->args[0];
		if (m == 0) {
			Expr *idx = new_expr(E_INDEX, l->pos);
			idx->a = base;
			idx->args = l->args;
			idx->nargs = l->nargs;
			become_call(e, "T.address_of", 1, &idx);
			return 1;
		}
		const char *why = NULL;
		Expr *off = buffer_offset_expr(b, l->args, &why);
		if (!off) {
			error_at(S->d, e->pos, "not supported yet: %s.elem_offset_of() here: %s", b->name, why);
			return -1;
		}
		Pos p = e->pos;
		if (off->kind == E_BIN || off->kind == E_INT) {
			*e = *off;
		} else {
			e->kind = E_BIN; /* a bare index: 0 + it keeps e a node of its own */
			e->op = OP_ADD;
			e->a = new_int(p, 0);
			e->b = off;
		}
		e->pos = p;
		return 1;
	}
	/* access_ptr(mask, offset=k) */
	if (e->nargs != 1) {
		error_at(S->d, e->pos, "%s.access_ptr() takes the access mask (\"r\", \"w\" or \"rw\") and offset=", b->name);
		return -1;
	}
	Value *mask = eval(S, e->args[0]);
	if (IS_ERR(mask))
		return -1;
	if (!mask || mask->kind != V_STR ||
	    (strcmp(mask->s, "r") && strcmp(mask->s, "w") && strcmp(mask->s, "rw"))) {
		error_at(S->d, e->args[0]->pos, "not supported yet: an access mask other than \"r\", \"w\" or \"rw\" "
		         "(the mask only tells TVM's analyses how the pointer is used)");
		return -1;
	}
	Expr *off = NULL;
	for (int i = 0; i < e->nkws; i++) {
		if (strcmp(e->kws[i].name, "offset") != 0) {
			error_at(S->d, e->kws[i].pos, "not supported yet: access_ptr(%s=): txc's access_ptr takes only offset=",
			         e->kws[i].name);
			return -1;
		}
		off = e->kws[i].value;
	}
	Expr *args[] = { base, off ? off : new_int(e->pos, 0) };
	become_call(e, "T.pointer_offset", 2, args);
	return 1;
}

/* The name x of a buffer that starts inside its storage (elem_offset=):
 * its first element, x[0, 0]. */
void tvm_first_element(Expr *x, Buffer *b)
{
	Expr *n = new_name(x->pos, x->str);
	x->kind = E_INDEX;
	x->a = n;
	x->str = NULL;
	x->args = NULL;
	x->nargs = 0;
	for (int i = 0; i < b->ndim; i++)
		call_add_arg(x, new_int(x->pos, 0));
}

/* X.data used as an address: the buffer X (1), or -1 after an error. */
int tvm_data_address(Sema *S, Expr *x)
{
	if (x->kind != E_ATTR || strcmp(x->str, "data") != 0)
		return 0;
	Value *v = eval(S, x);
	if (!v || IS_ERR(v) || v->kind != V_DATA)
		return 0;
	if (v->buffer->elem_offset) {
		/* TVM's X.data is the storage's start, not X's */
		error_at(S->d, x->pos, "not supported yet: %s.data as an address where '%s' starts at elem_offset=%lld of "
		         "its storage (TVM's X.data is the storage's start): write %s.ptr_to([0%s])", expr_str(x->a),
		         v->buffer->name, (long long)v->buffer->elem_offset, expr_str(x->a), v->buffer->ndim > 1 ? ", ..." : "");
		return -1;
	}
	Pos p = x->pos;
	*x = *x->a;
	x->pos = p;
	return 1;
}

/* T.shared_scalar(dtype) -> T.alloc_buffer((1,), dtype, scope="shared"). */
void tvm_scalar(Expr *e, int id)
{
	Expr *shape = new_expr(E_TUPLE, e->pos);
	shape->paren = true;
	call_add_arg(shape, new_int(e->pos, 1));
	Expr *dt = e->nargs ? e->args[0] : NULL;
	if (!dt) {
		dt = new_expr(E_STR, e->pos);
		dt->str = "float32";
	}
	Expr *args[] = { shape, dt };
	become_call(e, "T.alloc_buffer", 2, args);
	Expr *sc = new_expr(E_STR, e->pos);
	sc->str = id == IN_SHARED_SCALAR ? "shared" : "local";
	call_add_kw(e, "scope", sc, e->pos);
}

/* T.alloc_tcgen05_ldst_frag(shape, (rows, cols), dtype) ->
 * T.alloc_buffer((rows, cols), dtype, scope="local",
 *                layout=T.tcgen05_atom_layout(shape, (rows, cols), dtype)):
 * TVM's per-thread array viewed with the atom layout is that buffer. */
void tvm_tc_frag(Expr *e)
{
	Expr *lay = new_call(e->pos, callee(e->pos, "T.tcgen05_atom_layout"));
	for (int i = 0; i < 3; i++)
		call_add_arg(lay, e->args[i]);
	Expr *args[] = { e->args[1], e->args[2] };
	become_call(e, "T.alloc_buffer", 2, args);
	Expr *sc = new_expr(E_STR, e->pos);
	sc->str = "local";
	call_add_kw(e, "scope", sc, e->pos);
	call_add_kw(e, "layout", lay, e->pos);
}

/* A name x of a one-element buffer where a value is read or stored: x[0]. */
void tvm_scalar_element(Expr *e)
{
	Expr *n = new_name(e->pos, e->str);
	e->kind = E_INDEX;
	e->a = n;
	e->str = NULL;
	e->args = NULL;
	e->nargs = 0;
	call_add_arg(e, new_int(e->pos, 0));
}

/* X.local() or X.local(d0, d1, ...) -> X.view(n) or X.view(d0, d1, ...):
 * the calling thread's storage of a register buffer, row-major. */
bool tvm_local(Sema *S, Expr *call, Buffer *base)
{
	if (base->scope != SC_LOCAL) {
		error_at(S->d, call->pos, "%s.local() is the calling thread's part of a register buffer; '%s' is %s",
		         base->name, base->name, scopes[base->scope].name);
		return false;
	}
	if (call->nkws) {
		error_at(S->d, call->kws[0].pos, "not supported yet: local(%s=): a mediated view; write "
		         "%s.view(..., layout=...)", call->kws[0].name, base->name);
		return false;
	}
	int64_t span = buffer_storage(base);
	if (call->nargs == 0) {
		call_add_arg(call, new_int(call->pos, span));
	} else {
		int64_t n = 1;
		for (int i = 0; i < call->nargs; i++) {
			int64_t d;
			if (!eval_int(S, call->args[i], "an extent of local()", &d))
				return false;
			if (d <= 0 || !mul_ok(n, d, &n)) {
				error_at(S->d, call->args[i]->pos, "an extent of local() must be positive");
				return false;
			}
		}
		if (n != span) {
			error_at(S->d, call->pos, "%s.local(...) has %lld elements but a thread holds %lld of '%s'", base->name,
			         (long long)n, (long long)span, base->name);
			return false;
		}
	}
	call->a->str = "view";
	return true;
}

/* The rows of tvm.def as Markdown, for doc/txir.md (txc-parse --tvm). */
void print_tvm(Buf *b)
{
	bputs(b, "| TVM spelling | in txc |\n|---|---|\n");
	for (size_t i = 0; i < COUNT(tile_kws); i++) {
		const struct TileKw *t = &tile_kws[i];
		if (t->why)
			bprintf(b, "| `%s=` | not supported yet: %s |\n", t->name, t->why);
		else
			bprintf(b, "| `%s=` | %s `%s`: %s |\n", t->name, t->op, t->variant, t->meaning);
	}
	for (size_t i = 0; i < COUNT(tile_aliases); i++)
		bprintf(b, "| `%s=` | `%s=` (TVM's name of it) |\n", tile_aliases[i].tvm, tile_aliases[i].txc);
	for (size_t i = 0; i < COUNT(cache_policies); i++)
		bprintf(b, "| `cache_hint=\"%s\"` | the L2 cache policy 0x%016llX |\n", cache_policies[i].name,
		        (unsigned long long)cache_policies[i].policy);
	for (size_t i = 0; i < COUNT(tvm_names); i++)
		bprintf(b, "| `%s` | not supported yet: %s |\n", tvm_names[i].name, tvm_names[i].why);
	for (size_t i = 0; i < COUNT(tvm_methods); i++)
		bprintf(b, "| `buf.%s` | not supported yet: %s |\n", tvm_methods[i].name, tvm_methods[i].why);
	for (const TvmVariant *t = tvm_variants; t->name; t++) {
		const char *op = intrins[t->op].path + 2;
		if (t->why)
			bprintf(b, "| `%s(..., dispatch=\"%s\")` | not supported yet: %s |\n", op, t->name, t->why);
		else if (t->bytes)
			bprintf(b, "| `%s(..., dispatch=\"%s\")` | one of `%s` (as dispatch chooses), with %d-byte accesses or refused |\n", op,
			        t->name, t->variants, t->bytes);
		else
			bprintf(b, "| `%s(..., dispatch=\"%s\")` | one of `%s`, as dispatch chooses |\n", op, t->name, t->variants);
	}
}

/* apply() at coordinates some of which are known only when the kernel
 * runs (a thread id, a loop variable: TVM's tests compute a thread's
 * global offset as g_layout.apply(tid, i, 0)["m"]): the same arithmetic as
 * layout_apply_iters, written as an expression. coord has one operand per
 * shard iter (iters), else the row-major flat index of them all, split
 * over the shard extents (the outermost not reduced) as layout_apply does;
 * a coordinate in its range gives the grouped split's answer. */
static Expr *apply_expr(const Layout *l, Expr **coord, int n, const int64_t *shape, bool iters, int axis)
{
	Expr *out = ex_int(l->off[axis]);
	Expr *flat = NULL;
	if (!iters) {
		flat = ex_int(0);
		for (int d = 0; d < n; d++)
			flat = ex_add(ex_mul(flat, ex_int(shape ? shape[d] : 1)), expr_copy(coord[d]));
	}
	int64_t inner = 1; /* the product of the extents inside iter i */
	for (int i = l->nshard - 1; i >= 0; i--) {
		const Iter *it = &l->shard[i];
		if (it->axis == axis && it->stride != 0) {
			Expr *c = iters ? expr_copy(coord[i]) : ex_div(expr_copy(flat), inner);
			if (!iters && i > 0)
				c = ex_mod(c, it->extent);
			out = ex_add(out, ex_mul(c, ex_int(it->stride)));
		}
		if (!mul_ok(inner, it->extent, &inner))
			return NULL;
	}
	return axis == AX_M ? ex_swizzle(l, out) : out;
}

/* L.apply(i)["m"], L.apply(i, j, ...)["m"] (one coordinate per shard iter)
 * or L.apply(i, j, shape=(...))["m"]: a layout applied at compile time, as
 * TVM's Layout.apply, read on one axis; NULL when e is not of this form.
 * Where a coordinate is not a constant, e becomes the expression that
 * computes it (apply_expr), and the answer is NULL: the caller checks the
 * new e. */
Value *tvm_layout_apply(Sema *S, Expr *e)
{
	Expr *c = e->a;
	if (c->kind != E_CALL || c->a->kind != E_ATTR || strcmp(c->a->str, "apply") != 0)
		return NULL;
	Value *lv = eval(S, c->a->a);
	if (IS_ERR(lv))
		return lv;
	if (!lv || lv->kind != V_LAYOUT)
		return NULL;
	const Layout *l = lv->layout;
	if (e->nargs != 1)
		return fail(S, e->pos, "a layout's apply() gives one value per axis: index it with one axis name, [\"m\"]");
	Value *ax = eval_const(S, e->args[0], "an axis name");
	if (IS_ERR(ax))
		return ax;
	int axis = ax->kind == V_STR ? axis_lookup(ax->s) : ax->kind == V_AXIS ? ax->axis : -1;
	if (axis < 0)
		return fail(S, e->args[0]->pos, "apply(...)[...] takes an axis name such as \"m\"");
	if (c->nargs < 1 || c->nargs > LAYOUT_MAX_ITERS)
		return fail(S, c->pos, "apply() takes a coordinate");
	if (lv->i == 2 && (c->nargs != 1 || c->nkws))
		return fail(S, c->pos, "a SwizzleLayout's apply() takes one address: apply(a)[\"m\"]");
	int64_t coord[LAYOUT_MAX_ITERS], out[AX_COUNT];
	bool runtime = false;
	for (int i = 0; i < c->nargs; i++) {
		Value *cv = eval(S, c->args[i]);
		if (IS_ERR(cv))
			return cv;
		if (cv && cv->kind == V_INT)
			coord[i] = cv->i;
		else if (S->in_device && (!cv || cv->kind == V_VAR))
			runtime = true;
		else if (!eval_int(S, c->args[i], "a coordinate of apply()", &coord[i]))
			return &verr;
	}
	Kw *shape = NULL;
	for (int i = 0; i < c->nkws; i++) {
		if (strcmp(c->kws[i].name, "shape") != 0)
			return fail(S, c->kws[i].pos, "apply() has no keyword argument '%s'; it takes shape", c->kws[i].name);
		shape = &c->kws[i];
	}
	bool ok;
	if (runtime) {
		int64_t *sh = NULL;
		int n = c->nargs;
		if (shape && !eval_shape(S, shape->value, &sh, &n))
			return &verr;
		if (shape && n != c->nargs)
			return fail(S, c->pos, "apply() was given %d coordinates for a shape of %d", c->nargs, n);
		bool iters = !shape && c->nargs > 1;
		if (iters && c->nargs != l->nshard)
			return fail(S, c->pos, "apply() was given %d coordinates for a layout of %d iters (or give shape=)",
			            c->nargs, l->nshard);
		Expr *x = apply_expr(l, c->args, c->nargs, sh, iters, axis);
		if (!x)
			return fail(S, c->pos, "apply() overflows 64 bits");
		Pos p = e->pos;
		if (x->kind == E_NAME) /* 0 + it keeps e a node of its own */
			x = ex_op(OP_ADD, new_int(p, 0), x);
		*e = *x;
		e->pos = p;
		return NULL;
	}
	if (shape) {
		int64_t *sh;
		int n;
		if (!eval_shape(S, shape->value, &sh, &n))
			return &verr;
		if (n != c->nargs)
			return fail(S, c->pos, "apply() was given %d coordinates for a shape of %d", c->nargs, n);
		for (int i = 0; i < n; i++)
			if (coord[i] < 0 || coord[i] >= sh[i])
				return fail(S, c->args[i]->pos, "coordinate %lld is outside the extent %lld", (long long)coord[i],
				            (long long)sh[i]);
		ok = layout_apply_coord(l, sh, n, coord, out);
	} else if (c->nargs == 1) {
		if (coord[0] < 0)
			return fail(S, c->args[0]->pos, "apply() of a negative index");
		if (lv->i == 2) { /* a SwizzleLayout alone: the swizzle of an address */
			memset(out, 0, sizeof out);
			out[AX_M] = layout_swizzle(l, coord[0]);
			ok = true;
		} else
			ok = layout_apply(l, coord[0], out);
	} else {
		if (c->nargs != l->nshard)
			return fail(S, c->pos, "apply() was given %d coordinates for a layout of %d iters (or give shape=)",
			            c->nargs, l->nshard);
		for (int i = 0; i < c->nargs; i++)
			if (coord[i] < 0 || coord[i] >= l->shard[i].extent)
				return fail(S, c->args[i]->pos, "coordinate %lld is outside iter %d (extent %lld)",
				            (long long)coord[i], i, (long long)l->shard[i].extent);
		ok = layout_apply_iters(l, coord, out);
	}
	if (!ok)
		return fail(S, c->pos, "apply() overflows 64 bits");
	return vint(out[axis]);
}

/* ---- views: X.sub[...], X.permute(...), and chains of them with view() ---------- */

static bool is_chain(const Expr *e)
{
	if (e->kind == E_CALL && e->a->kind == E_ATTR)
		return !strcmp(e->a->str, "permute") || !strcmp(e->a->str, "view");
	return e->kind == E_INDEX && e->a->kind == E_ATTR && !strcmp(e->a->str, "sub");
}

/* The view e makes, over the storage of *root: a buffer whose layout maps
 * to the root's storage. NULL after an error. */
static Buffer *derive(Sema *S, Expr *e, Buffer **root, int depth)
{
	if (depth > 16) {
		error_at(S->d, e->pos, "not supported yet: a chain of more than 16 views");
		return NULL;
	}
	if (e->kind == E_NAME) {
		Value *v = eval(S, e);
		if (IS_ERR(v))
			return NULL;
		if (!v || v->kind != V_BUFFER) {
			error_at(S->d, e->pos, "'%s' is not a buffer", e->str);
			return NULL;
		}
		*root = v->buffer;
		return v->buffer;
	}
	if (!is_chain(e)) {
		error_at(S->d, e->pos, "not supported yet: a view of '%s'; views start from a buffer's name", expr_str(e));
		return NULL;
	}
	Expr *inner = e->a->a;
	Buffer *base = derive(S, inner, root, depth + 1);
	if (!base)
		return NULL;
	const char *m = e->a->str;
	if (!strcmp(m, "view") && base == *root)
		return make_view(S, "view", e->pos, e, base);
	if (!strcmp(m, "view")) {
		/* a view of a view (A.sub[2:10, 8:72].view(512)): as TVM
		 * declares it again, the same elements through the base's
		 * layout, numbered row-major in the new shape; make_view's
		 * default, the storage from its start, would drop the base's
		 * offset and strides */
		if (call_kw(e, "layout")) {
			error_at(S->d, call_kw(e, "layout")->pos, "not supported yet: view(..., layout=) of a view of '%s'; "
			         "give the layout over '%s' itself, %s.view(..., layout=L)", (*root)->name, (*root)->name,
			         (*root)->name);
			return NULL;
		}
		Buffer *v = make_view(S, "view", e->pos, e, base);
		if (!v)
			return NULL;
		int64_t was = 1, now = 1;
		for (int d = 0; d < base->ndim; d++)
			was *= base->shape[d];
		for (int d = 0; d < v->ndim; d++)
			now *= v->shape[d];
		if (was != now) {
			error_at(S->d, e->pos, "view() of a view of '%s' keeps its %lld elements; the shape given has %lld",
			         (*root)->name, (long long)was, (long long)now);
			return NULL;
		}
		int vdims[LAYOUT_MAX_ITERS + 1];
		const char *vwhy = NULL;
		if (!layout_group(buffer_layout(base), v->shape, v->ndim, vdims, &vwhy)) {
			error_at(S->d, e->pos, "not supported yet: view() of a view of '%s' in this shape: %s", (*root)->name, vwhy);
			return NULL;
		}
		v->layout = layout_canonical(buffer_layout(base));
		return v;
	}
	Buffer *b = new_buffer("view", e->pos, e);
	b->base = base;
	b->scope = base->scope;
	b->dtype = base->dtype;
	const Layout *l = buffer_layout(base);
	const char *why = NULL;
	int n = base->ndim, dims[LAYOUT_MAX_ITERS + 1];
	if (n > LAYOUT_MAX_ITERS) {
		error_at(S->d, e->pos, "not supported yet: %s() of a buffer of more than %d dimensions", m, LAYOUT_MAX_ITERS);
		return NULL;
	}
	if (!strcmp(m, "permute")) {
		/* dimension i of the view is dimension dims[i] of its base */
		int64_t perm[LAYOUT_MAX_ITERS];
		bool seen[LAYOUT_MAX_ITERS] = { false };
		if (e->nkws || e->nargs != n) {
			error_at(S->d, e->pos, "permute() takes one dimension of '%s' per dimension (%d), in the new order",
			         base->name, n);
			return NULL;
		}
		for (int i = 0; i < n; i++) {
			if (!eval_int(S, e->args[i], "a dimension of permute()", &perm[i]))
				return NULL;
			if (perm[i] < 0 || perm[i] >= n || seen[perm[i]]) {
				error_at(S->d, e->args[i]->pos, "permute() takes each dimension 0 to %d once", n - 1);
				return NULL;
			}
			seen[perm[i]] = true;
		}
		Layout *g = layout_group(l, base->shape, n, dims, &why);
		if (!g) {
			error_at(S->d, e->pos, "not supported yet: permute() of this layout: %s", why);
			return NULL;
		}
		Layout *p = layout_copy(g);
		p->nshard = 0;
		b->shape = xalloc(sizeof(int64_t) * (size_t)n);
		b->ndim = n;
		for (int i = 0; i < n; i++) {
			b->shape[i] = base->shape[perm[i]];
			for (int k = dims[perm[i]]; k < dims[perm[i] + 1]; k++)
				p->shard[p->nshard++] = g->shard[k];
		}
		b->layout = p;
		return b;
	}
	/* sub[...]: an integer index drops its dimension, a:b narrows it,
	 * the dimensions not indexed stay whole */
	int64_t start[LAYOUT_MAX_ITERS], ext[LAYOUT_MAX_ITERS];
	bool drop[LAYOUT_MAX_ITERS] = { false };
	if (e->nargs > n) {
		error_at(S->d, e->pos, "'%s' has %d dimension%s but sub[...] has %d indices", base->name, n, n == 1 ? "" : "s",
		         e->nargs);
		return NULL;
	}
	for (int d = 0; d < n; d++) {
		start[d] = 0;
		ext[d] = base->shape[d];
		if (d >= e->nargs)
			continue;
		Expr *x = e->args[d];
		if (x->kind != E_SLICE) {
			Value *iv = eval(S, x);
			if (IS_ERR(iv))
				return NULL;
			if (!iv || iv->kind == V_VAR) {
				error_at(S->d, x->pos, "not supported yet: a runtime index in sub[...]; write the region in the tile "
				         "op, X[i, ...]");
				return NULL;
			}
			if (!eval_int(S, x, "a sub[...] index", &start[d]))
				return NULL;
			ext[d] = 1;
			drop[d] = true;
			continue;
		}
		int64_t lo = 0, hi = base->shape[d];
		if (x->c) {
			error_at(S->d, x->c->pos, "not supported yet: a step in sub[...]; txc's views are contiguous per dimension");
			return NULL;
		}
		if ((x->a && !eval_int(S, x->a, "a sub[...] bound", &lo)) || (x->b && !eval_int(S, x->b, "a sub[...] bound", &hi)))
			return NULL;
		start[d] = lo;
		ext[d] = hi - lo;
	}
	Layout *sl = layout_slice(l, base->shape, n, start, ext, &why);
	if (!sl) {
		error_at(S->d, e->pos, "sub[...] of '%s': %s", base->name, why);
		return NULL;
	}
	b->shape = xalloc(sizeof(int64_t) * (size_t)(n + 1));
	for (int d = 0; d < n; d++)
		if (!drop[d])
			b->shape[b->ndim++] = ext[d];
	if (!b->ndim)
		b->shape[b->ndim++] = 1;
	b->layout = layout_canonical(sl);
	return b;
}

/* X = A.sub[...], A.permute(...), or a chain of these and view(...):
 * rewritten into one view of A, A.view(d0, d1, ..., layout=L), that
 * make_view then makes. False after an error. */
bool tvm_is_view_chain(const Expr *e)
{
	if (!is_chain(e))
		return false;
	return strcmp(e->a->str, "view") != 0 || e->a->a->kind != E_NAME; /* A.view(...) is make_view's */
}

bool tvm_view_chain(Sema *S, Expr *value)
{
	Buffer *root = NULL;
	Buffer *b = derive(S, value, &root, 0);
	if (!b)
		return false;
	Pos p = value->pos;
	Expr *call = new_call(p, new_expr(E_ATTR, p));
	call->a->a = new_name(p, root->name);
	call->a->str = "view";
	for (int i = 0; i < b->ndim; i++)
		call_add_arg(call, new_int(p, b->shape[i]));
	call_add_kw(call, "layout", layout_expr(buffer_layout(b)), p);
	*value = *call;
	return true;
}

/* A view passed directly as an operand: X.permute(...), X.sub[...], a chain
 * of them, X.view(...), X.local(...), or any of these indexed by a region. */
static bool view_call(const Expr *e)
{
	return is_chain(e) || (e->kind == E_CALL && e->a->kind == E_ATTR && !strcmp(e->a->str, "local"));
}

static bool inplace_view(const Expr *e)
{
	return view_call(e) || (e->kind == E_INDEX && view_call(e->a));
}

int tvm_inplace_views(Sema *S, Stmt *s, Stmt **out, int max)
{
	if (s->kind != S_EXPR || s->value->kind != E_CALL)
		return 0;
	Expr *call = s->value;
	int n = 0;
	for (int i = 0; i < call->nargs && n < max; i++) {
		Expr *arg = call->args[i];
		if (!inplace_view(arg))
			continue;
		Expr **slot = view_call(arg) ? &call->args[i] : &arg->a;
		const char *name;
		do
			name = xprintf("_view%d", S->nviews++);
		while (lookup(S, name));
		Pos p = (*slot)->pos;
		Stmt *a = new_stmt(S_ASSIGN, s->pos);
		vpush(a->targets, a->ntargets, new_name(p, name));
		a->value = *slot;
		*slot = new_name(p, name);
		out[n++] = a;
	}
	return n;
}

/* tmem.allocated_addr[0]: the address its T.decl_buffer was given
 * (allocated_addr=...), rewritten in place. 1 done, 0 not one, -1 error. */
int tvm_allocated_addr(Sema *S, Expr *e)
{
	if (e->a->kind != E_ATTR || strcmp(e->a->str, "allocated_addr") != 0)
		return 0;
	Value *v = eval(S, e->a->a);
	if (IS_ERR(v))
		return -1;
	if (!v || v->kind != V_BUFFER)
		return 0;
	Buffer *b = v->buffer;
	while (b->base && !b->alloc_addr)
		b = b->base;
	int64_t i;
	if (!b->alloc_addr) {
		error_at(S->d, e->a->pos, "'%s' has no allocated_addr: it is not a tensor-memory buffer", v->buffer->name);
		return -1;
	}
	if (e->nargs != 1 || e->args[0]->kind == E_SLICE || !eval_int(S, e->args[0], "the index of allocated_addr", &i))
		return -1;
	if (i != 0) {
		error_at(S->d, e->args[0]->pos, "allocated_addr has one address: allocated_addr[0]");
		return -1;
	}
	Pos p = e->pos;
	*e = *b->alloc_addr;
	e->pos = p;
	return 1;
}

/* X = B.view("uint32"): TVM's view of B's storage as another dtype, the
 * last dimension scaled by the ratio of the sizes. Rewritten into
 * T.decl_buffer(shape, dtype, R.data, elem_offset=k) over B's root storage
 * R, at B's start, where B is row-major over R. 1 rewritten, 0 not one, -1 after an error. */
int tvm_view_dtype(Sema *S, Expr *call)
{
	Expr *f = call->a;
	Value *bv;
	if (call->nargs != 1 || call->nkws)
		return 0;
	int is = receiver(S, f, "view", V_BUFFER, &bv);
	if (is <= 0)
		return is;
	Value *dv = eval(S, call->args[0]);
	if (IS_ERR(dv))
		return -1;
	if (!dv || (dv->kind != V_STR && dv->kind != V_DTYPE))
		return 0;
	Buffer *b = bv->buffer;
	int dt = eval_dtype(S, call->args[0]);
	if (dt == DT_NONE)
		return -1;
	const char *bn = b->name;
	int ob = dtypes[b->dtype].bits, nb = dtypes[dt].bits;
	if (ob % 8 || nb % 8) {
		error_at(S->d, call->args[0]->pos, "not supported yet: a view of %s '%s' as %s: txc reinterprets whole-byte "
		         "elements only", dtypes[b->dtype].name, bn, dtypes[dt].name);
		return -1;
	}
	if (b->scope == SC_TMEM || b->scope == SC_GLOBAL) {
		error_at(S->d, call->pos, "not supported yet: a view of %s buffer '%s' as %s: txc reinterprets shared and "
		         "local buffers", scopes[b->scope].name, bn, dtypes[dt].name);
		return -1;
	}
	/* b's byte offset in its root storage R: its elem_offset= (a buffer's
	 * layout maps its elements to R's, as TVM's X.data is R's pointer) */
	Buffer *r = buffer_root(b);
	bool reshaped = b->decl && b->decl->kind == E_CALL && b->decl->a->kind == E_ATTR &&
	                (!strcmp(b->decl->a->str, "view") || !strcmp(b->decl->a->str, "local"));
	if (b->layout && !(b->elem_offset && !call_kw(b->decl, "layout") && !reshaped)) {
		error_at(S->d, call->pos, "not supported yet: %s.view(\"%s\"): '%s' has a layout%s; txc reinterprets "
		         "a buffer as another dtype only where it is row-major over its storage", bn, dtypes[dt].name, bn,
		         b->scope == SC_LOCAL ? " (registers spread over threads: view the calling thread's, .local(), first)" :
		         " (swizzled or not row-major)");
		return -1;
	}
	int64_t off = b->elem_offset * dtype_bytes(b->dtype);
	int64_t last = b->shape[b->ndim - 1], bytes = last * (ob / 8);
	if (bytes % (nb / 8)) {
		error_at(S->d, call->args[0]->pos, "%s.view(\"%s\"): the last dimension of '%s' holds %lld bytes, not a "
		         "multiple of %s's %d", bn, dtypes[dt].name, bn, (long long)bytes, dtypes[dt].name, nb / 8);
		return -1;
	}
	if (off % (nb / 8)) {
		error_at(S->d, call->pos, "%s.view(\"%s\"): '%s' starts at byte %lld of '%s', not a multiple of %s's %d",
		         bn, dtypes[dt].name, bn, (long long)off, r->name, dtypes[dt].name, nb / 8);
		return -1;
	}
	Pos p = call->pos;
	Expr *shape = new_expr(E_TUPLE, p);
	shape->paren = true;
	for (int i = 0; i < b->ndim; i++)
		call_add_arg(shape, new_int(p, i == b->ndim - 1 ? bytes / (nb / 8) : b->shape[i]));
	Expr *ds = new_expr(E_STR, call->args[0]->pos);
	ds->str = dtypes[dt].name;
	Expr *data = new_expr(E_ATTR, p);
	data->a = new_name(p, r->name);
	data->str = "data";
	Expr *args[] = { shape, ds, data };
	become_call(call, "T.decl_buffer", 3, args);
	if (off / (nb / 8))
		call_add_kw(call, "elem_offset", new_int(p, off / (nb / 8)), p);
	return 1;
}

/* ---- TVM's host-side tensor maps ---------------------------------------------------- */

static bool callee_is(const Expr *e, const char *path)
{
	return e && e->kind == E_CALL && !strcmp(expr_str(e->a), path);
}

/* The statement at i binds a name to T.tvm_stack_alloca("tensormap", 1)
 * (TVM: `M: T.let[T.handle("tensormap")] = T.tvm_stack_alloca(...)`) and a
 * later statement before T.device_entry() encodes it with
 * T.call_packed("runtime.cuTensorMapEncodeTiled", M, dtype, rank, A.data,
 * dims..., strides..., box..., element strides..., interleave, swizzle,
 * l2 promotion, oob fill): the pair becomes `M = T.tensormap(A, ...)` at i,
 * the encoding's values as txc's keywords (enums as bytes). 1 rewritten,
 * 0 not such a statement, -1 after an error. */
int tvm_host_tensormap(Sema *S, Stmt ***body, int *n, int i)
{
	Stmt *s = (*body)[i];
	if (s->kind != S_ASSIGN || s->ntargets != 1 || s->targets[0]->kind != E_NAME ||
	    !callee_is(s->value, "T.tvm_stack_alloca"))
		return 0;
	const char *name = s->targets[0]->str;
	Expr *a = s->value;
	if (a->nargs != 2 || a->args[0]->kind != E_STR || strcmp(a->args[0]->str, "tensormap") != 0 ||
	    a->args[1]->kind != E_INT || a->args[1]->ival != 1) {
		error_at(S->d, a->pos, "not supported yet: %s: txc knows TVM's host-side tensor map, "
		         "T.tvm_stack_alloca(\"tensormap\", 1), encoded by T.call_packed(\"runtime.cuTensorMapEncodeTiled\", ...)",
		         expr_str(a));
		return -1;
	}
	int j = i + 1;
	Expr *c = NULL;
	for (; j < *n; j++) {
		Stmt *t = (*body)[j];
		if (t->kind == S_EXPR && t->value->kind == E_CALL && t->value->intrin == IN_DEVICE_ENTRY)
			break;
		if (t->kind == S_EXPR && callee_is(t->value, "T.call_packed") && t->value->nargs >= 2 &&
		    t->value->args[1]->kind == E_NAME && !strcmp(t->value->args[1]->str, name)) {
			c = t->value;
			break;
		}
	}
	if (!c || strcmp(expr_str(c->a), "T.call_packed") != 0) {
		error_at(S->d, a->pos, "tensor map '%s' is allocated but never encoded: T.call_packed(\"runtime."
		         "cuTensorMapEncodeTiled\", %s, ...) must follow, before T.device_entry()", name, name);
		return -1;
	}
	if (c->args[0]->kind != E_STR || strcmp(c->args[0]->str, "runtime.cuTensorMapEncodeTiled") != 0) {
		error_at(S->d, c->args[0]->pos, "not supported yet: T.call_packed(%s, ...): txc encodes a tensor map with "
		         "\"runtime.cuTensorMapEncodeTiled\"", expr_str(c->args[0]));
		goto drop;
	}
	if (!expand_call(S, c))
		goto drop;
	if (c->nargs < 5) {
		error_at(S->d, c->pos, "cuTensorMapEncodeTiled takes the map, the dtype, the rank, the buffer's data and "
		         "the encoding");
		goto drop;
	}
	/* the buffer: A.data */
	Expr *d = c->args[4];
	if (d->kind != E_ATTR || strcmp(d->str, "data") != 0 || d->a->kind != E_NAME) {
		error_at(S->d, d->pos, "cuTensorMapEncodeTiled's address is a buffer's data, A.data, not '%s'", expr_str(d));
		goto drop;
	}
	Value *bv = eval(S, d->a);
	if (IS_ERR(bv))
		goto drop;
	if (!bv || bv->kind != V_BUFFER) {
		error_at(S->d, d->pos, "'%s' is not a buffer", d->a->str);
		goto drop;
	}
	int dt = eval_dtype(S, c->args[2]);
	if (dt == DT_NONE)
		goto drop;
	if (dt != bv->buffer->dtype) {
		error_at(S->d, c->args[2]->pos, "not supported yet: a tensor map of %s over %s buffer '%s' (txc's tensor "
		         "map moves the buffer's own elements)", dtypes[dt].name, dtypes[bv->buffer->dtype].name, d->a->str);
		goto drop;
	}
	int64_t rank;
	if (!eval_int(S, c->args[3], "the rank", &rank))
		goto drop;
	if (rank < 1 || rank > TMAP_MAX_RANK) {
		error_at(S->d, c->args[3]->pos, "a tensor map's rank is 1 to %d, not %lld", TMAP_MAX_RANK, (long long)rank);
		goto drop;
	}
	int want = (int)(4 * rank + 3);
	if (c->nargs - 5 != want) {
		error_at(S->d, c->pos, "cuTensorMapEncodeTiled of rank %lld takes %d values after A.data (%lld dims, %lld "
		         "strides, %lld box, %lld element strides, interleave, swizzle, L2 promotion, OOB fill), not %d",
		         (long long)rank, want, (long long)rank, (long long)(rank - 1), (long long)rank, (long long)rank,
		         c->nargs - 5);
		goto drop;
	}
	int64_t v[4 * TMAP_MAX_RANK + 3];
	for (int k = 0; k < want; k++)
		if (!eval_int(S, c->args[5 + k], "an encoding value", &v[k]))
			goto drop;
	int64_t *dims = v, *strides = v + rank, *box = strides + rank - 1, *es = box + rank, *en = es + rank;
	static const char *const enums[] = { "interleave", "swizzle", "L2 promotion", "OOB fill" };
	static const int limit[] = { 0, 3, 3, 1 };
	for (int k = 0; k < 4; k++)
		if (en[k] < 0 || en[k] > limit[k]) {
			int at = 5 + want - 4 + k;
			if (k == 0)
				error_at(S->d, c->args[at]->pos, "not supported yet: interleave %lld; txc's tensor maps are not "
				         "interleaved (0)", (long long)en[k]);
			else
				error_at(S->d, c->args[at]->pos, "the %s enum is 0 to %d, not %lld", enums[k], limit[k],
				         (long long)en[k]);
			goto drop;
		}
	Pos p = c->pos;
	Expr *list[4];
	int64_t *src[4] = { dims, strides, box, es };
	int64_t len[4] = { rank, rank - 1, rank, rank };
	for (int k = 0; k < 4; k++) {
		list[k] = new_expr(E_LIST, p);
		for (int x = 0; x < len[k]; x++)
			call_add_arg(list[k], new_int(p, src[k][x]));
	}
	Expr *m = new_call(p, callee(p, "T.tensormap"));
	call_add_arg(m, new_name(d->a->pos, d->a->str));
	call_add_kw(m, "dims", list[0], p);
	if (rank > 1)
		call_add_kw(m, "strides", list[1], p);
	call_add_kw(m, "box", list[2], p);
	call_add_kw(m, "elem_strides", list[3], p);
	if (en[1])
		call_add_kw(m, "swizzle", new_int(p, 16 << en[1]), p);
	call_add_kw(m, "l2_promotion", new_int(p, en[2] ? 32 << en[2] : 0), p);
	if (en[3]) {
		Expr *f = new_expr(E_STR, p);
		f->str = "nan";
		call_add_kw(m, "fill", f, p);
	}
	/* `M = T.tensormap(...)` where the allocation was; the encoding goes */
	s->ann = NULL;
	s->value = m;
	memmove(&(*body)[j], &(*body)[j + 1], sizeof(Stmt *) * (size_t)(*n - j - 1));
	(*n)--;
	return 1;
drop: /* the encoding goes with its allocation: one error for the pair */
	memmove(&(*body)[j], &(*body)[j + 1], sizeof(Stmt *) * (size_t)(*n - j - 1));
	(*n)--;
	return -1;
}
