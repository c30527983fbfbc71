/* Where a buffer's elements live: the storage offset of a logical index
 * (numbers for the emulator, expressions for lowering and the backend), the
 * storage each buffer needs, and the place of each shared buffer in the
 * CTA's shared memory. The backend and the emulator both use these, so the
 * GPU and the CPU agree on every address. */
#include <string.h>

#include "ir.h"


Buffer *buffer_root(Buffer *b)
{
	while (b->base)
		b = b->base;
	return b;
}

int64_t buffer_storage(const Buffer *b)
{
	int64_t n = 1;
	/* the span on the memory axis m, which layout_storage keeps as it is
	 * (it drops only the thread axes): read off the layout, not a copy */
	const Layout *s = buffer_layout(b);
	if (b->scope == SC_TMEM || !layout_span(s, AX_M, &n))
		return 0;
	/* a swizzle permutes within aligned blocks: round up to whole blocks */
	if (s->swizzled) {
		int64_t block = (int64_t)1 << (s->swz_m + s->swz_b + s->swz_s);
		n = (n + block - 1) / block * block;
	}
	return n;
}

Expr *buffer_offset_expr(const Buffer *b, Expr **idx, const char **why)
{
	const Layout *l = buffer_layout(b);
	int dims[LAYOUT_MAX_ITERS + 1];
	Layout *g = layout_group(l, b->shape, b->ndim, dims, why);
	if (!g)
		return NULL;
	Expr *sum = ex_int(g->off[AX_M]);
	for (int d = 0; d < b->ndim; d++) {
		int64_t inner = 1;
		for (int k = dims[d + 1] - 1; k >= dims[d]; k--) {
			const Iter *it = &g->shard[k];
			if (it->extent > 1 && axes[it->axis].kind == AXK_THREAD) {
				*why = xprintf("'%s' is spread over threads (axis %s); index its per-thread storage instead",
				               b->name, axes[it->axis].name);
				return NULL;
			}
			if (it->extent > 1 && it->axis == AX_M) {
				Expr *c = ex_div(idx[d], inner);
				if (k != dims[d])
					c = ex_mod(c, it->extent);
				sum = ex_add(sum, ex_mul(c, ex_int(it->stride)));
			}
			inner *= it->extent;
		}
	}
	return ex_swizzle(l, sum);
}

/* Sums that saturate at INT64_MAX: a hostile shape must not wrap around
 * into a size that looks small. */
static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;
	return add_ok(a, b, &r) ? r : INT64_MAX;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
	int64_t r;
	return mul_ok(a, b, &r) ? r : INT64_MAX;
}

static int64_t round_up(int64_t x, int64_t align) { return sat_mul((sat_add(x, align - 1)) / align, align); }

/* The byte alignment of a shared root's start, per buffer of f: 1024 when
 * it or a view of it is swizzled (the hardware swizzles absolute
 * addresses), else its align= or 16 (the widest vector access). */
static int64_t *smem_aligns(const Func *f)
{
	int64_t *al = xalloc(sizeof(int64_t) * ((size_t)f->nbufs + 1));
	for (int i = 0; i < f->nbufs; i++)
		if (f->bufs[i]->layout && f->bufs[i]->layout->swizzled)
			buffer_root(f->bufs[i])->swizzled_root = true;
	for (int i = 0; i < f->nbufs; i++) {
		Buffer *r = buffer_root(f->bufs[i]);
		al[i] = r->swizzled_root ? 1024 : r->align > 16 ? r->align : 16;
	}
	return al;
}

int64_t smem_plan(Func *f)
{
	int64_t top = 0;
	int64_t *al = smem_aligns(f);
	for (int i = 0; i < f->nbufs; i++) {
		Buffer *b = f->bufs[i];
		if (b->base || !(scopes[b->scope].flags & SCF_SHARED))
			continue;
		top = round_up(top, al[i]);
		b->smem_off = top;
		top = sat_add(top, sat_mul(buffer_storage(b), dtype_bytes(b->dtype)));
	}
	for (int i = 0; i < f->nbufs; i++)
		if (f->bufs[i]->base && (scopes[f->bufs[i]->scope].flags & SCF_SHARED))
			f->bufs[i]->smem_off = buffer_root(f->bufs[i])->smem_off;
	return top;
}

/* A launch's dynamic shared memory starts only 16-byte aligned: a buffer
 * that needs more has the kernel round its base up to 1024 bytes, in the
 * 1024 bytes more it asks for. */
bool smem_rounds_base(Func *f)
{
	int64_t *al = smem_aligns(f);
	for (int i = 0; i < f->nbufs; i++)
		if ((scopes[f->bufs[i]->scope].flags & SCF_SHARED) && al[i] > 16)
			return true;
	return false;
}

int64_t smem_bytes(Func *f)
{
	int64_t n = smem_plan(f);
	if (smem_rounds_base(f))
		n = sat_add(n, 1024);
	return n > f->dyn_smem ? n : f->dyn_smem; /* T.attr may ask for more */
}

int64_t local_plan(Func *f)
{
	int64_t top = 0;
	for (int i = 0; i < f->nbufs; i++) {
		Buffer *b = f->bufs[i];
		if (b->base || b->scope != SC_LOCAL)
			continue;
		top = round_up(top, b->align > 16 ? b->align : 16);
		b->local_off = top;
		top = sat_add(top, sat_mul(buffer_storage(b), dtype_bytes(b->dtype)));
	}
	return round_up(top, 16);
}
