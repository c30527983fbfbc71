/* Tensor maps: `M = T.tensormap(A, dims=[...], box=[...], ...)` before
 * T.device_entry(), checked against every rule the driver's
 * cuTensorMapEncodeTiled and the TMA unit impose (ptx.md, "TMA"), so that
 * a map that would fail to encode, or fault, is refused at its line. */
#include <stdlib.h>
#include <string.h>

#include "sema.h"

const char *const tma_red_ops[] = {
#define TMA_RED_NAME(id, name) name,
	TMA_RED_OPS(TMA_RED_NAME)
#undef TMA_RED_NAME
	NULL };

int tma_red_op(const char *name)
{
	for (int i = 0; tma_red_ops[i]; i++)
		if (!strcmp(name, tma_red_ops[i]))
			return i;
	return -1;
}

void check_cta_mask(Sema *S, const Kw *kw)
{
	if (!kw)
		return;
	Pos at = kw->value->pos;
	const int64_t *in = S->launch_dims[IN_CTA_ID_IN_CLUSTER];
	bool declared = in[0] > 0 || S->launch_dims[IN_CLUSTER_ID][0] > 0;
	int64_t n = in[0] > 0 ? in[0] * in[1] * in[2] : 1;
	const Value *v = kw->value->val;
	if (S->m->target != TG_ANY && !target_has(S->m->target, TG_SM90A))
		error_at(S->d, at, "cta_mask= (.multicast::cluster) needs %s or later; the target is %s", target_names[TG_SM90A],
		         target_names[S->m->target]);
	else if (!declared)
		error_at(S->d, at, "cta_mask= multicasts to the CTAs of a thread-block cluster, but the kernel declares none "
		         "(T.cta_id_in_cluster([...]) before the copy)");
	else if (v && v->kind == V_INT && (v->i < 0 || v->i > 0xFFFF))
		error_at(S->d, at, "cta_mask is a 16-bit mask of CTA ranks in the cluster (bit i: rank i; 0: no multicast), not %lld",
		         (long long)v->i);
	else if (v && v->kind == V_INT && v->i >> n)
		error_at(S->d, at, "cta_mask 0x%llx names CTA rank %d, but the cluster of (%lld, %lld, %lld) has %lld CTA%s "
		         "(ranks 0 to %lld)", (long long)v->i, 63 - __builtin_clzll((unsigned long long)v->i), (long long)in[0],
		         (long long)in[1], (long long)in[2], (long long)n, n == 1 ? "" : "s", (long long)(n - 1));
}

void check_red_op(Sema *S, const Kw *kw)
{
	if (!kw || !kw->value->val || kw->value->val->kind != V_STR || tma_red_op(kw->value->val->s) >= 0)
		return;
	error_at(S->d, kw->value->pos, "%s= is \"add\", \"min\", \"max\", \"inc\", \"dec\", \"and\", \"or\" or "
	         "\"xor\", not \"%s\"", kw->name, kw->value->val->s);
}

int tmap_data_type(int dt)
{
	switch (dt) {
	case DT_FLOAT16: return 6;
	case DT_BFLOAT16: return 9;
	case DT_FLOAT32: return 7;
	case DT_FLOAT64: return 8;
	case DT_INT32: return 3;
	case DT_INT64: return 5;
	default:
		break;
	}
	if (dt <= 0 || dt >= DT_COUNT || dtypes[dt].bits < 8)
		return -1;
	/* the other types move as unsigned integers of their width */
	switch (dtypes[dt].bits) {
	case 8: return 0;
	case 16: return 1;
	case 32: return 2;
	case 64: return 4;
	}
	return -1;
}

int tmap_swizzle_bytes(int k) { return k <= 0 || k > 3 ? 0 : 16 << k; }

int tmap_swizzle_mode(int bytes)
{
	for (int k = 0; k <= 3; k++)
		if (tmap_swizzle_bytes(k) == bytes)
			return k;
	return -1;
}

const TmField tm_fields[TMF_COUNT] = {
#define TMFIELD(id, name, bits, ord, imm, lo, hi, doc) { name, bits, ord, imm, lo, hi, doc },
#include "tmfield.def"
#undef TMFIELD
};

int tm_field_lookup(const char *name)
{
	for (int i = 0; i < TMF_COUNT; i++)
		if (!strcmp(tm_fields[i].name, name))
			return i;
	return -1;
}

/* The integers of keyword `name` into out[], at most TMAP_MAX_RANK; -1
 * after an error, 0 when absent. */
static int ints(Sema *S, Args *a, const char *name, int64_t *out)
{
	Kw *kw = kwarg(a, name);
	if (!kw)
		return 0;
	Value *v = eval_const(S, kw->value, name);
	if (IS_ERR(v))
		return -1;
	if (v->kind != V_TUPLE || v->nelts < 1 || v->nelts > TMAP_MAX_RANK) {
		error_at(S->d, kw->value->pos, "%s= takes a list of 1 to %d integers, innermost dimension first", name,
		         TMAP_MAX_RANK);
		return -1;
	}
	for (int i = 0; i < v->nelts; i++) {
		if (v->elts[i]->kind != V_INT) {
			error_at(S->d, kw->value->pos, "%s= takes integers", name);
			return -1;
		}
		out[i] = v->elts[i]->i;
	}
	return v->nelts;
}

static bool int_kw(Sema *S, Args *a, const char *name, int64_t *out, Pos *at)
{
	Kw *kw = kwarg(a, name);
	if (!kw)
		return true;
	*at = kw->value->pos;
	return eval_int(S, kw->value, name, out);
}

const struct TmapMode tmap_modes[] = {
#define TMAP_MODE_ROW(id, name, store, ninfo) { name, store, ninfo },
	TMAP_MODES(TMAP_MODE_ROW)
#undef TMAP_MODE_ROW
};

int tmap_info_count(const TensorMap *t)
{
	int n = tmap_modes[t->mode].ninfo;
	return n < 0 ? t->rank + n : n;
}

/* PTX ISA: im2col offsets 0 .. 2^16-1, 2^8-1, 2^5-1 for rank 3, 4, 5
 * (5.5.4.1); wHalo below 512 (::w) or 32 (::w::128), wOffset below 32
 * (cp.async.bulk.tensor). */
int64_t tmap_info_max(const TensorMap *t, int k)
{
	if (t->mode == TMAP_IM2COL)
		return t->rank == 3 ? 65535 : t->rank == 4 ? 255 : 31;
	return k == 0 && t->mode == TMAP_IM2COL_W ? 511 : 31;
}

const char *tmap_info_name(const TensorMap *t, int k)
{
	static const char *const offsets[] = { "im2col offset 0", "im2col offset 1", "im2col offset 2" };
	return t->mode == TMAP_IM2COL ? offsets[k] : k ? "wOffset" : "wHalo";
}

/* The im2col fields of T.tensormap_im2col (cuTensorMapEncodeIm2col's and
 * ...Im2colWide's rules, PTX ISA "im2col mode"); box[] gets the channels
 * and pixels of one load. */
static bool im2col_fields(Sema *S, Args *a, TensorMap *t)
{
	Pos at = a->call->pos;
	Kw *kw = kwarg(a, "mode");
	t->mode = TMAP_IM2COL;
	if (kw) {
		Value *v = eval_const(S, kw->value, "mode");
		if (IS_ERR(v))
			return false;
		int m = -1;
		for (int k = TMAP_IM2COL; v->kind == V_STR && k <= TMAP_IM2COL_W128; k++)
			if (!strcmp(v->s, tmap_modes[k].name))
				m = k;
		if (m < 0) {
			error_at(S->d, kw->value->pos, "mode= is \"im2col\", \"im2col::w\" or \"im2col::w::128\"");
			return false;
		}
		t->mode = m;
		if (m != TMAP_IM2COL && S->m->target != TG_ANY && !target_has(S->m->target, TG_SM100A)) {
			error_at(S->d, kw->value->pos, "mode=\"%s\" (cuTensorMapEncodeIm2colWide) needs sm_100a; the target is %s",
			         v->s, target_names[S->m->target]);
			return false;
		}
	}
	bool wide = t->mode != TMAP_IM2COL;
	if (t->rank < 3) {
		error_at(S->d, kwarg(a, "dims")->value->pos, "an im2col tensor map has 3 to 5 dimensions (C, W, [H, [D,]] N), "
		         "not %d", t->rank);
		return false;
	}
	/* the corners: 16-bit fields whose range shrinks with the rank */
	int ncorner = wide ? 1 : t->rank - 2;
	int64_t lim = wide || t->rank == 3 ? 32768 : t->rank == 4 ? 128 : 16;
	const char *names[2] = { "lower_corner", "upper_corner" };
	for (int k = 0; k < 2; k++) {
		int64_t *c = k ? t->upper : t->lower, v[TMAP_MAX_RANK];
		int n = ints(S, a, names[k], v);
		if (n < 0)
			return false;
		Pos p = kwarg(a, names[k])->value->pos;
		if (n != ncorner) {
			error_at(S->d, p, "%s= has %d entr%s; %s", names[k], n, n == 1 ? "y" : "ies",
			         wide ? xprintf("mode=\"%s\" has one corner, of W", tmap_modes[t->mode].name) :
			         xprintf("a rank-%d im2col map has %d (dimensions 1 to %d)", t->rank, ncorner, t->rank - 2));
			return false;
		}
		for (int i = 0; i < n; i++) {
			if (v[i] < -lim || v[i] > lim - 1) {
				error_at(S->d, p, "%s entry %d is %lld; %s the corners are %lld to %lld", names[k], i, (long long)v[i],
				         wide ? "in the ::w modes" : xprintf("in a rank-%d im2col map", t->rank), (long long)-lim,
				         (long long)lim - 1);
				return false;
			}
			c[i] = v[i];
		}
	}
	for (int i = 0; i < ncorner; i++) {
		int64_t lo = t->lower[i], hi = t->dims[i + 1] - 1 + t->upper[i];
		if (hi < lo) {
			error_at(S->d, at, "the bounding box is empty in dimension %d: from lower_corner %lld to dims-1 + "
			         "upper_corner = %lld %c %lld = %lld", i + 1, (long long)lo, (long long)t->dims[i + 1] - 1,
			         t->upper[i] < 0 ? '-' : '+', (long long)llabs(t->upper[i]), (long long)hi);
			return false;
		}
	}
	int64_t ch = 0, px = 0;
	Pos cp = kwarg(a, "channels_per_pixel")->value->pos, pp = at;
	if (!int_kw(S, a, "channels_per_pixel", &ch, &cp) || !int_kw(S, a, "pixels_per_column", &px, &pp))
		return false;
	if (ch < 1 || ch > 256) {
		error_at(S->d, cp, "channels_per_pixel= is %lld; it is 1 to 256", (long long)ch);
		return false;
	}
	if (ch * t->esize % 16) {
		error_at(S->d, cp, "channels_per_pixel= is %lld x %d = %lld bytes; a pixel's channels are a multiple of 16 "
		         "bytes", (long long)ch, t->esize, (long long)(ch * t->esize));
		return false;
	}
	if (t->mode == TMAP_IM2COL_W128) {
		if (kwarg(a, "pixels_per_column")) {
			error_at(S->d, pp, "mode=\"im2col::w::128\" loads 128 pixels; it takes no pixels_per_column=");
			return false;
		}
		px = 128;
	} else if (!kwarg(a, "pixels_per_column")) {
		error_at(S->d, at, "T.tensormap_im2col() needs pixels_per_column= (1 to 1024)");
		return false;
	} else if (px < 1 || px > 1024) {
		error_at(S->d, pp, "pixels_per_column= is %lld; it is 1 to 1024", (long long)px);
		return false;
	}
	t->channels = ch;
	t->pixels = px;
	for (int i = 0; i < t->rank; i++)
		t->box[i] = i == 0 ? ch : i == 1 ? px : 1;
	if (t->swizzle && ch * t->esize > t->swizzle) {
		error_at(S->d, cp, "channels_per_pixel= is %lld bytes, wider than the %d-byte swizzle span",
		         (long long)(ch * t->esize), t->swizzle);
		return false;
	}
	if (wide && t->swizzle != 64 && t->swizzle != 128) {
		kw = kwarg(a, "swizzle");
		error_at(S->d, kw ? kw->value->pos : at, "mode=\"%s\" needs swizzle= 64 or 128 (cuTensorMapEncodeIm2colWide), "
		         "not %d", tmap_modes[t->mode].name, t->swizzle);
		return false;
	}
	return true;
}

/* The scalar parameter P of a dims= entry `P`, `P * K` or `K * P` (K
 * in *k), or NULL. */
static Var *dyn_entry(Sema *S, Expr *e, int64_t *k)
{
	*k = 1;
	if (e->kind == E_BIN && e->op == OP_MUL) {
		Expr *p = e->a, *c = e->b;
		if (c->kind == E_NAME)
			p = e->b, c = e->a;
		Value *v = p->kind == E_NAME ? eval(S, c) : NULL;
		if (!v || IS_ERR(v) || v->kind != V_INT)
			return NULL;
		*k = v->i;
		e = p;
	}
	return shape_param(S, e);
}

/* dims= over a buffer of symbolic extent m (T.match_buffer(h, (m, ...))):
 * one entry may be `m` or `m * K`. It is checked as m's bound times K;
 * the entry is kept as written in the call. */
static bool dyn_dims(Sema *S, Expr *call, int *dim, int64_t *mult, Kw **swapped, Expr **orig)
{
	*dim = -1;
	*swapped = NULL;
	Kw *kw = call_kw(call, "dims");
	if (!kw || kw->value->kind != E_LIST || !call->nargs || call->args[0]->kind != E_NAME)
		return true;
	Expr *l = kw->value;
	Sym *bs = env_find(S->env, call->args[0]->str);
	Buffer *b = bs && bs->val && !IS_ERR(bs->val) && bs->val->kind == V_BUFFER ? bs->val->buffer : NULL;
	for (int i = 0; i < l->nargs; i++) {
		int64_t k;
		Var *p = dyn_entry(S, l->args[i], &k);
		if (!p)
			continue;
		if (!b || b->dyn != p) {
			error_at(S->d, l->args[i]->pos, "dims= entry %d is the scalar parameter '%s'; a tensor map's dimension "
			         "may be symbolic only where its buffer's extent is (T.match_buffer(h, (%s, ...)))", i, p->name,
			         p->name);
			return false;
		}
		if (*dim >= 0) {
			error_at(S->d, l->args[i]->pos, "dims= names '%s' twice", p->name);
			return false;
		}
		int64_t n;
		if (k < 1 || !mul_ok(b->dyn_bound, k, &n)) {
			error_at(S->d, l->args[i]->pos, "dims= entry %d: '%s' times %lld is not a size", i, p->name, (long long)k);
			return false;
		}
		if (!*swapped) {
			*orig = l;
			Expr *c = new_expr(E_LIST, l->pos);
			for (int j = 0; j < l->nargs; j++)
				vpush(c->args, c->nargs, l->args[j]);
			kw->value = c;
			*swapped = kw;
		}
		kw->value->args[i] = ex_int(n);
		kw->value->args[i]->pos = l->args[i]->pos;
		*dim = i;
		*mult = k;
	}
	return true;
}

static TensorMap *make_tensormap_(Sema *S, const char *name, Pos pos, Expr *call, int id);

TensorMap *make_tensormap(Sema *S, const char *name, Pos pos, Expr *call, int id)
{
	int dim;
	int64_t mult = 1;
	Kw *kw;
	Expr *orig = NULL;
	if (!dyn_dims(S, call, &dim, &mult, &kw, &orig))
		return NULL;
	TensorMap *t = make_tensormap_(S, name, pos, call, id);
	if (kw) /* the entry as written, for the printed IR */
		kw->value = orig;
	if (t && dim >= 0) {
		t->dyn = t->buf->dyn;
		t->dyn_dim = dim;
		t->dyn_mult = mult;
	}
	return t;
}

static TensorMap *make_tensormap_(Sema *S, const char *name, Pos pos, Expr *call, int id)
{
	Args a;
	bool im2col = id == IN_TENSORMAP_IM2COL;
	if (!check_args(S, call, id, &a))
		return NULL;
	if (S->in_device) {
		error_at(S->d, call->pos, "%s after T.device_entry(): the host encodes a tensor map before the "
		         "launch; declare it with the parameters", im2col ? "T.tensormap_im2col" : "T.tensormap");
		return NULL;
	}
	Buffer *b = a.pos[0]->buffer;
	if (!b->is_param) {
		error_at(S->d, call->args[0]->pos, "%s describes a global buffer parameter, not '%s'",
		         im2col ? "T.tensormap_im2col" : "T.tensormap", b->name);
		return NULL;
	}
	TensorMap *t = xalloc(sizeof *t);
	t->name = name;
	t->pos = pos;
	t->buf = b;
	t->esize = dtype_bytes(b->dtype);
	t->l2 = 128;
	int64_t strides[TMAP_MAX_RANK] = {0};
	int rank = ints(S, &a, "dims", t->dims), nbox = im2col ? rank : ints(S, &a, "box", t->box);
	int nstr = ints(S, &a, "strides", strides), nes = ints(S, &a, "elem_strides", t->estrides);
	if (rank < 0 || nbox < 0 || nstr < 0 || nes < 0)
		return NULL;
	t->rank = rank;
	if (im2col)
		for (int i = 0; i < rank; i++)
			t->box[i] = 1; /* im2col_fields() sets them; the rules below hold */
	Pos at = call->pos;
	Kw *kw;
	if (tmap_data_type(b->dtype) < 0) {
		error_at(S->d, call->args[0]->pos, "TMA cannot move %s elements (buffer '%s')", dtypes[b->dtype].name,
		         b->name);
		return NULL;
	}
	if (!im2col && nbox != rank) {
		error_at(S->d, kwarg(&a, "box")->value->pos, "box= has %d entries; dims= gives the map %d dimension%s", nbox,
		         rank, rank == 1 ? "" : "s");
		return NULL;
	}
	if (nstr != rank - 1 && (nstr || rank > 1)) {
		kw = kwarg(&a, "strides");
		error_at(S->d, kw ? kw->value->pos : call->pos, "strides= gives the byte strides of dimensions 1 to %d: %d "
		         "entr%s, not %d", rank - 1, rank - 1, rank - 1 == 1 ? "y" : "ies", nstr);
		return NULL;
	}
	if (nes && nes != rank) {
		error_at(S->d, kwarg(&a, "elem_strides")->value->pos, "elem_strides= has %d entries; the map has %d "
		         "dimension%s", nes, rank, rank == 1 ? "" : "s");
		return NULL;
	}
	t->strides[0] = t->esize;
	for (int i = 1; i < rank; i++)
		t->strides[i] = strides[i - 1];
	for (int i = 0; i < rank; i++) {
		if (!nes)
			t->estrides[i] = 1;
		Pos dp = kwarg(&a, "dims")->value->pos, bp = im2col ? dp : kwarg(&a, "box")->value->pos;
		if (t->dims[i] < 1 || t->dims[i] > ((int64_t)1 << 32)) {
			error_at(S->d, dp, "dimension %d has %lld elements; a tensor map's dimensions are 1 to 2^32", i,
			         (long long)t->dims[i]);
			return NULL;
		}
		if (t->box[i] < 1 || t->box[i] > 256) {
			error_at(S->d, bp, "box dimension %d is %lld; a box is 1 to 256 elements in each dimension", i,
			         (long long)t->box[i]);
			return NULL;
		}
		if (t->estrides[i] < 1 || t->estrides[i] > 8) {
			error_at(S->d, kwarg(&a, "elem_strides")->value->pos, "element stride %d is %lld; element strides are "
			         "1 to 8", i, (long long)t->estrides[i]);
			return NULL;
		}
		if (i && (t->strides[i] % 16 || t->strides[i] <= 0 || t->strides[i] >= ((int64_t)1 << 40))) {
			error_at(S->d, kwarg(&a, "strides")->value->pos, "the stride of dimension %d is %lld bytes; a global "
			         "stride is a positive multiple of 16 below 2^40", i, (long long)t->strides[i]);
			return NULL;
		}
	}
	if (!im2col && t->box[0] * t->esize % 16) {
		error_at(S->d, kwarg(&a, "box")->value->pos, "box dimension 0 is %lld x %d = %lld bytes; the innermost box "
		         "dimension must be a multiple of 16 bytes", (long long)t->box[0], t->esize,
		         (long long)(t->box[0] * t->esize));
		return NULL;
	}
	int64_t sw = 0, l2 = 128, off = 0;
	if (!int_kw(S, &a, "swizzle", &sw, &at) || !int_kw(S, &a, "l2_promotion", &l2, &at) ||
	    !int_kw(S, &a, "offset", &off, &at))
		return NULL;
	if (tmap_swizzle_mode((int)sw) < 0 || sw > 128) {
		error_at(S->d, kwarg(&a, "swizzle")->value->pos, "swizzle= is 0 (none), 32, 64 or 128 bytes, not %lld",
		         (long long)sw);
		return NULL;
	}
	t->swizzle = (int)sw;
	if (!im2col && sw && t->box[0] * t->esize > sw) {
		error_at(S->d, kwarg(&a, "box")->value->pos, "box dimension 0 is %lld bytes, wider than the %lld-byte "
		         "swizzle span", (long long)(t->box[0] * t->esize), (long long)sw);
		return NULL;
	}
	if (l2 != 0 && l2 != 64 && l2 != 128 && l2 != 256) {
		error_at(S->d, kwarg(&a, "l2_promotion")->value->pos, "l2_promotion= is 0, 64, 128 or 256 bytes, not %lld",
		         (long long)l2);
		return NULL;
	}
	t->l2 = (int)l2;
	if ((kw = kwarg(&a, "fill"))) {
		Value *v = eval_const(S, kw->value, "fill");
		if (IS_ERR(v))
			return NULL;
		if (v->kind != V_STR || (strcmp(v->s, "zero") && strcmp(v->s, "nan"))) {
			error_at(S->d, kw->value->pos, "fill= is \"zero\" or \"nan\"");
			return NULL;
		}
		t->nan_fill = !strcmp(v->s, "nan");
		if (t->nan_fill && dtypes[b->dtype].kind != DK_FLOAT) {
			error_at(S->d, kw->value->pos, "fill=\"nan\" is for floating-point elements, not %s",
			         dtypes[b->dtype].name);
			return NULL;
		}
	}
	if (off < 0 || off * t->esize % 16) {
		error_at(S->d, kwarg(&a, "offset")->value->pos, "offset= is %lld elements, %lld bytes; a tensor map starts "
		         "at a non-negative multiple of 16 bytes", (long long)off, (long long)(off * t->esize));
		return NULL;
	}
	t->offset = off;
	if (im2col && !im2col_fields(S, &a, t))
		return NULL;
	/* every element the map reaches is in the buffer */
	int64_t last = off * t->esize + t->esize;
	for (int i = 0; i < rank; i++)
		last += (t->dims[i] - 1) * t->strides[i];
	int64_t have = buffer_storage(b) * t->esize;
	if (last > have) {
		error_at(S->d, call->pos, "the tensor map reaches byte %lld of buffer '%s', which has %lld bytes",
		         (long long)last, b->name, (long long)have);
		return NULL;
	}
	vpush(S->func->tmaps, S->func->ntmaps, t);
	return t;
}
