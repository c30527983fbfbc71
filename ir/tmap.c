/* Tensor maps: `M = T.tensormap(A, dims=[...], box=[...], ...)` before
 * T.device_entry(), checked against every rule the driver's
 * cuTensorMapEncodeTiled and the TMA unit impose (ptx.md, "TMA"), so that
 * a map that would fail to encode, or fault, is refused at its line. */
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

TensorMap *make_tensormap(Sema *S, const char *name, Pos pos, Expr *call)
{
	Args a;
	if (!check_args(S, call, IN_TENSORMAP, &a))
		return NULL;
	if (S->in_device) {
		error_at(S->d, call->pos, "T.tensormap after T.device_entry(): the host encodes a tensor map before the "
		         "launch; declare it with the parameters");
		return NULL;
	}
	Buffer *b = a.pos[0]->buffer;
	if (!b->is_param) {
		error_at(S->d, call->args[0]->pos, "T.tensormap describes a global buffer parameter, not '%s'", b->name);
		return NULL;
	}
	TensorMap *t = xalloc(sizeof *t);
	t->name = name;
	t->pos = pos;
	t->buf = b;
	t->esize = dtype_bytes(b->dtype);
	t->l2 = 128;
	int64_t strides[TMAP_MAX_RANK] = {0};
	int rank = ints(S, &a, "dims", t->dims), nbox = ints(S, &a, "box", t->box);
	int nstr = ints(S, &a, "strides", strides), nes = ints(S, &a, "elem_strides", t->estrides);
	if (rank < 0 || nbox < 0 || nstr < 0 || nes < 0)
		return NULL;
	t->rank = rank;
	Pos at = call->pos;
	Kw *kw;
	if (tmap_data_type(b->dtype) < 0) {
		error_at(S->d, call->args[0]->pos, "TMA cannot move %s elements (buffer '%s')", dtypes[b->dtype].name,
		         b->name);
		return NULL;
	}
	if (nbox != rank) {
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
		Pos dp = kwarg(&a, "dims")->value->pos, bp = kwarg(&a, "box")->value->pos;
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
	if (t->box[0] * t->esize % 16) {
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
	if (sw && t->box[0] * t->esize > sw) {
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
