/* txc-layout: who owns which element of a layout. For every logical element
 * it shows the thread and register, the tensor-memory lane and column, or
 * the address that holds it: as a text grid, an SVG picture, the owners of
 * one element, or the steps of apply for one element (doc/txc-layout.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

#define KERNEL "\n@T.prim_func\ndef k():\n    T.device_entry()\n"
#define MAX_DIMS 16
#define MAX_CELLS (1 << 18) /* elements times replicas, for the grid */
#define MAX_PICTURE (1 << 16)
#define MAX_LEGEND 256

enum { BY_THREAD, BY_WARP, BY_LANE };

typedef struct View {
	const Layout *l;
	Layout *plain;        /* l without its swizzle: replicas add before it */
	int64_t shape[MAX_DIMS];
	int ndim;
	int64_t size, nrep, rows, cols;
	int ax[AX_COUNT];     /* the axes shown: thread axes as they appear, then memory */
	int lab[AX_COUNT];    /* the same, thread axes coarse to fine, for labels */
	int nax, nthr;
	bool tmem;
	int dtype;
} View;

/* Letters of the thread axes in a label such as w1.l5 (several thread axes). */
static const char *const abbr[AX_COUNT] = {
	[AX_TX] = "tx", [AX_WARPID] = "w", [AX_LANEID] = "l", [AX_WGID] = "wg", [AX_TIDINWG] = "t",
	[AX_WIDINWG] = "wi", [AX_CBX] = "cx", [AX_CBY] = "cy", [AX_CBZ] = "cz",
};
static const int coarse_to_fine[] = {
	AX_CBZ, AX_CBY, AX_CBX, AX_WGID, AX_WARPID, AX_WIDINWG, AX_TX, AX_TIDINWG, AX_LANEID,
};

__attribute__((format(printf, 1, 2))) static int error(const char *fmt, ...)
{
	va_list ap;
	fputs("txc-layout: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* "128,64" into v; false on anything but integers >= min separated by commas. */
static bool parse_ints(const char *s, int64_t *v, int *n, int64_t min)
{
	for (*n = 0;; s++) {
		while (*s == ' ')
			s++;
		if (*n == MAX_DIMS || *s < '0' || *s > '9')
			return false;
		char *end;
		errno = 0;
		long long x = strtoll(s, &end, 10);
		if (errno || x < min)
			return false;
		v[(*n)++] = x;
		s = end;
		while (*s == ' ')
			s++;
		if (!*s)
			return true;
		if (*s != ',')
			return false;
	}
}

static void put_tuple(Buf *b, const int64_t *v, int n)
{
	bputc(b, '(');
	for (int i = 0; i < n; i++)
		bprintf(b, "%s%lld", i ? ", " : "", (long long)v[i]);
	bputs(b, n == 1 ? ",)" : ")");
}

/* Appends s as lines of at most width columns broken at spaces (a longer
 * word is cut); continuation lines are indented by `indent`. */
static void wrap(Buf *b, const char *s, int width, int indent)
{
	int col = 0;
	bool fresh = true;
	for (; *s == ' '; s++, col++)
		bputc(b, ' ');
	while (*s) {
		int n = (int)strcspn(s, " ");
		while (!strncmp(s + n, " @ ", 3)) /* keep "4 @ laneid" on one line */
			n += 3 + (int)strcspn(s + n + 3, " ");
		if (!fresh && col + 1 + n > width) {
			bprintf(b, "\n%*s", indent, "");
			col = indent, fresh = true;
		}
		if (!fresh)
			bputc(b, ' '), col++;
		while (col + n > width) {
			int k = width - col;
			bprintf(b, "%.*s\n%*s", k, s, indent, "");
			s += k, n -= k, col = indent;
		}
		bprintf(b, "%.*s", n, s);
		col += n, fresh = false;
		for (s += n; *s == ' '; s++)
			;
	}
	bputc(b, '\n');
}

/* ---- what the program reads ------------------------------------------------ */

/* A Triton layout (NVMMASharedLayout, TensorMemoryLayout) takes the shape
 * and dtype of a buffer: here --shape and --dtype (default: the element
 * width of an NVMMASharedLayout, float32 for tensor memory). */
static const Layout *triton_for_shape(Diag *d, Pos p, const Value *v, const int64_t *shape, int ndim, int *dt,
                                      bool dt_given)
{
	if (!ndim) {
		error_at(d, p, "a Triton layout takes its shape from its buffer: give it with --shape");
		return NULL;
	}
	if (!dt_given && v->tl->kind == IN_NVMMA_SHARED)
		*dt = v->tl->bits == 8 ? DT_UINT8 : v->tl->bits == 16 ? DT_FLOAT16 : v->tl->bits == 64 ? DT_FLOAT64 : DT_FLOAT32;
	Layout *l = layout_new();
	Pos at;
	const char *why = triton_layout(l, v->tl, shape, ndim, *dt, &at);
	if (why) {
		error_at(d, at, "%s", why);
		return NULL;
	}
	return l;
}

static const Layout *eval_layout(const char *expr, const int64_t *shape, int ndim, int *dt, bool dt_given)
{
	Src *src = xalloc(sizeof *src);
	size_t n = strlen(expr);
	while (n && (expr[n - 1] == '\n' || expr[n - 1] == ' ' || expr[n - 1] == '\t' || expr[n - 1] == '\r'))
		n--;
	src->name = "<layout>";
	src->text = xprintf("L = %.*s\n%s", (int)n, expr, KERNEL);
	src->len = strlen(src->text);
	Diag d;
	diag_init(&d, stderr);
	Module *m = parse_module(src, &d);
	if (!m || !verify_module(m, &d))
		return NULL;
	Value *v = module_value(m, "L");
	if (v && v->kind == V_LAYOUT && !v->i)
		return v->layout;
	Pos p = { .place = new_place(src, NULL), .line = 1, .col = 5, .off = 4 };
	if (m->nbody && m->body[0]->value)
		p = expr_start(m->body[0]->value);
	if (v && v->kind == V_TLAYOUT)
		return triton_for_shape(&d, p, v, shape, ndim, dt, dt_given);
	if (v && v->kind == V_LAYOUT)
		error_at(&d, p, "R[...] alone has no logical shape: add it to an S[...]");
	else
		error_at(&d, p, "this is %s, not a layout", v ? value_kind_name(v) : "nothing");
	return NULL;
}

static Buffer *find_buffer(Module *m, const char *file, const char *name, const char *kernel)
{
	Buffer *found = NULL;
	const char *in = NULL;
	bool kernel_seen = false;
	for (int i = 0; i < m->nbody; i++) {
		Func *f = m->body[i]->kind == S_FUNC ? m->body[i]->func : NULL;
		if (!f || (kernel && strcmp(f->name, kernel) != 0))
			continue;
		kernel_seen = true;
		for (int j = 0; j < f->nbufs; j++) {
			if (strcmp(f->bufs[j]->name, name) != 0)
				continue;
			if (found) {
				error("%s: buffer '%s' is in kernels '%s' and '%s': pick one with --kernel", file, name, in, f->name);
				return NULL;
			}
			found = f->bufs[j], in = f->name;
			break;
		}
	}
	if (kernel && !kernel_seen)
		error("%s: no kernel '%s'", file, kernel);
	else if (!found)
		error("%s: no buffer '%s'%s%s%s", file, name, kernel ? " in kernel '" : "", kernel ? kernel : "", kernel ? "'" : "");
	return found;
}

/* The axes a cell shows: thread axes in the order the canonical layout
 * names them; then TLane, TCol and m where used (m alone if none is). */
static void pick_axes(View *v)
{
	Layout *c = layout_canonical(v->l);
	bool used[AX_COUNT] = { false };
	int seen[AX_COUNT], n = 0;
	for (int i = 0; i < c->nshard + c->nrep; i++) {
		int a = i < c->nshard ? c->shard[i].axis : c->rep[i - c->nshard].axis;
		if (!used[a])
			used[a] = true, seen[n++] = a;
	}
	for (int a = 0; a < AX_COUNT; a++)
		if (c->off[a] && !used[a])
			used[a] = true, seen[n++] = a;
	for (int i = 0; i < n; i++)
		if (axes[seen[i]].kind == AXK_THREAD)
			v->ax[v->nax++] = seen[i];
	v->nthr = v->nax;
	for (size_t i = 0, k = 0; i < sizeof coarse_to_fine / sizeof *coarse_to_fine; i++)
		if (used[coarse_to_fine[i]])
			v->lab[k++] = coarse_to_fine[i];
	v->tmem = used[AX_TLANE] || used[AX_TCOL];
	static const int mem[] = { AX_TLANE, AX_TCOL, AX_M };
	for (int i = 0; i < 3; i++)
		if (used[mem[i]] || (i == 2 && v->nax == v->nthr))
			v->lab[v->nax] = mem[i], v->ax[v->nax++] = mem[i];
}

static int setup(View *v, const Layout *l, const int64_t *shape, int ndim)
{
	v->l = l;
	v->plain = layout_copy(l);
	v->plain->swizzled = false;
	int64_t span;
	if (!layout_size(l, &v->size))
		return error("the layout's size overflows 64 bits");
	for (int a = 0; a < AX_COUNT; a++)
		if (!layout_span(l, a, &span))
			return error("the layout's coordinates on %s overflow 64 bits", axes[a].name);
	v->nrep = 1;
	for (int i = 0; i < l->nrep; i++)
		if (!mul_ok(v->nrep, l->rep[i].extent, &v->nrep) || v->nrep > MAX_CELLS)
			return error("the layout has more than %d replica combinations", MAX_CELLS);
	if (ndim == 0) {
		if (l->nshard < 1 || l->nshard > 2)
			return error("the layout's shard has %d iters: give the logical shape with --shape", l->nshard);
		v->shape[ndim++] = l->nshard == 1 ? 1 : l->shard[0].extent;
		v->shape[ndim++] = l->shard[l->nshard - 1].extent;
	} else {
		memcpy(v->shape, shape, sizeof *shape * (size_t)ndim);
	}
	v->ndim = ndim;
	int64_t n = 1;
	for (int d = 0; d < ndim; d++)
		if (!mul_ok(n, v->shape[d], &n))
			return error("the shape's size overflows 64 bits");
	if (n != v->size) {
		Buf b = { 0 };
		put_tuple(&b, v->shape, ndim);
		return error("the shape %s has %lld elements but the layout has %lld", b.s, (long long)n,
		             (long long)v->size);
	}
	v->cols = v->shape[ndim - 1];
	v->rows = v->size / v->cols;
	pick_axes(v);
	return 0;
}

/* ---- owners ---------------------------------------------------------------- */

static void unflatten(const View *v, int64_t flat, int64_t *coord)
{
	for (int d = v->ndim - 1; d >= 0; d--)
		coord[d] = flat % v->shape[d], flat /= v->shape[d];
}

/* Replica r of the owner of the element at coord. The spans were checked,
 * so nothing here overflows. */
static void owner(const View *v, const int64_t *coord, int64_t r, int64_t o[AX_COUNT])
{
	int64_t rep[AX_COUNT] = { 0 };
	if (!layout_apply_coord(v->plain, v->shape, v->ndim, coord, o))
		die("txc-layout: apply overflowed within the checked spans");
	layout_replica(v->l, r, rep);
	for (int a = 0; a < AX_COUNT; a++)
		o[a] += rep[a];
	o[AX_M] = layout_swizzle(v->l, o[AX_M]);
}

static void owner_at(const View *v, int64_t flat, int64_t r, int64_t o[AX_COUNT])
{
	int64_t coord[MAX_DIMS];
	unflatten(v, flat, coord);
	owner(v, coord, r, o);
}

/* The label of an owner: T5:3 (one thread axis), w1.l5:3 (several), 127:223
 * (tensor memory), 72 (memory); the thread part alone without mem. With
 * names, the pattern: T<laneid>:<m>. */
static void label(Buf *b, const View *v, const int64_t *o, bool names, bool mem)
{
	for (int i = 0; i < v->nthr; i++) {
		int a = v->lab[i];
		const char *pre = v->nthr == 1 ? "T" : abbr[a];
		if (names)
			bprintf(b, "%s%s<%s>", i ? "." : "", pre, axes[a].name);
		else
			bprintf(b, "%s%s%lld", i ? "." : "", pre, (long long)o[a]);
	}
	for (int i = v->nthr; mem && i < v->nax; i++) {
		const char *sep = i > 0 ? ":" : "";
		if (names)
			bprintf(b, "%s<%s>", sep, axes[v->lab[i]].name);
		else
			bprintf(b, "%s%lld", sep, (long long)o[v->lab[i]]);
	}
}

/* The label functions below build in b, emptied first, so that a loop over
 * every element reuses one buffer instead of filling the arena. */
static const char *empty(Buf *b)
{
	b->n = 0;
	if (b->s)
		b->s[0] = 0;
	return b->s ? b->s : "";
}

static const char *cell_label(Buf *b, const View *v, const int64_t *o, bool shared)
{
	empty(b);
	label(b, v, o, false, true);
	if (shared)
		bputc(b, '+');
	return b->s;
}

/* Whether the element has owners other than its replica 0 (in o0). */
static bool shared_cell(const View *v, int64_t flat, const int64_t *o0)
{
	int64_t o[AX_COUNT];
	for (int64_t r = 1; r < v->nrep; r++) {
		owner_at(v, flat, r, o);
		if (memcmp(o, o0, sizeof o) != 0)
			return true;
	}
	return false;
}

static const char *row_label(Buf *b, const View *v, int64_t r)
{
	int64_t coord[MAX_DIMS];
	unflatten(v, r * v->cols, coord);
	empty(b);
	for (int d = 0; d + 1 < v->ndim; d++)
		bprintf(b, "%s%lld", d ? "," : "", (long long)coord[d]);
	return b->s ? b->s : "";
}

/* ---- the text grid --------------------------------------------------------- */

static void header(Buf *b, const View *v, int width, bool any_shared)
{
	Buf t = { 0 }, pat = { 0 };
	bprintf(&t, "layout: %s", layout_str(layout_canonical(v->l)));
	wrap(b, t.s, width, 4);
	empty(&t);
	bputs(&t, "shape: ");
	put_tuple(&t, v->shape, v->ndim);
	bprintf(&t, ", %lld element%s in %lld row%s of %lld", (long long)v->size, v->size == 1 ? "" : "s",
	        (long long)v->rows, v->rows == 1 ? "" : "s", (long long)v->cols);
	wrap(b, t.s, width, 4);
	label(&pat, v, NULL, true, true);
	empty(&t);
	if (v->nthr)
		bprintf(&t, "cell: %s, the thread holding the element and its register", pat.s);
	else if (v->tmem)
		bprintf(&t, "cell: %s, the tensor-memory lane and column of the element", pat.s);
	else
		bprintf(&t, "cell: %s, the element's offset in memory%s", pat.s, v->l->swizzled ? " after the swizzle" : "");
	wrap(b, t.s, width, 4);
	if (any_shared)
		wrap(b, "+: other threads hold the element too (replicas); --apply I,J lists all of them", width, 4);
	if (v->tmem && dtypes[v->dtype].bits < 32) {
		empty(&t);
		bprintf(&t, "note: TCol counts %s elements; a 32-bit column holds %d of them", dtypes[v->dtype].name,
		        32 / dtypes[v->dtype].bits);
		wrap(b, t.s, width, 4);
	}
}

static void grid_row(Buf *b, const View *v, int64_t r, int rw, int cw, int64_t first)
{
	int64_t o[AX_COUNT];
	Buf t = { 0 };
	bprintf(b, "%*s", rw, row_label(&t, v, r));
	for (int64_t c = 0; c < v->cols; c++) {
		if (c == first && c < v->cols - 1) {
			bprintf(b, " %*s", cw, "..");
			c = v->cols - 1;
		}
		int64_t flat = r * v->cols + c;
		owner_at(v, flat, 0, o);
		bprintf(b, " %*s", cw, cell_label(&t, v, o, shared_cell(v, flat, o)));
	}
	bputc(b, '\n');
}

static char *grid(const View *v, int width)
{
	size_t nax = (size_t)v->nax, per = (size_t)(v->cols * v->nrep) * nax;
	int64_t *delta = xalloc(sizeof *delta * nax * (size_t)v->rows);
	int64_t *cur = xalloc(sizeof *cur * per), *prev = xalloc(sizeof *prev * per), o[AX_COUNT];
	bool *uniform = xalloc(sizeof *uniform * (size_t)v->rows);
	bool any_shared = false;
	Buf t = { 0 };
	int rw = (int)strlen(row_label(&t, v, v->rows - 1)), cw = 2;
	for (int64_t c = v->cols - 1; c >= 100; c /= 10)
		cw++;
	/* Row r is uniform when every owner moved by the same delta[r] from row r-1. */
	for (int64_t r = 0; r < v->rows; r++) {
		for (int64_t c = 0; c < v->cols; c++) {
			int64_t *e = cur + (size_t)(c * v->nrep) * nax;
			int len = 0;
			bool sh = false;
			for (int64_t k = 0; k < v->nrep; k++) {
				owner_at(v, r * v->cols + c, k, o);
				for (size_t i = 0; i < nax; i++)
					e[(size_t)k * nax + i] = o[v->ax[i]];
				if (k == 0)
					len = (int)strlen(cell_label(&t, v, o, false));
				else
					sh |= memcmp(e, e + (size_t)k * nax, sizeof *e * nax) != 0;
			}
			len += sh;
			cw = len > cw ? len : cw;
			any_shared |= sh;
		}
		int64_t *d = delta + (size_t)r * nax;
		uniform[r] = r > 0;
		for (size_t j = 0; j < per && uniform[r]; j++) {
			if (j < nax)
				d[j] = cur[j] - prev[j];
			uniform[r] = cur[j] - prev[j] == d[j % nax];
		}
		int64_t *swap = prev;
		prev = cur, cur = swap;
	}
	Buf b = { 0 };
	header(&b, v, width, any_shared);
	int64_t fit = (width - rw) / (cw + 1), first = v->cols;
	if (v->cols > fit)
		first = fit - 2 > 0 ? fit - 2 : 0;
	bprintf(&b, "\n%*s", rw, "");
	for (int64_t c = 0; c < v->cols; c++) {
		if (c == first && c < v->cols - 1) {
			bprintf(&b, " %*s", cw, "..");
			c = v->cols - 1;
		}
		bprintf(&b, " %*lld", cw, (long long)c);
	}
	bputc(&b, '\n');
	/* Runs of rows that move by one delta: the first two, a line, the last. */
	for (int64_t a = 0; a < v->rows;) {
		int64_t z = a;
		const int64_t *d = delta + (size_t)(a + 1) * nax;
		if (a + 1 < v->rows && uniform[a + 1])
			for (z = a + 1; z + 1 < v->rows && uniform[z + 1] &&
			                memcmp(delta + (size_t)(z + 1) * nax, d, sizeof *d * nax) == 0;)
				z++;
		if (z - a - 2 < 2) {
			grid_row(&b, v, a++, rw, cw, first);
			continue;
		}
		grid_row(&b, v, a, rw, cw, first);
		grid_row(&b, v, a + 1, rw, cw, first);
		Buf line = { 0 };
		bprintf(&line, "   ... rows %s-", row_label(&t, v, a + 2));
		bprintf(&line, "%s: same as row ", row_label(&t, v, z - 1));
		bprintf(&line, "%s", row_label(&t, v, a + 1));
		const char *sep = " with";
		for (size_t i = 0; i < nax; i++)
			if (d[i]) {
				bprintf(&line, "%s %s %+lld", sep, axes[v->ax[i]].name, (long long)d[i]);
				sep = ",";
			}
		bputs(&line, *sep == ',' ? " per row ..." : " ...");
		wrap(&b, line.s, width, 7);
		grid_row(&b, v, z, rw, cw, first);
		a = z + 1;
	}
	/* Cells too wide for even one column: cut, so the width always holds. */
	Buf cut = { 0 };
	for (char *s = b.s; *s;) {
		size_t n = strcspn(s, "\n");
		bprintf(&cut, "%.*s\n", (int)(n < (size_t)width ? n : (size_t)width), s);
		s += n + (s[n] == '\n');
	}
	return cut.s;
}

/* ---- one element: --apply and --explain ------------------------------------ */

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void apply_line(Buf *b, const View *v, const int64_t *coord)
{
	int64_t *vals = xalloc(sizeof *vals * (size_t)v->nrep), o[AX_COUNT];
	int multi = 0;
	put_tuple(b, coord, v->ndim);
	bputs(b, " ->");
	for (int i = 0; i < v->nax; i++) {
		int64_t n = 0;
		for (int64_t r = 0; r < v->nrep; r++) {
			owner(v, coord, r, o);
			vals[r] = o[v->ax[i]];
		}
		qsort(vals, (size_t)v->nrep, sizeof *vals, cmp64);
		for (int64_t r = 0; r < v->nrep; r++)
			if (r == 0 || vals[r] != vals[n - 1])
				vals[n++] = vals[r];
		bprintf(b, "%s %s %s", i ? "," : "", axes[v->ax[i]].name, n > 1 ? "{" : "");
		for (int64_t k = 0; k < n; k++)
			bprintf(b, "%s%lld", k ? ", " : "", (long long)vals[k]);
		bputs(b, n > 1 ? "}" : "");
		multi += n > 1;
	}
	bputc(b, '\n');
	if (multi < 2)
		return;
	/* Several axes vary: the sets above lose which values go together. */
	Buf t = { 0 };
	bputs(b, "owners:");
	for (int64_t r = 0; r < v->nrep; r++) {
		owner(v, coord, r, o);
		bprintf(b, " %s", cell_label(&t, v, o, false));
	}
	bputc(b, '\n');
}

static void put_axes(Buf *b, const View *v, const int64_t *o)
{
	for (int i = 0; i < v->nax; i++)
		bprintf(b, "%s%s %lld", i ? ", " : "", axes[v->ax[i]].name, (long long)o[v->ax[i]]);
}

static void put_stride(Buf *b, int64_t stride, int axis)
{
	if (axis == AX_M)
		bprintf(b, "%lld", (long long)stride);
	else
		bprintf(b, "%lld @ %s", (long long)stride, axes[axis].name);
}

/* The steps of apply on the canonical layout, checked against the library. */
static void explain(Buf *b, const View *v, const int64_t *coord)
{
	Layout *c = layout_canonical(v->l);
	char *orig = layout_str(v->l), *canon = layout_str(c);
	if (strcmp(orig, canon) != 0)
		bprintf(b, "layout:    %s\n", orig);
	bprintf(b, "canonical: %s\n", canon);
	int64_t flat = 0, sum[AX_COUNT] = { 0 }, o[AX_COUNT];
	for (int d = 0; d < v->ndim; d++)
		flat = flat * v->shape[d] + coord[d];
	bputs(b, "element ");
	put_tuple(b, coord, v->ndim);
	bputs(b, " of shape ");
	put_tuple(b, v->shape, v->ndim);
	bprintf(b, ": flat index %lld\n", (long long)flat);
	bputs(b, "split over the shard, innermost iter first:\n");
	int64_t rest = flat;
	for (int i = c->nshard - 1; i >= 0; i--) {
		const Iter *it = &c->shard[i];
		int64_t part = i ? rest % it->extent : rest, t;
		bprintf(b, "  iter %d (extent %lld, stride ", i, (long long)it->extent);
		put_stride(b, it->stride, it->axis);
		if (i)
			bprintf(b, "): %lld %% %lld = %lld", (long long)rest, (long long)it->extent, (long long)part);
		else
			bprintf(b, "): %lld (outermost, not reduced)", (long long)part);
		if (!mul_ok(part, it->stride, &t) || !add_ok(sum[it->axis], t, &sum[it->axis]))
			die("txc-layout: explain overflowed within the checked spans");
		bprintf(b, " -> %s += %lld\n", axes[it->axis].name, (long long)t);
		rest /= it->extent;
	}
	bputs(b, "offsets:");
	bool none = true;
	for (int a = 0; a < AX_COUNT; a++)
		if (c->off[a]) {
			bprintf(b, "%s %s += %lld", none ? "" : ",", axes[a].name, (long long)c->off[a]);
			sum[a] += c->off[a], none = false;
		}
	bputs(b, none ? " none\nsum: " : "\nsum: ");
	put_axes(b, v, sum);
	bputc(b, '\n');
	for (int64_t r = 0; r < v->nrep; r++) {
		int64_t rep[AX_COUNT] = { 0 }, all[AX_COUNT];
		layout_replica(v->l, r, rep);
		for (int a = 0; a < AX_COUNT; a++)
			all[a] = sum[a] + rep[a];
		int64_t m = all[AX_M];
		all[AX_M] = layout_swizzle(v->l, m);
		owner(v, coord, r, o);
		if (memcmp(o, all, sizeof o) != 0)
			die("txc-layout: the steps disagree with layout_apply_coord");
		if (r >= 16) {
			if (r == 16)
				bprintf(b, "... %lld more replicas\n", (long long)(v->nrep - 16));
			continue;
		}
		if (v->nrep > 1) {
			bool added = false;
			bprintf(b, "replica %lld of %lld:", (long long)r, (long long)v->nrep);
			for (int a = 0; a < AX_COUNT; a++)
				if (rep[a]) {
					bprintf(b, "%s %s += %lld", added ? "," : "", axes[a].name, (long long)rep[a]);
					added = true;
				}
			int64_t pre = all[AX_M];
			all[AX_M] = m;
			bputs(b, added ? " -> " : " nothing added -> ");
			put_axes(b, v, all);
			bputs(b, v->l->swizzled ? " before the swizzle\n" : "\n");
			all[AX_M] = pre;
		}
		if (v->l->swizzled) {
			int M = v->l->swz_m, B = v->l->swz_b, S = v->l->swz_s;
			int64_t x = m >> M, y = x ^ ((x >> S) & ((1 << B) - 1));
			bprintf(b, "swizzle (M %d, B %d, S %d): x = %lld >> %d = %lld; x ^ ((x >> %d) & %d) = %lld; "
			        "m = (%lld << %d) + %lld %% %d = %lld\n", M, B, S, (long long)m, M, (long long)x, S,
			        (1 << B) - 1, (long long)y, (long long)y, M, (long long)m, 1 << M, (long long)all[AX_M]);
		}
	}
	bputs(b, "result: ");
	apply_line(b, v, coord);
}

/* ---- the picture ------------------------------------------------------------ */

typedef struct Key { uint64_t key; int64_t flat; } Key;

static int cmp_key(const void *a, const void *b)
{
	const Key *x = a, *y = b;
	if (x->key != y->key)
		return x->key > y->key ? 1 : -1;
	return (x->flat > y->flat) - (x->flat < y->flat);
}

/* What a cell's colour says: the thread (threads numbered in the CTA), the
 * tensor-memory lane, or the 16-byte chunk of memory; warp and lane divide
 * it by 32. Unsigned, so that absurd layouts wrap instead of overflowing. */
static uint64_t color_key(const View *v, const int64_t *o, int by)
{
	uint64_t t;
	if (v->nthr) {
		uint64_t cta = (uint64_t)o[AX_CBX] + 64 * (uint64_t)o[AX_CBY] + 4096 * (uint64_t)o[AX_CBZ];
		/* each thread axis counts groups of axis_div(a) threads */
		t = cta << 32;
		for (int a = 0; a < AX_COUNT; a++)
			if (axis_of_thread(a))
				t += (uint64_t)o[a] * (uint64_t)axis_div(a);
	} else if (v->tmem) {
		t = (uint64_t)o[AX_TLANE];
	} else {
		t = (uint64_t)o[AX_M] * (uint64_t)dtype_bytes(v->dtype) / 16;
	}
	return by == BY_WARP ? t / ES_WARP_SIZE : by == BY_LANE ? t % ES_WARP_SIZE : t;
}

static char *legend_label(const View *v, const int64_t *o, uint64_t k, int by)
{
	Buf b = { 0 };
	unsigned long long x = k;
	if (v->nthr && by == BY_THREAD)
		label(&b, v, o, false, false);
	else if (v->nthr)
		bprintf(&b, "%s %llu", by == BY_WARP ? "warp" : "lane", x);
	else if (v->tmem && by == BY_THREAD)
		bprintf(&b, "TLane %llu", x);
	else if (v->tmem && by == BY_WARP)
		bprintf(&b, "TLane %llu-%llu", ES_WARP_SIZE * x, ES_WARP_SIZE * x + ES_WARP_SIZE - 1);
	else if (v->tmem)
		bprintf(&b, "TLane %% %d = %llu", ES_WARP_SIZE, x);
	else
		bprintf(&b, "bytes %llu-%llu", 16 * x, 16 * x + 15);
	return b.s;
}

/* Hue by golden-ratio steps (in 32-bit fixed point), so that neighbouring
 * keys differ; h in [0, 6), one unit per 60 degrees. */
static double golden(uint64_t key)
{
	return (double)(uint32_t)(key * 2654435769u) / 4294967296.0 * 6;
}

/* HSL to RGB by hand (no libm): hue h, chroma C, m added to every channel. */
static unsigned hue_rgb(double h, double C, double m)
{
	int sector = (int)h % 6;
	double f = h - (int)h, X = C * (sector % 2 ? 1 - f : f);
	double r[6] = { C, X, 0, 0, X, C }, g[6] = { X, C, C, X, 0, 0 }, bl[6] = { 0, 0, X, C, C, X };
	unsigned R = (unsigned)((r[sector] + m) * 255 + 0.5), G = (unsigned)((g[sector] + m) * 255 + 0.5),
	         B = (unsigned)((bl[sector] + m) * 255 + 0.5);
	return R << 16 | G << 8 | B;
}

/* One colour per key, light enough for black text. */
static unsigned rgb(uint64_t key)
{
	return hue_rgb(golden(key), 0.34, 0.78 - 0.34 / 2);
}

/* Thread (or tensor-memory lane) t: the hue of its warp t / 32 (golden-ratio
 * steps, so warps 0-3 are 0, 222, 85 and 307 degrees), the shade of its lane
 * t % 32, from lightness 0.62 (lane 0) to 0.88 (lane 31), saturation 0.8. */
static unsigned shade(uint64_t t)
{
	double l = 0.62 + 0.26 * (double)(t % ES_WARP_SIZE) / (ES_WARP_SIZE - 1);
	double C = (1 - (2 * l - 1)) * 0.8;
	return hue_rgb(golden(t / ES_WARP_SIZE), C, l - C / 2);
}

/* The colour of a cell whose key (color_key) is k. Coloured by thread, a
 * layout of threads or tensor-memory lanes gets a hue per warp and a shade
 * per lane. */
static unsigned cell_rgb(const View *v, uint64_t k, int by)
{
	return by == BY_THREAD && (v->nthr || v->tmem) ? shade(k) : rgb(k);
}

/* The text in a cell of the picture: T17 r3 (thread and register; w1.l5 r3
 * with several thread axes), or the TCol or the address; + when shared. */
static const char *cell_text(Buf *b, const View *v, const int64_t *o, bool shared)
{
	empty(b);
	if (v->nthr) {
		label(b, v, o, false, false);
		bprintf(b, " r%lld", (long long)o[AX_M]);
	} else {
		bprintf(b, "%lld", (long long)o[v->lab[v->nax - 1]]);
	}
	if (shared)
		bputc(b, '+');
	return b->s;
}

/* The legend of a picture coloured by warp hue and lane shade: a line per
 * warp, its name and a swatch per lane it has (keys sorted, so by warp). */
static void warp_legend(Buf *b, const Key *keys, int64_t nkeys, int64_t y0, bool tmem)
{
	int64_t line = -1;
	uint64_t warp = 0;
	for (int64_t i = 0; i < nkeys; i++) {
		uint64_t w = keys[i].key / ES_WARP_SIZE, lane = keys[i].key % ES_WARP_SIZE;
		bool fresh = i == 0 || w != warp;
		if (fresh && line + 1 == MAX_LEGEND)
			break;
		int64_t y = y0 + 14 * (line + fresh);
		if (fresh) {
			warp = w, line++;
			unsigned long long lo = w * ES_WARP_SIZE, hi = lo + ES_WARP_SIZE - 1;
			if (tmem)
				bprintf(b, "<text x=\"8\" y=\"%lld\">lanes %llu-%llu</text>\n", (long long)y + 8, lo, hi);
			else
				bprintf(b, "<text x=\"8\" y=\"%lld\">warp %llu (T%llu-T%llu)</text>\n", (long long)y + 8,
				        (unsigned long long)w, lo, hi);
		}
		bprintf(b, "<rect x=\"%llu\" y=\"%lld\" width=\"8\" height=\"10\" fill=\"#%06x\"><title>%s %llu</title></rect>\n",
		        (unsigned long long)(150 + 9 * lane), (long long)y, shade(keys[i].key), tmem ? "lane" : "thread",
		        (unsigned long long)keys[i].key);
	}
}

/* An SVG picture's start: its size, a white page, the title's lines. */
static void svg_head(Buf *b, int64_t W, int64_t H, const char *title)
{
	bprintf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lld\" height=\"%lld\" "
	        "viewBox=\"0 0 %lld %lld\" font-family=\"monospace\">\n", (long long)W, (long long)H,
	        (long long)W, (long long)H);
	bputs(b, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n<g font-size=\"10\">\n");
	for (int line = 0; *title; line++) {
		size_t n = strcspn(title, "\n");
		bprintf(b, "<text x=\"8\" y=\"%d\">%.*s</text>\n", 18 + 14 * line, (int)n, title);
		title += n + (title[n] == '\n');
	}
}

static char *svg(const View *v, int by)
{
	int64_t o[AX_COUNT];
	Key *keys = xalloc(sizeof *keys * (size_t)v->size);
	Buf t = { 0 }, tip = { 0 };
	int llen = 1, rlen = (int)strlen(row_label(&t, v, v->rows - 1));
	bool warps = v->nthr && by == BY_THREAD;
	for (int64_t f = 0; f < v->size; f++) {
		owner_at(v, f, 0, o);
		int n = (int)strlen(cell_text(&t, v, o, shared_cell(v, f, o)));
		llen = n > llen ? n : llen;
		keys[f] = (Key){ color_key(v, o, by), f };
	}
	int CW = 5 * llen + 6 > 20 ? 5 * llen + 6 : 20, CH = 12;
	int64_t left = 12 + 5 * rlen, gridw = left + v->cols * CW + 8;
	int64_t W = gridw > 480 ? gridw : 480;
	Buf title = { 0 };
	wrap(&title, layout_str(layout_canonical(v->l)), (int)((W - 16) / 6), 0);
	empty(&t);
	bputs(&t, "shape ");
	put_tuple(&t, v->shape, v->ndim);
	bprintf(&t, "; cell: %s; colour: %s", v->nthr ? "thread and register (T17 r3)" : v->tmem ? "TCol" : "offset",
	        by == BY_WARP ? "warp" : by == BY_LANE ? "lane" : warps ? "a hue per warp, a shade per lane (lane 0 darkest)" :
	        v->tmem ? "TLane" : "16-byte chunk");
	wrap(&title, t.s, (int)((W - 16) / 6), 0);
	int ntitle = 0;
	for (size_t i = 0; i < title.n; i++)
		ntitle += title.s[i] == '\n';
	int64_t top = 8 + 14 * ntitle + 14, gridh = v->rows * CH;

	qsort(keys, (size_t)v->size, sizeof *keys, cmp_key);
	int64_t nkeys = 0;
	for (int64_t i = 0; i < v->size; i++)
		if (i == 0 || keys[i].key != keys[nkeys - 1].key)
			keys[nkeys++] = keys[i];
	int64_t shown = nkeys < MAX_LEGEND ? nkeys : MAX_LEGEND;
	char **names = xalloc(sizeof *names * (size_t)shown);
	int nlen = 1;
	for (int64_t i = 0; i < shown; i++) {
		owner_at(v, keys[i].flat, 0, o);
		names[i] = legend_label(v, o, keys[i].key, by);
		nlen = (int)strlen(names[i]) > nlen ? (int)strlen(names[i]) : nlen;
	}
	int64_t ew = 14 + 5 * nlen + 10, per = (W - 16) / ew > 0 ? (W - 16) / ew : 1;
	int64_t ly = top + gridh + 20, H = ly + (shown + per - 1) / per * 14 + (nkeys > shown ? 14 : 0) + 8;
	int64_t nwarps = 0;
	for (int64_t i = 0; i < nkeys; i++)
		nwarps += i == 0 || keys[i].key / ES_WARP_SIZE != keys[i - 1].key / ES_WARP_SIZE;
	if (warps)
		H = ly + 14 * ((nwarps < MAX_LEGEND ? nwarps : MAX_LEGEND) + 1 + (nwarps > MAX_LEGEND)) + 8;

	Buf b = { 0 };
	svg_head(&b, W, H, title.s);
	bputs(&b, "</g>\n<g font-size=\"8\" text-anchor=\"end\">\n");
	for (int64_t r = 0; r < v->rows; r++)
		bprintf(&b, "<text x=\"%lld\" y=\"%lld\">%s</text>\n", (long long)left - 4,
		        (long long)(top + r * CH + 9), row_label(&t, v, r));
	bputs(&b, "</g>\n<g font-size=\"8\" text-anchor=\"middle\">\n");
	int digits = 1;
	for (int64_t c = v->cols - 1; c >= 10; c /= 10)
		digits++;
	int step = 1;
	while (step * CW < 5 * digits + 4)
		step++;
	for (int64_t c = 0; c < v->cols; c += step)
		bprintf(&b, "<text x=\"%lld\" y=\"%lld\">%lld</text>\n", (long long)(left + c * CW + CW / 2),
		        (long long)top - 4, (long long)c);
	for (int64_t f = 0; f < v->size; f++) {
		int64_t coord[MAX_DIMS], x = left + f % v->cols * CW, y = top + f / v->cols * CH;
		unflatten(v, f, coord);
		int64_t o0[AX_COUNT];
		bool shared = false;
		empty(&tip);
		put_tuple(&tip, coord, v->ndim);
		for (int64_t k = 0; k < v->nrep; k++) {
			owner(v, coord, k, k ? o : o0);
			shared |= k && memcmp(o, o0, sizeof o) != 0;
			bprintf(&tip, "%s %s", k ? "," : ":", cell_label(&t, v, k ? o : o0, false));
		}
		bprintf(&b, "<rect x=\"%lld\" y=\"%lld\" width=\"%d\" height=\"%d\" fill=\"#%06x\"><title>%s</title></rect>"
		        "<text x=\"%lld\" y=\"%lld\">", (long long)x, (long long)y, CW - 1, CH - 1,
		        cell_rgb(v, color_key(v, o0, by), by), tip.s, (long long)(x + CW / 2), (long long)y + 9);
		bprintf(&b, "%s</text>\n", cell_text(&t, v, o0, shared));
	}
	bputs(&b, "</g>\n<g font-size=\"8\">\n");
	if (warps) {
		warp_legend(&b, keys, nkeys, ly, false);
		int64_t n = nwarps < MAX_LEGEND ? nwarps : MAX_LEGEND;
		if (nwarps > n)
			bprintf(&b, "<text x=\"8\" y=\"%lld\">... and %lld more warps</text>\n", (long long)(ly + 14 * n + 8),
			        (long long)(nwarps - n));
		bprintf(&b, "<text x=\"8\" y=\"%lld\">hue: the warp; shade: the lane (0 darkest, 31 lightest)</text>\n</g>\n</svg>\n",
		        (long long)(ly + 14 * (n + (nwarps > n)) + 8));
		return b.s;
	}
	for (int64_t i = 0; i < shown; i++) {
		int64_t x = 8 + i % per * ew, y = ly + i / per * 14;
		bprintf(&b, "<rect x=\"%lld\" y=\"%lld\" width=\"10\" height=\"10\" fill=\"#%06x\"/>"
		        "<text x=\"%lld\" y=\"%lld\">%s</text>\n", (long long)x, (long long)y, rgb(keys[i].key),
		        (long long)x + 14, (long long)y + 8, names[i]);
	}
	if (nkeys > shown)
		bprintf(&b, "<text x=\"8\" y=\"%lld\">... and %lld more colours</text>\n",
		        (long long)(ly + (shown + per - 1) / per * 14 + 8), (long long)(nkeys - shown));
	bputs(&b, "</g>\n</svg>\n");
	return b.s;
}

/* ---- the tensor-memory picture ---------------------------------------------- */

/* The element at coord, compact: (37,5). */
static const char *coord_text(Buf *b, const View *v, const int64_t *coord)
{
	empty(b);
	bputc(b, '(');
	for (int d = 0; d < v->ndim; d++)
		bprintf(b, "%s%lld", d ? "," : "", (long long)coord[d]);
	bputc(b, ')');
	return b->s;
}

/* Tensor memory as the hardware has it: a row per lane, a column per 32-bit
 * column (split into its 16- or 8-bit parts for narrower dtypes), each cell
 * labelled with the element it holds; heavy rules and labels mark the
 * lane quarters, one per warp of a warpgroup (warp w reaches lanes
 * 32 * (w % 4) to 32 * (w % 4) + 31). */
static char *svg_tmem(const View *v, int by)
{
	int bits = dtypes[v->dtype].bits, per = bits < 32 ? 32 / bits : 1;
	int64_t o[AX_COUNT], coord[MAX_DIMS], maxl = 0, maxc = 0;
	Buf t = { 0 }, tip = { 0 };
	int llen = 1;
	for (int64_t f = 0; f < v->size; f++)
		for (int64_t k = 0; k < v->nrep; k++) {
			owner_at(v, f, k, o);
			if (o[AX_TLANE] < 0 || o[AX_TCOL] < 0) {
				unflatten(v, f, coord);
				error("element %s is at lane %lld, column %lld: a picture of tensor memory needs both >= 0",
				      coord_text(&t, v, coord), (long long)o[AX_TLANE], (long long)o[AX_TCOL]);
				return NULL;
			}
			maxl = o[AX_TLANE] > maxl ? o[AX_TLANE] : maxl;
			maxc = o[AX_TCOL] > maxc ? o[AX_TCOL] : maxc;
		}
	if (maxl >= MAX_PICTURE || maxc >= MAX_PICTURE) {
		error("a picture of tensor memory shows at most %d cells; the layout reaches lane %lld, column %lld",
		      MAX_PICTURE, (long long)maxl, (long long)maxc);
		return NULL;
	}
	int64_t lanes = (maxl / ES_WARP_SIZE + 1) * ES_WARP_SIZE, cols = maxc / per + 1, row = cols * per;
	lanes = lanes < 128 ? 128 : lanes;
	if (lanes * row > MAX_PICTURE) {
		error("a picture of tensor memory shows at most %d cells; this one needs %lld lanes x %lld columns%s",
		      MAX_PICTURE, (long long)lanes, (long long)cols, per > 1 ? " x their parts" : "");
		return NULL;
	}
	int64_t *first = xalloc(sizeof *first * (size_t)(lanes * row));
	int64_t *count = xalloc(sizeof *count * (size_t)(lanes * row));
	for (int64_t f = 0; f < v->size; f++)
		for (int64_t k = 0; k < v->nrep; k++) {
			owner_at(v, f, k, o);
			int64_t s = o[AX_TLANE] * row + o[AX_TCOL];
			if (count[s]++ == 0)
				first[s] = f;
		}
	for (int64_t f = 0; f < v->size; f++) {
		unflatten(v, f, coord);
		int n = (int)strlen(coord_text(&t, v, coord)) + 1;
		llen = n > llen ? n : llen;
	}
	int CW = 5 * llen + 6 > 20 ? 5 * llen + 6 : 20, CH = 12, GAP = per > 1 ? 4 : 0;
	int rlen = snprintf(NULL, 0, "%lld", (long long)lanes - 1);
	int64_t left = 8 + 80 + 5 * rlen + 6, gw = per * CW + GAP, gridw = left + cols * gw + 8;
	int64_t W = gridw > 560 ? gridw : 560;
	Buf title = { 0 };
	wrap(&title, layout_str(layout_canonical(v->l)), (int)((W - 16) / 6), 0);
	empty(&t);
	bputs(&t, "shape ");
	put_tuple(&t, v->shape, v->ndim);
	bprintf(&t, ", %s; tensor memory: a row per lane, a column per 32-bit column%s; a cell: the element it holds",
	        dtypes[v->dtype].name, per == 2 ? " (lo: bits 0-15, hi: bits 16-31)" : per > 2 ? " (b0..: its bytes)" : "");
	wrap(&title, t.s, (int)((W - 16) / 6), 0);
	int ntitle = 0;
	for (size_t i = 0; i < title.n; i++)
		ntitle += title.s[i] == '\n';
	int64_t top = 8 + 14 * ntitle + (per > 1 ? 26 : 14), gridh = lanes * CH;
	int64_t ly = top + gridh + 20;

	Buf b = { 0 };
	int64_t nleg = by == BY_LANE ? ES_WARP_SIZE : lanes / ES_WARP_SIZE;
	int64_t H = ly + 14 * (nleg + 2 + (per > 1)) + 8;
	svg_head(&b, W, H, title.s);
	/* quarter labels, lane numbers, column numbers and their parts */
	for (int64_t q = 0; q < lanes / ES_WARP_SIZE; q++) {
		int64_t y = top + (q * ES_WARP_SIZE + ES_WARP_SIZE / 2) * CH;
		bprintf(&b, "<text x=\"8\" y=\"%lld\" class=\"quarter\">lanes %lld-%lld</text>\n", (long long)y - 2,
		        (long long)q * ES_WARP_SIZE, (long long)(q + 1) * ES_WARP_SIZE - 1);
		if (q < 4)
			bprintf(&b, "<text x=\"8\" y=\"%lld\">warp %% 4 = %lld</text>\n", (long long)y + 12, (long long)q);
	}
	bputs(&b, "</g>\n<g font-size=\"8\" text-anchor=\"end\">\n");
	for (int64_t l = 0; l < lanes; l++)
		bprintf(&b, "<text x=\"%lld\" y=\"%lld\">%lld</text>\n", (long long)left - 4, (long long)(top + l * CH + 9),
		        (long long)l);
	bputs(&b, "</g>\n<g font-size=\"8\" text-anchor=\"middle\">\n");
	for (int64_t c = 0; c < cols; c++) {
		int64_t x = left + c * gw;
		bprintf(&b, "<text x=\"%lld\" y=\"%lld\">%s %lld</text>\n", (long long)(x + per * CW / 2),
		        (long long)top - (per > 1 ? 16 : 4), per > 1 || bits <= 32 ? "col" : "TCol", (long long)c);
		for (int h = 0; per > 1 && h < per; h++)
			bprintf(&b, "<text x=\"%lld\" y=\"%lld\">%s%s</text>\n", (long long)(x + h * CW + CW / 2),
			        (long long)top - 4, per == 2 ? (h ? "hi" : "lo") : "b", per == 2 ? "" : (h == 0 ? "0" : h == 1 ? "1" : h == 2 ? "2" : "3"));
	}
	/* the cells */
	for (int64_t l = 0; l < lanes; l++)
		for (int64_t s = 0; s < row; s++) {
			int64_t c = s / per, h = s % per, x = left + c * gw + h * CW, y = top + l * CH, i = l * row + s;
			empty(&tip);
			bprintf(&tip, "lane %lld, column %lld", (long long)l, (long long)c);
			if (per > 1)
				bprintf(&tip, ", bits %lld-%lld", (long long)(h * bits), (long long)(h * bits + bits - 1));
			if (!count[i]) {
				bprintf(&b, "<rect x=\"%lld\" y=\"%lld\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"><title>%s: no element"
				        "</title></rect>\n", (long long)x, (long long)y, CW - 1, CH - 1, tip.s);
				continue;
			}
			unflatten(v, first[i], coord);
			bprintf(&tip, ": %s", coord_text(&t, v, coord));
			if (count[i] > 1)
				bprintf(&tip, " and %lld more elements", (long long)count[i] - 1);
			uint64_t key = by == BY_WARP ? (uint64_t)l / ES_WARP_SIZE : by == BY_LANE ? (uint64_t)l % ES_WARP_SIZE : (uint64_t)l;
			bprintf(&b, "<rect x=\"%lld\" y=\"%lld\" width=\"%d\" height=\"%d\" fill=\"#%06x\"><title>%s</title></rect>"
			        "<text x=\"%lld\" y=\"%lld\">%s%s</text>\n", (long long)x, (long long)y, CW - 1, CH - 1,
			        cell_rgb(v, key, by), tip.s, (long long)(x + CW / 2), (long long)y + 9,
			        coord_text(&t, v, coord), count[i] > 1 ? "+" : "");
		}
	bputs(&b, "</g>\n");
	/* the heavy rules between the lane quarters, over the cells */
	for (int64_t q = 0; q <= lanes / ES_WARP_SIZE; q++)
		bprintf(&b, "<line x1=\"8\" x2=\"%lld\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\" stroke-width=\"2\" "
		        "class=\"quarter\"/>\n", (long long)(left + cols * gw), (double)(top + q * ES_WARP_SIZE * CH) - 0.5,
		        (double)(top + q * ES_WARP_SIZE * CH) - 0.5);
	/* the legend */
	bputs(&b, "<g font-size=\"8\">\n");
	int64_t y = ly;
	if (by == BY_THREAD) {
		Key *keys = xalloc(sizeof *keys * (size_t)lanes);
		int64_t nk = 0;
		for (int64_t l = 0; l < lanes; l++)
			for (int64_t s = 0; s < row; s++)
				if (count[l * row + s]) {
					keys[nk++] = (Key){ (uint64_t)l, 0 };
					break;
				}
		warp_legend(&b, keys, nk, y, true);
		y += 14 * nleg;
		bprintf(&b, "<text x=\"8\" y=\"%lld\">hue: the lane quarter; shade: the lane in it (darkest first)</text>\n",
		        (long long)y + 8);
	} else {
		for (int64_t k = 0; k < nleg; k++, y += 14)
			bprintf(&b, "<rect x=\"8\" y=\"%lld\" width=\"10\" height=\"10\" fill=\"#%06x\"/><text x=\"22\" y=\"%lld\">"
			        "%s %lld%s%lld</text>\n", (long long)y, rgb((uint64_t)k), (long long)y + 8,
			        by == BY_WARP ? "lanes" : "TLane % 32 =", (long long)(by == BY_WARP ? k * ES_WARP_SIZE : k),
			        by == BY_WARP ? "-" : "", by == BY_WARP ? (long long)(k * ES_WARP_SIZE + ES_WARP_SIZE - 1) : 0LL);
		bprintf(&b, "<text x=\"8\" y=\"%lld\">colour: %s</text>\n", (long long)y + 8,
		        by == BY_WARP ? "the lane quarter" : "the lane modulo 32");
	}
	y += 14;
	bprintf(&b, "<rect x=\"8\" y=\"%lld\" width=\"10\" height=\"10\" fill=\"#f4f4f4\"/><text x=\"22\" y=\"%lld\">"
	        "no element of the layout here</text>\n", (long long)y, (long long)y + 8);
	if (per > 1)
		bprintf(&b, "<text x=\"8\" y=\"%lld\">a 32-bit column c holds %d %s elements: TCol %dc to %dc+%d, the lowest in the low bits</text>\n",
		        (long long)(y + 22), per, dtypes[v->dtype].name, per, per, per - 1);
	bputs(&b, "</g>\n</svg>\n");
	return b.s;
}

/* ---- main ------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	const char *shape_s = NULL, *buffer = NULL, *kernel = NULL, *dtype_s = NULL, *apply_s = NULL;
	const char *svg_file = NULL, *color = NULL, *width_s = NULL;
	bool explain_f = false;
	Opt opts[] = {
		{ "--shape", "D0,D1,...", "the logical shape (default: the extents of a shard of 1 or 2 iters)", &shape_s, NULL },
		{ "--buffer", "NAME", "show buffer NAME of the program FILE instead of a layout expression", &buffer, NULL },
		{ "--kernel", "NAME", "the kernel of that buffer, when several have one of that name", &kernel, NULL },
		{ "--dtype", "DTYPE", "the element type, for byte counts (default float32, or the buffer's)", &dtype_s, NULL },
		{ "--apply", "I,J,...", "print the owners of the element at these coordinates ('all': of every element, one a line)", &apply_s, NULL },
		{ "--explain", NULL, "print the steps of apply for that element (default: element 0)", NULL, &explain_f },
		{ "--svg", "FILE", "write a picture of the layout to FILE", &svg_file, NULL },
		{ "--color", "BY", "colour the picture by thread (default), warp or lane", &color, NULL },
		{ "--width", "N", "the width of the text grid (default 80, at least 32)", &width_s, NULL },
		{ 0 },
	};
	Cli c = { .prog = "txc-layout", .opts = opts,
	          .summary = "Shows who owns which element of a layout: FILE is the layout expression itself\n"
	                     "('S[(32, 8) : (1 @ laneid, 1)]'; '-' or none: read it from standard input),\n"
	                     "or with --buffer the txc program that declares the buffer. Prints a grid of\n"
	                     "owners, or the owners of one element (--apply), or the steps of apply\n"
	                     "(--explain); --svg draws it." };
	cli_parse(&c, argc, argv);
	int width = 80, by = BY_THREAD, dt = DT_FLOAT32, ndim = 0, nat = 0;
	int64_t shape[MAX_DIMS], at[MAX_DIMS] = { 0 }, w;
	if (width_s && (!parse_ints(width_s, &w, &nat, 32) || nat != 1 || w > 100000))
		cli_usage_error(&c, "--width takes a number from 32 to 100000, not '%s'", width_s);
	width = width_s ? (int)w : width;
	if (shape_s && !parse_ints(shape_s, shape, &ndim, 1))
		cli_usage_error(&c, "--shape takes positive integers separated by commas (at most %d), not '%s'", MAX_DIMS, shape_s);
	bool apply_all = apply_s && !strcmp(apply_s, "all");
	if (apply_s && !apply_all && !parse_ints(apply_s, at, &nat, 0))
		cli_usage_error(&c, "--apply takes coordinates separated by commas, not '%s'", apply_s);
	if (dtype_s && (dt = dtype_lookup(dtype_s)) == DT_NONE)
		cli_usage_error(&c, "unknown dtype '%s'", dtype_s);
	if (color && (by = !strcmp(color, "thread") ? BY_THREAD : !strcmp(color, "warp") ? BY_WARP :
	                   !strcmp(color, "lane") ? BY_LANE : -1) < 0)
		cli_usage_error(&c, "--color takes thread, warp or lane, not '%s'", color);
	if (kernel && !buffer)
		cli_usage_error(&c, "--kernel picks the kernel of --buffer");

	View v = { .dtype = dt };
	const Layout *l;
	if (buffer) {
		Src src;
		Diag d;
		if (!read_file(c.prog, c.input, &src))
			return 1;
		diag_init(&d, stderr);
		Module *m = parse_module(&src, &d);
		if (!m || !verify_module(m, &d))
			return 1;
		Buffer *bf = find_buffer(m, src.name, buffer, kernel);
		if (!bf)
			return 1;
		if (bf->ndim > MAX_DIMS)
			return error("buffer '%s' has more than %d dimensions", buffer, MAX_DIMS);
		if (!ndim) {
			memcpy(shape, bf->shape, sizeof *shape * (size_t)bf->ndim);
			ndim = bf->ndim ? bf->ndim : 1;
			shape[0] = bf->ndim ? shape[0] : 1;
		}
		Layout *def = layout_new();
		const char *why = bf->layout ? NULL : layout_default(def, shape, ndim);
		if (why)
			return error("%s", why);
		l = bf->layout ? bf->layout : def;
		v.dtype = dtype_s ? dt : bf->dtype;
	} else {
		Src src = { .text = c.input };
		if ((!c.input || !strcmp(c.input, "-")) && !read_file(c.prog, c.input, &src))
			return 1;
		if (!(l = eval_layout(src.text, shape, ndim, &v.dtype, dtype_s != NULL)))
			return 1;
	}
	if (setup(&v, l, shape, ndim))
		return 1;
	if (apply_s && !apply_all) {
		if (nat != v.ndim)
			return error("--apply gives %d coordinates; the shape has %d dimensions", nat, v.ndim);
		for (int d = 0; d < nat; d++)
			if (at[d] >= v.shape[d])
				return error("--apply: coordinate %lld of dimension %d is outside the shape (extent %lld)",
				             (long long)at[d], d, (long long)v.shape[d]);
	}
	bool want_grid = !apply_s && !explain_f && (!svg_file || c.output);
	int64_t cells;
	if ((want_grid || svg_file) && (!mul_ok(v.size, v.nrep, &cells) || cells > MAX_CELLS))
		return error("the layout has %lld elements and %lld replicas: too many to show (at most %d)",
		             (long long)v.size, (long long)v.nrep, MAX_CELLS);
	if (svg_file && v.size > MAX_PICTURE)
		return error("a picture shows at most %d elements; the layout has %lld", MAX_PICTURE, (long long)v.size);
	if (svg_file && by != BY_THREAD && !v.nthr && !v.tmem)
		return error("--color %s needs a layout with thread axes or tensor-memory lanes", color);
	Buf out = { 0 };
	if (apply_all && explain_f)
		return error("--explain takes one element, not --apply all");
	if (apply_all)
		for (int64_t f = 0; f < v.size; f++) {
			unflatten(&v, f, at);
			apply_line(&out, &v, at);
		}
	else if (apply_s && !explain_f)
		apply_line(&out, &v, at);
	if (explain_f)
		explain(&out, &v, at);
	if (want_grid)
		bputs(&out, grid(&v, width));
	if (svg_file) {
		char *s = v.tmem && !v.nthr ? svg_tmem(&v, by) : svg(&v, by);
		if (!s)
			return 1;
		if (!write_file(c.prog, svg_file, s, strlen(s)))
			return 1;
	}
	if (out.n || !svg_file)
		return write_file(c.prog, c.output, out.s ? out.s : "", out.n) ? 0 : 1;
	return 0;
}
