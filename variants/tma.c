/* The tma family: one thread copies a region between global and shared
 * memory with bulk tensor copies through a tensor map (doc/txir.md, "TMA").
 *
 * The plan starts from the aligned pair of layouts (txc-align, as the
 * partition family's): iters of equal extents, each with a global and a
 * shared stride. The tensor map is read off them:
 *   1. every iter is split where it crosses a dimension of the global
 *      buffer, so that each lies in one dimension d, at a multiple m of
 *      that dimension's stride;
 *   2. ordered by the shared stride, the innermost iter must be contiguous
 *      on both sides; it is box dimension 0 (at most 256 elements, and at
 *      most the swizzle span);
 *   3. the next iters are box dimensions as long as shared memory holds the
 *      box densely in TMA's order (rows of the box padded to the swizzle
 *      span when there is one); the first that does not, and all after it,
 *      become loops of boxes, each a tensor-map dimension with box 1;
 *   4. a dimension of the global buffer that no iter covers (the region is
 *      one element thick there) is a dimension with box 1 at the region's
 *      start; one of a single element is dropped;
 *   5. the tensor map's dimensions within one buffer dimension d, by m,
 *      have sizes m_next / m (the last: d's extent / m), and the region's
 *      start in d falls to the outermost of them (it must be a provable
 *      multiple of its m, or a constant that leaves every box inside).
 * The rank is at most 5 (adjacent uncovered dimensions are merged first);
 * everything else the tensor map obeys is checked by T.tensormap's rules,
 * here again with the numbers. */
#include <string.h>

#include "family.h"

const char *pred_single_thread(const Try *t)
{
	if (t->call->es != ES_THREAD)
		return xprintf("%s is issued by one thread: write the copy at thread scope (Tx.copy_async inside "
		               "`if tid == 0:`), not at %s scope", t->va->name, exec_scope_names[t->call->es]);
	return NULL;
}

#define MAXIT (2 * TMAP_MAX_RANK + 8)

typedef struct TIter {
	int64_t e, g, s;   /* extent, global stride, shared stride (elements) */
	int dim;           /* the global buffer's dimension */
	int64_t m;         /* g / the dimension's stride */
	bool box;          /* a box dimension (else a loop of boxes) */
} TIter;

typedef struct TDim {
	int64_t size, stride, box; /* elements, bytes, elements */
	Expr *coord;
	int64_t loop;      /* boxes along it (1: none) */
	int64_t sstep;     /* shared elements between two of them */
	int64_t dynk;      /* its size is m x dynk, m the global buffer's symbolic extent (0: constant) */
} TDim;

typedef struct Tma {
	bool load;
	Buffer *gb, *sb;   /* the global parameter, the shared buffer */
	int esize, rank, swizzle;
	TDim d[TMAP_MAX_RANK];
	Expr *sbase;       /* the shared region's first element (storage, before the swizzle) */
	int64_t boxes, box_bytes;
} Tma;

static int64_t largest_divisor(int64_t n, int64_t most)
{
	for (int64_t b = most < n ? most : n; b > 1; b--)
		if (n % b == 0)
			return b;
	return 1;
}

static bool insert(TIter *v, int *n, int at, TIter x)
{
	if (*n == MAXIT)
		return false;
	memmove(&v[at + 1], &v[at], sizeof *v * (size_t)(*n - at));
	v[at] = x;
	++*n;
	return true;
}

/* The element stride of each dimension of global buffer gb, into gstr:
 * row-major without a layout; with one (TVM writes
 * layout=TileLayout(S[shape : strides]) on a match_buffer), the stride of
 * the dimension's iters, which must run as one (a dimension of a tensor
 * map has one stride). *rowmajor says whether they are row-major's. */
static const char *global_strides(const Buffer *gb, int64_t *gstr, bool *rowmajor)
{
	for (int d = gb->ndim - 1; d >= 0; d--)
		gstr[d] = d == gb->ndim - 1 ? 1 : gstr[d + 1] * gb->shape[d + 1];
	*rowmajor = true;
	const Layout *l = gb->layout;
	if (!l)
		return NULL;
	if (l->swizzled || l->nrep)
		return xprintf("a tensor map describes a strided global buffer; '%s' has a %s layout", gb->name,
		               l->swizzled ? "swizzled" : "replicated");
	for (int a = 0; a < AX_COUNT; a++)
		if (l->off[a])
			return xprintf("a tensor map describes a strided global buffer; the layout of '%s' has an offset",
			               gb->name);
	int dims[9];
	const char *why = NULL;
	Layout *g = layout_group(l, gb->shape, gb->ndim, dims, &why);
	if (!g)
		return xprintf("the layout of '%s' does not group by its shape: %s", gb->name, why);
	for (int d = 0; d < gb->ndim; d++) {
		int64_t stride = 0, next = 0;
		for (int i = dims[d + 1] - 1; i >= dims[d]; i--) { /* innermost first */
			const Iter *x = &g->shard[i];
			if (x->axis != AX_M)
				return xprintf("a tensor map describes global memory; the layout of '%s' spreads dimension %d "
				               "over threads", gb->name, d);
			if (x->extent == 1)
				continue;
			if (stride && x->stride != next)
				return xprintf("dimension %d of '%s' is laid out in pieces of different strides; a tensor map's "
				               "dimension has one stride", d, gb->name);
			if (!stride)
				stride = x->stride;
			next = x->stride * x->extent;
		}
		if (stride) {
			*rowmajor &= stride == gstr[d];
			gstr[d] = stride;
		}
	}
	if (*rowmajor)
		return NULL;
	for (int d = 0; d < gb->ndim; d++) /* a dimension of one element: never a copy's step */
		if (gb->shape[d] == 1)
			gstr[d] = 0;
	return NULL;
}

/* The dimension of gb (strides gstr, not row-major) that an iter of global
 * stride g steps along: the one of the largest stride that g is a whole
 * step of within its extent (the outermost's extent unbounded: a load may
 * hang past it), or -1. */
static int stride_dim(const Buffer *gb, const int64_t *gstr, int64_t g)
{
	int d = -1, top = -1;
	for (int k = 0; k < gb->ndim; k++)
		if (gstr[k] && (top < 0 || gstr[k] > gstr[top]))
			top = k;
	for (int k = 0; k < gb->ndim; k++)
		if (gstr[k] && g % gstr[k] == 0 && (k == top || g / gstr[k] < gb->shape[k]) && (d < 0 || gstr[k] > gstr[d]))
			d = k;
	return d;
}

/* The tensor map of a copy between dst and src with the aligned plan p,
 * into t; NULL, or why there is none. */
static const char *derive_view(Tma *t, const Plan *p, const Value *dst, const Value *src)
{
	memset(t, 0, sizeof *t);
	t->load = scopes[dst->buffer->scope].flags & SCF_SHARED;
	const Value *g = t->load ? src : dst, *s = t->load ? dst : src;
	const Layout *gl = t->load ? p->src : p->dst, *sl = t->load ? p->dst : p->src;
	if (!gl || !sl)
		return "the plan has no layouts (run txc-align)";
	t->gb = g->buffer, t->sb = s->buffer;
	Buffer *gb = t->gb;
	t->esize = dtype_bytes(gb->dtype);
	/* the shared region's start: the symbolic part (the base) and the
	 * constant one (the layout's offset) */
	t->sbase = t->load ? p->dst_base : p->src_base;
	if (sl && sl->off[AX_M])
		t->sbase = ex_add(t->sbase ? t->sbase : ex_int(0), ex_int(sl->off[AX_M]));
	if (!gb->is_param)
		return xprintf("a tensor map describes a global buffer parameter; '%s' is a view of one", gb->name);
	if (tmap_data_type(gb->dtype) < 0)
		return xprintf("TMA cannot move %s elements", dtypes[gb->dtype].name);
	if (gb->ndim < 1 || gb->ndim > 8)
		return xprintf("the global buffer has %d dimensions", gb->ndim);
	int64_t gstr[8];
	bool rowmajor = true;
	const char *why = global_strides(gb, gstr, &rowmajor);
	if (why)
		return why;
	/* the swizzle TMA writes: 16-byte chunks, rows of 128 bytes */
	if (sl->swizzled) {
		int m = 0;
		while ((1 << m) * t->esize < 16)
			m++;
		if (sl->swz_m != m || sl->swz_s != 3 || sl->swz_b < 1 || sl->swz_b > 3)
			return xprintf("the shared layout's swizzle ComposeLayout(%d, %d, %d, ...) is not one TMA writes "
			               "(for %s: ComposeLayout(%d, B, 3, ...), B = 1, 2, 3 for 32, 64, 128 bytes)",
			               sl->swz_m, sl->swz_b, sl->swz_s, dtypes[gb->dtype].name, m);
		t->swizzle = 16 << sl->swz_b;
	}
	if (gl->nshard != sl->nshard)
		return "the plan's layouts do not pair";
	TIter it[MAXIT];
	int n = 0;
	for (int i = 0; i < gl->nshard; i++) {
		if (gl->shard[i].extent != sl->shard[i].extent)
			return "the plan's layouts do not pair";
		if (gl->shard[i].axis != AX_M || sl->shard[i].axis != AX_M)
			return "a layout of the plan is spread over threads";
		if (gl->shard[i].extent == 1)
			continue;
		if (n == MAXIT)
			return "too many iters";
		it[n++] = (TIter){ gl->shard[i].extent, gl->shard[i].stride, sl->shard[i].stride, 0, 0, false };
	}
	/* 1. each iter in one dimension of the global buffer */
	for (int i = 0; i < n; i++) {
		TIter *x = &it[i];
		int d = gb->ndim - 1;
		if (rowmajor)
			while (d > 0 && x->g >= gstr[d - 1])
				d--;
		else if ((d = stride_dim(gb, gstr, x->g)) < 0)
			return xprintf("a global stride of %lld elements is not a whole step of a dimension of '%s' within it",
			               (long long)x->g, gb->name);
		if (x->g % gstr[d])
			return xprintf("a global stride of %lld elements is not a whole step of dimension %d", (long long)x->g, d);
		x->dim = d;
		x->m = x->g / gstr[d];
		/* (an iter that runs past the tensor's edge, where a load fills,
		 * is not split) */
		if (x->m * x->e > gb->shape[d] && g->extents[d] <= gb->shape[d]) {
			int64_t a = gb->shape[d] / x->m;
			if (gb->shape[d] % x->m || a < 1 || x->e % a)
				return xprintf("the region runs across dimension %d of '%s' (%lld elements) in steps that do not divide it",
				               d, gb->name, (long long)gb->shape[d]);
			TIter o = { x->e / a, x->g * a, x->s * a, 0, 0, false };
			x->e = a;
			if (!insert(it, &n, i + 1, o))
				return "too many iters";
		}
	}
	/* 2. ordered by the shared stride (stable) */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && it[k - 1].s > it[k].s; k--) {
			TIter x = it[k];
			it[k] = it[k - 1], it[k - 1] = x;
		}
	if (n == 0)
		it[n++] = (TIter){ 1, 1, 1, gb->ndim - 1, 1, false };
	if (it[0].s != 1)
		return xprintf("the shared side's innermost elements are %lld apart; TMA writes a box's rows contiguously",
		               (long long)it[0].s);
	if (it[0].g != 1)
		return xprintf("the elements that are contiguous in shared memory are %lld apart in global memory; TMA's "
		               "innermost box dimension runs along contiguous global elements", (long long)it[0].g);
	int64_t lim = t->swizzle ? t->swizzle / t->esize : 256;
	if (lim > 256)
		lim = 256;
	if (it[0].e > lim) {
		int64_t b = largest_divisor(it[0].e, lim);
		TIter o = { it[0].e / b, it[0].g * b, it[0].s * b, it[0].dim, it[0].m * b, false };
		it[0].e = b;
		if (!insert(it, &n, 1, o))
			return "too many iters";
	}
	if (it[0].e * t->esize % 16)
		return xprintf("the contiguous run is %lld x %d = %lld bytes; TMA's innermost box dimension is a multiple of "
		               "16 bytes", (long long)it[0].e, t->esize, (long long)(it[0].e * t->esize));
	it[0].box = true;
	/* 3. box dimensions while shared memory holds the box densely */
	int64_t want = t->swizzle ? t->swizzle / t->esize : it[0].e;
	for (int i = 1; i < n; i++) {
		if (it[i].s != want)
			break;
		if (it[i].e > 256) {
			int64_t b = largest_divisor(it[i].e, 256);
			TIter o = { it[i].e / b, it[i].g * b, it[i].s * b, it[i].dim, it[i].m * b, false };
			it[i].e = b;
			if (!insert(it, &n, i + 1, o))
				return "too many iters";
		}
		it[i].box = true;
		want *= it[i].e;
	}
	/* 4, 5. the tensor map's dimensions, innermost first */
	int r = 0;
	t->boxes = 1;
	t->box_bytes = t->esize;
	for (int i = 0; i < n; i++) {
		if (r == TMAP_MAX_RANK)
			goto too_many;
		TIter *x = &it[i];
		TDim *td = &t->d[r++];
		td->stride = x->g * t->esize;
		td->box = x->box ? x->e : 1;
		td->loop = x->box ? 1 : x->e;
		td->sstep = x->s;
		t->boxes *= td->loop;
		t->box_bytes *= td->box;
	}
	int ncovered = r;
	for (int d = gb->ndim - 1; d >= 0; d--) {
		bool covered = false;
		for (int i = 0; i < n; i++)
			covered |= it[i].dim == d;
		if (covered || gb->shape[d] == 1)
			continue;
		/* an uncovered dimension: box 1 at the region's start, merged
		 * into the inner one before it when that is uncovered and
		 * continues into this one */
		TDim *in = r > ncovered ? &t->d[r - 1] : NULL;
		if (in && in->stride * in->size == gstr[d] * t->esize) {
			in->coord = ex_add(ex_mul(g->starts[d], ex_int(in->size)), in->coord);
			if (d == 0 && gb->dyn)
				in->dynk = in->size;
			in->size *= gb->shape[d];
			continue;
		}
		if (r == TMAP_MAX_RANK)
			goto too_many;
		t->d[r++] = (TDim){ gb->shape[d], gstr[d] * t->esize, 1, g->starts[d], 1, 0, d == 0 && gb->dyn ? 1 : 0 };
	}
	/* the covered dimensions' sizes and coordinates */
	for (int d = 0; d < gb->ndim; d++) {
		int idx[MAXIT], k = 0;
		for (int i = 0; i < n; i++)
			if (it[i].dim == d)
				idx[k++] = i;
		if (!k)
			continue;
		for (int a = 1; a < k; a++) /* by m */
			for (int b = a; b > 0 && it[idx[b - 1]].m > it[idx[b]].m; b--) {
				int x = idx[b];
				idx[b] = idx[b - 1], idx[b - 1] = x;
			}
		if (it[idx[0]].m != 1)
			return xprintf("dimension %d of '%s' is copied in steps of %lld elements", d, gb->name,
			               (long long)it[idx[0]].m);
		Expr *c = g->starts[d];
		int64_t top = it[idx[k - 1]].m, cv = 0;
		bool constant = c->val && c->val->kind == V_INT;
		if (constant)
			cv = c->val->i;
		else if (k > 1 && !expr_divisible(c, top))
			return xprintf("the start '%s' of dimension %d of '%s' is not provably a multiple of %lld, where the "
			               "tensor map splits that dimension", expr_str(c), d, gb->name, (long long)top);
		for (int a = 0; a < k; a++) {
			TDim *td = &t->d[idx[a]];
			int64_t m = it[idx[a]].m;
			if (a + 1 < k) {
				int64_t next = it[idx[a + 1]].m;
				if (next % m)
					return xprintf("dimension %d of '%s' splits in steps of %lld and %lld elements", d, gb->name,
					               (long long)m, (long long)next);
				td->size = next / m;
			} else {
				if (gb->shape[d] % m)
					return xprintf("dimension %d of '%s' (%lld elements) does not split in steps of %lld", d,
					               gb->name, (long long)gb->shape[d], (long long)m);
				td->size = gb->shape[d] / m;
				if (d == 0 && gb->dyn && m != 1)
					return xprintf("dimension 0 of '%s', whose extent '%s' is symbolic, is copied in steps of %lld "
					               "elements; a tensor map's dimension is then '%s' / %lld, which txc does not "
					               "encode", gb->name, gb->dyn->name, (long long)m, gb->dyn->name, (long long)m);
				if (d == 0 && gb->dyn)
					td->dynk = 1;
			}
			if (k == 1)
				td->coord = c;
			else if (!constant)
				td->coord = ex_int(0);
			else {
				int64_t v = a + 1 < k ? cv / m % td->size : cv / m;
				if (a + 1 < k && v + td->box * td->loop > td->size)
					return xprintf("the region's start %lld in dimension %d of '%s' makes its boxes wrap where the "
					               "tensor map splits that dimension in steps of %lld", (long long)cv, d, gb->name,
					               (long long)td->size);
				td->coord = ex_int(v);
			}
			if (a + 1 == k && k > 1 && !constant)
				td->coord = ex_div(c, m);
		}
	}
	t->rank = r;
	/* TMA writes (and reads) shared memory 128-byte aligned, and swizzles
	 * the absolute address */
	Buffer *root = buffer_root(t->sb);
	bool rounded = (root->layout && root->layout->swizzled) || root->align > 16;
	int64_t need = t->swizzle ? 128 << sl->swz_b : 128, bm = t->sbase ? expr_multiple(t->sbase) : 0;
	if (!rounded || root->smem_off % need)
		return xprintf("TMA needs '%s' at a %lld-byte aligned shared address; it starts at byte %lld%s", root->name,
		               (long long)need, (long long)root->smem_off,
		               rounded ? "" : " of a base only 16-byte aligned (allocate it with align=1024)");
	if (bm != 0 && (bm * t->esize) % 128)
		return xprintf("the shared region starts at element '%s' of '%s', not provably a multiple of 128 bytes",
		               expr_str(t->sbase), t->sb->name);
	for (int i = 0; i < t->rank; i++)
		if (t->d[i].loop > 1 && t->d[i].sstep * t->esize % 128)
			return xprintf("its boxes are %lld bytes apart in shared memory; TMA needs each at a multiple of 128 "
			               "bytes", (long long)(t->d[i].sstep * t->esize));
	for (int i = 1; i < t->rank; i++)
		if (t->d[i].stride % 16)
			return xprintf("global stride %lld bytes (tensor-map dimension %d) is not a multiple of 16",
			               (long long)t->d[i].stride, i);
	return NULL;
too_many:
	return xprintf("the region needs a tensor map of more than %d dimensions", TMAP_MAX_RANK);
}

/* The global region g over a row-major buffer seen with each dimension it
 * covers whole merged into the one outside it (TVM's tma_auto does the
 * same): a run that crosses them is one tensor-map dimension, no longer
 * split where the buffer's dimensions meet. NULL when nothing merges. */
static Value *merged_view(const Value *g)
{
	const Buffer *b = g->buffer;
	int64_t gstr[8];
	bool rowmajor;
	if (b->dyn || b->ndim < 2 || b->ndim > 8 || global_strides(b, gstr, &rowmajor) || !rowmajor)
		return NULL;
	int64_t shape[8], ext[8];
	Expr *start[8];
	int n = 0;
	for (int d = 0; d < b->ndim; d++) {
		int64_t c;
		bool whole = expr_int(g->starts[d], &c) && c == 0 && g->extents[d] == b->shape[d];
		if (n > 0 && whole) {
			/* d merges into the dimension outside it, which must lie inside the tensor */
			int64_t oc;
			bool inside = ext[n - 1] <= shape[n - 1] &&
			              (!expr_int(start[n - 1], &oc) || (oc >= 0 && oc + ext[n - 1] <= shape[n - 1]));
			if (inside) {
				start[n - 1] = ex_mul(start[n - 1], ex_int(b->shape[d]));
				shape[n - 1] *= b->shape[d], ext[n - 1] *= b->shape[d];
				continue;
			}
		}
		shape[n] = b->shape[d], ext[n] = g->extents[d], start[n] = g->starts[d];
		n++;
	}
	if (n == b->ndim)
		return NULL;
	Buffer *nb = xalloc(sizeof *nb);
	*nb = *b;
	nb->ndim = n;
	nb->shape = xalloc(sizeof(int64_t) * (size_t)n);
	memcpy(nb->shape, shape, sizeof(int64_t) * (size_t)n);
	Value *v = vnew(V_REGION);
	*v = *g;
	v->buffer = nb;
	v->ndim = n;
	v->starts = xalloc(sizeof(Expr *) * (size_t)n);
	memcpy(v->starts, start, sizeof(Expr *) * (size_t)n);
	v->extents = xalloc(sizeof(int64_t) * (size_t)n);
	memcpy(v->extents, ext, sizeof(int64_t) * (size_t)n);
	return v;
}

/* The tensor map of the copy: as derive_view finds it over the buffer's
 * own dimensions, or, where that fails (a contiguous run under 16 bytes
 * at a dimension's end, more than 5 dimensions), over the dimensions the
 * region covers whole merged (merged_view); the first reason otherwise. */
static const char *derive_merged(Tma *t, const Plan *p, const Value *dst, const Value *src)
{
	const char *why = derive_view(t, p, dst, src);
	if (!why)
		return NULL;
	bool load = scopes[dst->buffer->scope].flags & SCF_SHARED;
	Value *m = merged_view(load ? src : dst);
	if (m && !derive_view(t, p, load ? dst : m, load ? m : src))
		return NULL;
	derive_view(t, p, dst, src); /* t as the reason found it */
	return why;
}

/* The region g of a view of a global buffer parameter (TVM's A.sub[...]:
 * A.view(shape, layout=S[shape : strides] + offset)) as the same region
 * of the parameter, when the view is a box of it: each dimension of the
 * view one of the parameter's (its stride), in any order (A.permute()),
 * and the offset a corner inside it. NULL when it is not. */
static Value *param_region(const Value *g)
{
	const Buffer *v = g->buffer, *b = v;
	while (b->base && !b->is_param)
		b = b->base;
	const Layout *l = v->layout;
	if (v->is_param || !b->is_param || b->ndim > 8 || v->ndim > 8 || !l || l->swizzled || l->nrep)
		return NULL;
	for (int a = 0; a < AX_COUNT; a++)
		if (a != AX_M && l->off[a])
			return NULL;
	int64_t pstr[8];
	bool rowmajor;
	if (global_strides(b, pstr, &rowmajor))
		return NULL;
	/* the corner: the offset in the parameter's coordinates, outermost first */
	int64_t corner[8] = {0}, off = l->off[AX_M] - b->elem_offset;
	bool used[8] = {0};
	for (int n = 0; n < b->ndim; n++) {
		int k = -1;
		for (int d = 0; d < b->ndim; d++)
			if (!used[d] && pstr[d] > 0 && (k < 0 || pstr[d] > pstr[k]))
				k = d;
		if (k < 0)
			break;
		used[k] = true;
		corner[k] = off / pstr[k];
		off %= pstr[k];
		if (corner[k] >= b->shape[k])
			return NULL;
	}
	if (off)
		return NULL;
	int dims[9];
	const char *why = NULL;
	Layout *gl = layout_group(l, v->shape, v->ndim, dims, &why);
	if (!gl)
		return NULL;
	Value *r = vnew(V_REGION);
	*r = *g;
	r->buffer = (Buffer *)b;
	r->ndim = b->ndim;
	r->starts = xalloc(sizeof(Expr *) * (size_t)b->ndim);
	r->extents = xalloc(sizeof(int64_t) * (size_t)b->ndim);
	for (int k = 0; k < b->ndim; k++)
		r->starts[k] = ex_int(corner[k]), r->extents[k] = 1;
	unsigned taken = 0; /* the parameter's dimensions a view dimension is (TVM's permute(): any order) */
	for (int d = 0; d < v->ndim; d++) {
		int64_t stride = 0;
		for (int i = dims[d]; i < dims[d + 1]; i++) {
			if (gl->shard[i].axis != AX_M)
				return NULL;
			if (gl->shard[i].extent == 1)
				continue;
			if (stride)
				return NULL; /* one stride a dimension */
			stride = gl->shard[i].stride;
		}
		if (!stride) { /* one element thick: no dimension of the parameter */
			if (g->extents[d] != 1)
				return NULL;
			continue;
		}
		int k = -1;
		for (int j = 0; j < b->ndim; j++)
			if (pstr[j] == stride && b->shape[j] > 1)
				k = j;
		if (k < 0 || (taken >> k & 1) || corner[k] + v->shape[d] > b->shape[k])
			return NULL;
		taken |= 1u << k;
		r->starts[k] = ex_add(ex_int(corner[k]), g->starts[d]);
		r->extents[k] = g->extents[d];
	}
	return r;
}

/* The tensor map of a copy whose global operand is a parameter, or a box
 * of one (param_region). */
static const char *derive(Tma *t, const Plan *p, const Value *dst, const Value *src)
{
	bool load = scopes[dst->buffer->scope].flags & SCF_SHARED;
	const Value *g = load ? src : dst;
	Value *r = g->buffer->is_param ? NULL : param_region(g);
	if (r)
		return derive_merged(t, p, load ? dst : r, load ? r : src);
	return derive_merged(t, p, dst, src);
}

/* A load with oob_fill= may hang past the tensor's edge (sema allowed it):
 * the layouts are aligned over the region moved inside (a constant start
 * that hangs taken as 0; an outermost extent beyond the tensor as a
 * larger outermost dimension, which changes no stride), while the tensor
 * map keeps the real dimensions and the coordinates the real starts. */
static const Value *inside(const Value *g, const char **why)
{
	const Buffer *b = g->buffer;
	Value *v = NULL;
	Buffer *nb = NULL;
	for (int d = 0; d < g->ndim && d < b->ndim; d++) {
		const Expr *st = g->starts[d];
		int64_t c = 0, e = g->extents[d];
		bool k = st->kind == E_INT ? (c = st->ival, true) : st->val && st->val->kind == V_INT ? (c = st->val->i, true) : false;
		bool hang = (k && (c < 0 || c > b->shape[d] - e)) || e > b->shape[d];
		if (!hang)
			continue;
		if (e > b->shape[d] && d > 0) {
			*why = xprintf("not supported yet: a region %lld elements wide in dimension %d of '%s', which has %lld; "
			               "only the outermost dimension may be wider than the tensor", (long long)e, d, b->name,
			               (long long)b->shape[d]);
			return NULL;
		}
		if (!v) {
			v = vnew(V_REGION);
			*v = *g;
			v->starts = xalloc(sizeof(Expr *) * (size_t)g->ndim);
			memcpy(v->starts, g->starts, sizeof(Expr *) * (size_t)g->ndim);
		}
		v->starts[d] = ex_int(0);
		if (e > b->shape[d]) {
			nb = xalloc(sizeof *nb);
			*nb = *b;
			nb->shape = xalloc(sizeof(int64_t) * (size_t)b->ndim);
			memcpy(nb->shape, b->shape, sizeof(int64_t) * (size_t)b->ndim);
			nb->shape[0] = e;
			v->buffer = nb;
		}
	}
	return v ? v : g;
}

static bool align(Plan *p, const Variant *va, const Value *dst, const Value *src, const char **why)
{
	(void)va;
	bool dst_global = scopes[dst->buffer->scope].flags & SCF_GLOBAL;
	const Value *in = inside(dst_global ? dst : src, why);
	if (!in || !plan_align(p, dst_global ? in : dst, dst_global ? src : in, true, dst_global, why))
		return false;
	Tma t;
	if ((*why = derive(&t, p, dst, src)))
		return false;
	Expr *box = new_expr(E_LIST, (Pos){0});
	for (int i = 0; i < t.rank; i++)
		vpush(box->args, box->nargs, ex_int(t.d[i].box));
	p->box = box;
	p->outer = t.boxes;
	return true;
}

/* The box of a plan as integers; -1 when it is not a list of them. */
static int plan_box(const Plan *p, int64_t *out)
{
	if (!p->box || p->box->kind != E_LIST || p->box->nargs > TMAP_MAX_RANK)
		return -1;
	for (int i = 0; i < p->box->nargs; i++) {
		const Expr *x = p->box->args[i];
		if (x->kind == E_INT)
			out[i] = x->ival;
		else if (x->val && x->val->kind == V_INT)
			out[i] = x->val->i;
		else
			return -1;
	}
	return p->box->nargs;
}

static const char *check(const Plan *p, const Value *dst)
{
	(void)dst;
	int64_t box[TMAP_MAX_RANK];
	if (!p->src || !p->dst || !p->outer || plan_box(p, box) < 1)
		return "the plan is incomplete: it needs src=, dst=, box= and outer= (run txc-align)";
	return NULL;
}

static const char *prove(const Plan *p, const Variant *va, const Value *dst, const Value *src, int64_t threads)
{
	(void)threads;
	const char *why = NULL;
	bool dst_global = scopes[dst->buffer->scope].flags & SCF_GLOBAL;
	const Value *in = inside(dst_global ? dst : src, &why);
	if (!in)
		return why;
	if ((why = plan_prove_pair(p, va, dst_global ? in : dst, dst_global ? src : in, true, false, 1)))
		return why;
	Tma t;
	if ((why = derive(&t, p, dst, src)))
		return why;
	int64_t box[TMAP_MAX_RANK];
	int n = plan_box(p, box);
	bool same = n == t.rank && p->outer == t.boxes;
	for (int i = 0; same && i < n; i++)
		same = box[i] == t.d[i].box;
	if (!same) {
		Buf b = {0};
		for (int i = 0; i < t.rank; i++)
			bprintf(&b, "%s%lld", i ? ", " : "", (long long)t.d[i].box);
		return xprintf("box= and outer= say %s and %lld, but the operands give box [%s] in %lld box%s",
		               p->box ? expr_str(p->box) : "nothing", (long long)p->outer, b.s, (long long)t.boxes,
		               t.boxes == 1 ? "" : "es");
	}
	return NULL;
}

static Expr *list(const int64_t *v, int n)
{
	Expr *l = new_expr(E_LIST, (Pos){0});
	for (int i = 0; i < n; i++)
		vpush(l->args, l->nargs, ex_int(v[i]));
	return l;
}

/* The name of the tensor map of t: one already declared with the same
 * encoding, or a new declaration (before T.device_entry()). */
static const char *tensormap(Lower *L, OpSite *o, const Tma *t)
{
	int64_t dims[TMAP_MAX_RANK] = {0}, box[TMAP_MAX_RANK] = {0}, strides[TMAP_MAX_RANK] = {0};
	for (int i = 0; i < t->rank; i++)
		dims[i] = t->d[i].size, box[i] = t->d[i].box, strides[i] = i + 1 < t->rank ? t->d[i + 1].stride : 0;
	Expr *buf = ex_name(t->gb->name);
	Expr *call = ex_call("T.tensormap", 1, &buf);
	Expr *dl = list(dims, t->rank);
	for (int i = 0; i < t->rank; i++) /* a buffer's symbolic extent m: m x k, encoded at the launch */
		if (t->d[i].dynk)
			dl->args[i] = ex_mul(ex_name(t->gb->dyn->name), ex_int(t->d[i].dynk));
	call_add_kw(call, "dims", dl, (Pos){0});
	if (t->rank > 1)
		call_add_kw(call, "strides", list(strides, t->rank - 1), (Pos){0});
	call_add_kw(call, "box", list(box, t->rank), (Pos){0});
	if (t->swizzle)
		call_add_kw(call, "swizzle", ex_int(t->swizzle), (Pos){0});
	Kw *fill = call_kw(o->call, "oob_fill");
	if (fill)
		call_add_kw(call, "fill", fill->value, (Pos){0});
	Kw *l2 = call_kw(o->call, "l2_promotion");
	if (l2)
		call_add_kw(call, "l2_promotion", l2->value, (Pos){0});
	const char *text = expr_str(call);
	Stmt *fs = L->fstmt;
	for (int pass = 0; pass < 2; pass++) {
		Stmt **v = pass ? L->pre : fs->body;
		int nv = pass ? L->npre : fs->nbody;
		for (int i = 0; i < nv; i++)
			if (v[i]->kind == S_ASSIGN && v[i]->ntargets == 1 && v[i]->targets[0]->kind == E_NAME &&
			    v[i]->value->kind == E_CALL && !strcmp(expr_str(v[i]->value), text))
				return v[i]->targets[0]->str;
	}
	const char *name = lower_fresh(L, xprintf("%s_map", t->gb->name));
	lower_take(L, name);
	Stmt *s = new_stmt(S_ASSIGN, (Pos){0});
	vpush(s->targets, s->ntargets, ex_name(name));
	s->value = call;
	vpush(L->pre, L->npre, s);
	return name;
}

static int lower(Lower *L, OpSite *o, const Variant *va, const Plan *p)
{
	(void)va;
	const Value *dst = o->call->args[0]->val, *src = o->call->args[1]->val;
	Tma t;
	const char *why = derive(&t, p, dst, src);
	if (why)
		return lower_fail(L, o, why);
	const char *map = tensormap(L, o, &t);
	/* one instruction per box; the loops of boxes outermost first */
	const char *var[TMAP_MAX_RANK] = {0};
	Expr *soff = t.sbase ? t.sbase : ex_int(0);
	Expr *coord[TMAP_MAX_RANK];
	for (int i = 0; i < t.rank; i++) {
		coord[i] = t.d[i].coord;
		if (t.d[i].loop > 1) {
			var[i] = lower_fresh(L, xprintf("b%d", i));
			lower_take(L, var[i]);
			soff = ex_add(soff, ex_mul(ex_name(var[i]), ex_int(t.d[i].sstep)));
			coord[i] = ex_add(coord[i], ex_name(var[i]));
		}
	}
	Expr *args[4 + TMAP_MAX_RANK];
	int na = 0;
	args[na++] = ex_int(t.rank);
	Expr *sa[2] = { ex_name(t.sb->name), soff };
	args[na++] = ex_call("T.pointer_offset", 2, sa);
	if (t.load)
		args[na++] = call_kw(o->call, "mbar")->value;
	args[na++] = ex_name(map);
	for (int i = 0; i < t.rank; i++)
		args[na++] = coord[i];
	/* TVM's cta_group=: 1, this CTA's mbarrier, is what the copy does */
	Kw *cg = call_kw(o->call, "cta_group");
	if (cg && !(cg->value->val && cg->value->val->kind == V_INT && cg->value->val->i == 1))
		return lower_fail(L, o, xprintf("not supported yet: cta_group=%s: a TMA load completing on the mbarrier of "
		                                "the CTA pair's leader (.cta_group::2, sm_100a); tma copies with cta_group=1",
		                                cg->value->val && cg->value->val->kind == V_INT ?
		                                xprintf("%lld", (long long)cg->value->val->i) : expr_str(cg->value)));
	Kw *red = call_kw(o->call, "reduce");
	if (red && t.load)
		return lower_fail(L, o, "reduce= combines a shared -> global copy into global memory; this copy loads");
	Expr *c = ex_call(t.load ? "T.ptx.cp_async.bulk.tensor.g2c" : red ? "T.ptx.cp_async.bulk.tensor.s2g_reduce" :
	                  "T.ptx.cp_async.bulk.tensor.s2g", na, args);
	if (red)
		call_add_kw(c, "red_op", red->value, (Pos){0});
	Kw *hint = call_kw(o->call, "cache_hint");
	if (hint)
		call_add_kw(c, "cache_hint", hint->value, (Pos){0});
	/* cta_mask= (sema checked it): each box multicast to the CTAs of the
	 * mask; a constant 0 is no multicast (TVM's default) */
	Kw *mask = call_kw(o->call, "cta_mask");
	if (mask && !t.load)
		return lower_fail(L, o, "cta_mask= multicasts a global -> shared load to the CTAs of the cluster; this copy "
		                  "stores");
	if (mask && !(mask->value->val && mask->value->val->kind == V_INT && mask->value->val->i == 0))
		call_add_kw(c, "cta_mask", mask->value, (Pos){0});
	Stmt *st = new_stmt(S_EXPR, (Pos){0});
	st->value = c;
	for (int i = 0; i < t.rank; i++) {
		if (!var[i])
			continue;
		st = lower_loop(var[i], t.d[i].loop, st);
	}
	st->pos = o->stmt->pos;
	/* TVM's prefetch_tensormap=True: the map before the first box */
	Kw *pm = call_kw(o->call, "prefetch_tensormap");
	Stmt *v[2];
	int nv = 0;
	if (pm && pm->value->val && pm->value->val->i) {
		Expr *m = ex_name(map);
		v[nv] = new_stmt(S_EXPR, o->stmt->pos);
		v[nv++]->value = ex_call("T.ptx.prefetch.tensormap", 1, &m);
	}
	v[nv++] = st;
	op_replace(o, v, nv);
	return 0;
}

/* Tx.prefetch(A[region]): the region's tensor map read as for a load into
 * a dense row-major tile of the region's shape (so each box is as large
 * as TMA allows), and one cp.async.bulk.prefetch.tensor per box. */
int tma_lower_prefetch(Lower *L, OpSite *o)
{
	const Value *src = o->call->args[0]->val;
	Buffer *tile = xalloc(sizeof *tile);
	tile->name = "_prefetch";
	tile->scope = SC_SHARED;
	tile->dtype = src->buffer->dtype;
	tile->ndim = src->ndim;
	tile->shape = src->extents;
	tile->align = 1024;
	Value *dst = vnew(V_REGION);
	*dst = *src;
	dst->buffer = tile;
	dst->starts = xalloc(sizeof(Expr *) * (size_t)src->ndim);
	for (int d = 0; d < src->ndim; d++)
		dst->starts[d] = ex_int(0);
	Plan p = { 0 };
	const char *why = NULL;
	const Value *in = inside(src, &why);
	if (!in || !plan_align(&p, dst, in, true, false, &why))
		return lower_fail(L, o, xprintf("no TMA prefetch for it: %s", why));
	Tma t;
	if ((why = derive(&t, &p, dst, src)))
		return lower_fail(L, o, xprintf("no TMA prefetch for it: %s", why));
	const char *map = tensormap(L, o, &t);
	const char *var[TMAP_MAX_RANK] = { 0 };
	Expr *args[2 + TMAP_MAX_RANK];
	int na = 0;
	args[na++] = ex_int(t.rank);
	args[na++] = ex_name(map);
	for (int i = 0; i < t.rank; i++) {
		Expr *c = t.d[i].coord;
		if (t.d[i].loop > 1) {
			var[i] = lower_fresh(L, xprintf("b%d", i));
			lower_take(L, var[i]);
			c = ex_add(c, ex_name(var[i]));
		}
		args[na++] = c;
	}
	Expr *c = ex_call("T.ptx.cp_async.bulk.tensor.prefetch", na, args);
	Kw *hint = call_kw(o->call, "cache_hint");
	if (hint)
		call_add_kw(c, "cache_hint", hint->value, (Pos){0});
	Stmt *st = new_stmt(S_EXPR, (Pos){0});
	st->value = c;
	for (int i = 0; i < t.rank; i++)
		if (var[i])
			st = lower_loop(var[i], t.d[i].loop, st);
	st->pos = o->stmt->pos;
	op_replace(o, &st, 1);
	return 0;
}

const Family family_tma = { align, NULL, NULL, check, prove, lower };
