/* Where the elements of a buffer live: the Acc of each buffer (its
 * layout grouped by its shape once, so that finding an element allocates
 * nothing), the storage offset of an element, and which threads hold a
 * register element. */
#include <string.h>

#include "emu-impl.h"

/* ---- buffers -------------------------------------------------------------------------------- */

static int index_of(Buffer **v, int n, const Buffer *b)
{
	for (int i = 0; i < n; i++)
		if (v[i] == b)
			return i;
	return -1;
}

Acc *emu_acc(Prog *p, Buffer *b)
{
	Acc *a = xalloc(sizeof *a);
	a->b = b;
	a->root = buffer_root(b);
	a->dtype = b->dtype;
	a->esize = dtype_bytes(b->dtype);
	a->mem = -1;
	a->nrep = 1;
	int fl = scopes[a->root->scope].flags;
	if (b->scope == SC_TMEM || a->root->scope == SC_TMEM) {
		/* its layout is worked out (TLane, TCol) for Tx.wg.copy_async to
		 * or from registers (emu-tmem.c), which alone passes by `why` */
		a->space = SP_TMEM;
		a->why = "tensor memory is emulated only through the T.ptx.tcgen05 builtins and Tx.wg.copy_async to or "
		         "from registers (tcgen05_ldst), not here";
	} else if (fl & SCF_GLOBAL) {
		a->space = SP_GLOBAL;
		a->mem = index_of(p->f->params, p->f->nparams, a->root);
	} else if (fl & SCF_SHARED) {
		a->space = SP_SHARED;
		a->mem = index_of(p->shared, p->nshared, a->root);
	} else if (fl & SCF_THREAD) {
		a->space = SP_LOCAL;
		a->mem = index_of(p->local, p->nlocal, a->root);
	}
	a->storage = buffer_storage(a->root);
	if (a->root->dtype != b->dtype) /* over storage of another dtype: its bytes, in this buffer's elements */
		a->storage = a->storage * dtype_bytes(a->root->dtype) / a->esize;
	Layout *l = b->layout;
	if (!l) {
		l = layout_new();
		layout_default(l, b->shape, b->ndim);
	}
	a->l = l;
	if (b->ndim <= LAYOUT_MAX_ITERS) {
		const char *why;
		a->dims = xalloc(sizeof(int) * (size_t)(b->ndim + 1));
		a->g = layout_group(l, b->shape, b->ndim, a->dims, &why);
	}
	for (int i = 0; i < l->nshard + l->nrep; i++) {
		const Iter *it = i < l->nshard ? &l->shard[i] : &l->rep[i - l->nshard];
		if (it->extent > 1 && axes[it->axis].kind == AXK_THREAD)
			a->taxes |= 1u << it->axis;
	}
	for (int x = 0; x < AX_COUNT; x++)
		if (l->off[x] && axes[x].kind == AXK_THREAD)
			a->taxes |= 1u << x;
	a->nrep = layout_nreplicas(l);
	if (a->space == SP_TMEM) /* the why above stays */
		a->nrep = 1;
	else if (a->mem < 0)
		a->why = xprintf("buffer '%s' has no storage the emulator knows", b->name);
	else if (a->nrep < 1 || a->nrep > 1024)
		a->why = xprintf("the layout of '%s' has too many replicas to emulate", b->name);
	a->simple = !a->why && a->space != SP_LOCAL && !a->taxes && a->nrep == 1;
	if (a->g && !a->taxes && a->nrep == 1) {
		a->linear = true;
		a->off = a->g->off[AX_M];
		a->stride = xalloc(sizeof(int64_t) * (size_t)(b->ndim + 1));
		for (int d = 0; d < b->ndim; d++) {
			int wide = 0;
			for (int k = a->dims[d]; k < a->dims[d + 1]; k++) {
				const Iter *it = &a->g->shard[k];
				if (it->extent == 1)
					continue;
				wide++;
				a->stride[d] = it->axis == AX_M ? it->stride : 0;
				if (it->axis != AX_M)
					a->linear = false;
			}
			if (wide > 1)
				a->linear = false;
		}
	}
	return a;
}

bool emu_coord(const Acc *a, const int64_t *idx, int64_t out[AX_COUNT])
{
	const Buffer *b = a->b;
	if (!a->g) {
		int64_t flat = 0;
		for (int d = 0; d < b->ndim; d++)
			if (!mul_ok(flat, b->shape[d], &flat) || !add_ok(flat, idx[d], &flat))
				return false;
		return layout_apply(a->l, flat, out);
	}
	int64_t c[4 * LAYOUT_MAX_ITERS];
	if (a->g->nshard > 4 * LAYOUT_MAX_ITERS)
		return false;
	for (int d = 0; d < b->ndim; d++) {
		int64_t x = idx[d];
		for (int i = a->dims[d + 1] - 1; i >= a->dims[d]; i--) {
			int64_t e = a->g->shard[i].extent;
			c[i] = i == a->dims[d] ? x : x % e;
			x = i == a->dims[d] ? 0 : x / e;
		}
		if (x != 0)
			return false;
	}
	return layout_apply_iters(a->g, c, out);
}

/* The storage offset of element idx of a memory buffer without replicas or
 * thread axes. */
bool emu_offset(const Acc *a, const int64_t *idx, int64_t *m)
{
	if (a->linear) {
		int64_t o = a->off;
		for (int d = 0; d < a->b->ndim; d++)
			o += idx[d] * a->stride[d];
		*m = layout_swizzle(a->l, o);
		return true;
	}
	int64_t c[AX_COUNT];
	if (!emu_coord(a, idx, c))
		return false;
	*m = c[AX_M];
	return true;
}

/* ---- who holds a register ---------------------------------------------------------------- */

int emu_owners(const Acc *a, const int64_t c[AX_COUNT], const int64_t cb[3], int first, int n, int nthreads,
               int *out, int max)
{
	unsigned u = a->taxes;
	for (int x = AX_CBX; x <= AX_CBZ; x++)
		if ((u & (1u << x)) && c[x] != cb[x - AX_CBX])
			return 0; /* held by another CTA of the cluster */
	for (int x = 0; x < AX_COUNT; x++)
		if ((u & (1u << x)) && axis_of_thread(x) && (c[x] < 0 || (axis_mod(x) && c[x] >= axis_count(x, axis_mod(x)))))
			return 0;
	int k = 0, last = first + n - 1 < nthreads - 1 ? first + n - 1 : nthreads - 1;
	for (int64_t t = first; t <= last && k < max; t++) {
		t = axes_thread(u, c, t, last);
		if (t < 0)
			break;
		out[k++] = (int)t;
	}
	return k;
}
