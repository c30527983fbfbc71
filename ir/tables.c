/* The tables: dtypes, memory scopes, layout axes, targets, intrinsics and
 * importable names. Each fact lives in one row of a .def file. */
#include <string.h>

#include "ir.h"

const DType dtypes[DT_COUNT] = {
	/* no dtype: the indices and offsets of emitted CUDA, in 64 bits */
	[DT_NONE] = { "none", 0, DK_INT, "long long", "" },
#define DTYPE(id, name, bits, kind, ctype, header) [id] = { name, bits, kind, ctype, header },
#include "dtype.def"
#undef DTYPE
};

/* By a hash map (built on first use; the first row of a name wins): every
 * T.<member> of a kernel asks whether it is a dtype. */
int dtype_lookup(const char *name)
{
	static Map by_name;
	if (!by_name.cap)
		for (int i = 1; i < DT_COUNT; i++)
			if (dtypes[i].name && !map_get(&by_name, dtypes[i].name))
				map_put(&by_name, dtypes[i].name, (void *)(intptr_t)i);
	return (int)(intptr_t)map_get(&by_name, name);
}

int dtype_bytes(int dt)
{
	return dtypes[dt].bits < 8 ? 1 : dtypes[dt].bits / 8;
}

const Scope scopes[SC_COUNT] = {
	[SC_NONE] = { "none", 0 },
#define SCOPE(id, name, flags) [id] = { name, flags },
#include "scope.def"
#undef SCOPE
};

int scope_lookup(const char *name)
{
	for (int i = 1; i < SC_COUNT; i++)
		if (strcmp(scopes[i].name, name) == 0)
			return i;
	return SC_NONE;
}

const Axis axes[AX_COUNT] = {
#define AXIS(id, name, kind, extent, outer, inner) [id] = { name, kind, extent, outer, inner },
#include "axis.def"
#undef AXIS
};

int axis_lookup(const char *name)
{
	for (int i = 0; i < AX_COUNT; i++)
		if (strcmp(axes[i].name, name) == 0)
			return i;
	return -1;
}

const char *const exec_scope_names[ES_COUNT] = {
#define LEVEL(id, name, threads) [id] = name,
#include "hierarchy.def"
#undef LEVEL
};

static const int64_t level_sizes[ES_COUNT] = {
#define LEVEL(id, name, threads) [id] = threads,
#include "hierarchy.def"
#undef LEVEL
};

int64_t level_threads(int es, int64_t n) { return level_sizes[es] ? level_sizes[es] : n; }

bool axis_of_thread(int a) { return axes[a].kind == AXK_THREAD && axes[a].outer != ES_CLUSTER; }

int64_t axis_mod(int a) { return level_sizes[axes[a].outer]; }

int64_t axis_div(int a) { return level_sizes[axes[a].inner]; }

int64_t axis_value(int a, int64_t t)
{
	int64_t mod = axis_mod(a);
	return (mod ? t % mod : t) / axis_div(a);
}

int64_t axis_count(int a, int64_t n)
{
	int64_t mod = axis_mod(a), div = axis_div(a);
	return ((mod && n > mod ? mod : n) + div - 1) / div;
}

int64_t axes_thread(unsigned used, const int64_t *c, int64_t first, int64_t last)
{
	/* the axes fix digits of t in the hierarchy's mixed radix: try the
	 * threads whose digits they leave free, at most one group apart */
	for (int64_t t = first; t <= last; t++) {
		bool all = true;
		for (int a = 0; a < AX_COUNT && all; a++)
			if ((used >> a & 1u) && axis_of_thread(a))
				all = axis_value(a, t) == c[a];
		if (all)
			return t;
	}
	return -1;
}

const Target targets[TG_COUNT] = {
#define TARGET(id, name, threads, smem, local) [id] = { name, threads, smem, local },
#include "target.def"
#undef TARGET
};

const char *const target_names[TG_COUNT] = {
#define TARGET(id, name, threads, smem, local) [id] = name,
#include "target.def"
#undef TARGET
};

int target_lookup(const char *name)
{
	for (int i = 0; i < TG_COUNT; i++)
		if (strcmp(target_names[i], name) == 0)
			return i;
	return -1;
}

/* sm_90a has everything sm_90 has; sm_100a has neither sm_90a's
 * architecture-specific instructions (wgmma, tensormap.replace) nor does
 * sm_90 have tcgen05. Plain feature levels suffice for what txc emits. */
bool target_has(int target, int need)
{
	if (target == TG_ANY || need == TG_ANY)
		return true;
	return target >= need;
}

static const LaunchId launch_ids[] = {
#define LAUNCH(id, axis) { id, axis },
#define GRID(id, in_cluster, of_cluster, cuda, declares)
#include "launch.def"
#undef GRID
#undef LAUNCH
};

static const GridId grid_ids[] = {
#define LAUNCH(id, axis)
#define GRID(id, in_cluster, of_cluster, cuda, declares) { id, in_cluster, of_cluster, cuda, declares },
#include "launch.def"
#undef GRID
#undef LAUNCH
};

const GridId *grid_launch(int id)
{
	for (size_t i = 0; i < sizeof grid_ids / sizeof grid_ids[0]; i++)
		if (grid_ids[i].id == id)
			return &grid_ids[i];
	return NULL;
}

int64_t grid_value(const GridId *g, int64_t c, int64_t k)
{
	return g->in_cluster ? c % k : g->of_cluster ? c / k : c;
}

const LaunchId *thread_launch(int id)
{
	for (size_t i = 0; i < sizeof launch_ids / sizeof launch_ids[0]; i++)
		if (launch_ids[i].id == id)
			return &launch_ids[i];
	return NULL;
}

const char *launch_cuda(const LaunchId *l)
{
	const char *s = "threadIdx.x";
	int64_t mod = axis_mod(l->axis), div = axis_div(l->axis);
	if (mod)
		s = xprintf("%s %% %lld", s, (long long)mod);
	if (div > 1)
		s = xprintf("%s / %lld", s, (long long)div);
	return s;
}

bool is_launch_id(int id) { return grid_launch(id) || thread_launch(id); }

int64_t launch_value(const LaunchId *l, int64_t t) { return axis_value(l->axis, t); }

int64_t launch_extent(const LaunchId *l, int64_t n)
{
	int64_t mod = axis_mod(l->axis);
	return (mod && n > mod ? mod : n) / axis_div(l->axis);
}

const Intrin intrins[IN_COUNT] = {
#define INTRIN(id, path, args, kws, target, doc) [id] = { path, args, kws, target, doc },
#include "intrin.def"
#undef INTRIN
};

/* The builtins by path, and every proper prefix of a path ("T", "T.cuda"),
 * in two maps built on the first lookup: a lookup is one hash, not a scan
 * of the table (it runs for every attribute of every statement). */
static Map intrin_by_path, intrin_prefixes;

/* Newer TVM's names of builtins that mean exactly what another row does:
 * the kernel decorator, a buffer parameter's type, a buffer allocation. */
static const struct { const char *alias, *path; } intrin_aliases[] = {
	{ "T.function", "T.prim_func" },
	{ "T.Tensor", "T.Buffer" },
	{ "T.alloc_tensor", "T.alloc_buffer" },
	{ "T.decl_tensor", "T.decl_buffer" },
};

static void intrin_maps(void)
{
	if (intrin_by_path.cap)
		return;
	for (int i = IN_COUNT - 1; i >= 0; i--) {  /* the first row of a path wins */
		const char *p = intrins[i].path;
		map_put(&intrin_by_path, p, (void *)(intptr_t)(i + 1));
		for (const char *dot = strchr(p, '.'); dot; dot = strchr(dot + 1, '.'))
			map_put(&intrin_prefixes, xstrndup(p, (size_t)(dot - p)), (void *)1);
	}
	for (size_t i = 0; i < sizeof intrin_aliases / sizeof intrin_aliases[0]; i++)
		map_put(&intrin_by_path, intrin_aliases[i].alias, map_get(&intrin_by_path, intrin_aliases[i].path));
}

int intrin_lookup(const char *path)
{
	intrin_maps();
	return (int)(intptr_t)map_get(&intrin_by_path, path) - 1;
}

bool intrin_is_prefix(const char *path)
{
	intrin_maps();
	return map_get(&intrin_prefixes, path) != NULL;
}

/* What `from MODULE import NAME` binds: a namespace path ("T"), a builtin
 * path ("layout.S"), an axis ("axis.laneid"); NULL if unknown. */
static const ModuleName imports[] = {
	{ "tvm.script", "tirx", "T" },
	{ "tvm.script", "tir", "T" },
	{ "tvm.script.tirx", "tile", "T" },
	{ "tvm.script.tirx", "*", "T." },
	{ "tvm.tirx.layout", "*", "layout." },
	{ "tvm.tir.layout", "*", "layout." },
	{ "tvm.backend.cuda.tile_primitive.tma_utils", "mma_shared_layout", "layout.mma_shared_layout" },
	{ "tvm.tirx.cuda.tile_primitive.tma_utils", "mma_shared_layout", "layout.mma_shared_layout" },
	{ "tvm.tirx.operator.tile_primitive.cuda.tma_utils", "mma_shared_layout", "layout.mma_shared_layout" },
	{ "tvm.backend.cuda.tile_primitive.tma_utils", "SwizzleMode", "tvm.SwizzleMode" },
	{ "tvm.tirx.cuda.tile_primitive.tma_utils", "SwizzleMode", "tvm.SwizzleMode" },
	{ "tvm.tirx.operator.tile_primitive.cuda.tma_utils", "SwizzleMode", "tvm.SwizzleMode" },
	{ "triton.experimental.gluon.language", "NVMMASharedLayout", "layout.NVMMASharedLayout" },
	{ "triton.experimental.gluon.language.nvidia.blackwell", "TensorMemoryLayout", "layout.TensorMemoryLayout" },
	{ "tvm", "DataType", "tvm.DataType" },
	{ "tvm.runtime", "DataType", "tvm.DataType" },
	{ "math", "prod", "math.prod" },
	{ "functools", "reduce", "functools.reduce" },
	{ "operator", "mul", "operator.mul" },
	{ "operator", "add", "operator.add" },
	{ "math", "gcd", "math.gcd" },
	{ "math", "ceil", "math.ceil" },
	{ "math", "floor", "math.floor" },
	{ "tvm.tirx.lang.pipeline", "MBarrier", "pipeline.MBarrier" },
	{ "tvm.backend.cuda.lang.pipeline", "MBarrier", "pipeline.MBarrier" },
	{ "tvm.tirx.lang.pipeline", "TMABar", "pipeline.TMABar" },
	{ "tvm.backend.cuda.lang.pipeline", "TMABar", "pipeline.TMABar" },
};

const char *import_lookup(const char *module, const char *name, bool *known_module)
{
	*known_module = false;
	for (size_t i = 0; i < sizeof imports / sizeof imports[0]; i++) {
		const ModuleName *m = &imports[i];
		if (strcmp(m->module, module) != 0)
			continue;
		*known_module = true;
		if (strcmp(m->name, "*") == 0) {
			if (strcmp(m->means, "layout.") == 0 && axis_lookup(name) >= 0)
				return xprintf("axis.%s", name);
			char *path = xprintf("%s%s", m->means, name);
			if (intrin_lookup(path) >= 0 || intrin_is_prefix(path))
				return path;
		} else if (strcmp(m->name, name) == 0) {
			return m->means;
		}
	}
	return NULL;
}

static const char *kind_word(char k)
{
	switch (k) {
	case 'e': return "expr";
	case 'i': return "int";
	case 's': return "str";
	case 'd': return "dtype";
	case 'b': return "buffer";
	case 'r': return "region";
	case 'l': return "int-list";
	case 'a': return "addr";
	case 'B': return "bool";
	default: return "any";
	}
}

void print_intrinsics(Buf *b)
{
	bputs(b, "| name | operands | keywords | target | description |\n|---|---|---|---|---|\n");
	for (int i = 0; i < IN_COUNT; i++) {
		const Intrin *in = &intrins[i];
		const char *name = in->path;
		if (!strncmp(name, "layout.", 7) || !strncmp(name, "py.", 3) || !strncmp(name, "pipeline.", 9))
			name = strchr(name, '.') + 1;
		bprintf(b, "| `%s` | ", name);
		bool opt = false, any = false;
		for (const char *a = in->args; *a; a++) {
			if (*a == '|') {
				bputs(b, any ? " [, " : "[");
				opt = true;
				continue;
			}
			if (*a == '*') {
				bputs(b, "...");
				continue;
			}
			if (any && a[-1] != '|')
				bputs(b, ", ");
			bputs(b, kind_word(*a));
			any = true;
		}
		if (opt)
			bputc(b, ']');
		if (!any && !opt)
			bputs(b, "—");
		bputs(b, " | ");
		if (!*in->kws)
			bputs(b, "—");
		for (const char *k = in->kws; *k;) {
			size_t n = strcspn(k, ":"), m = strcspn(k, " ");
			bprintf(b, "%s`%.*s=`%s%s", k == in->kws ? "" : ", ", (int)n, k, kind_word(k[n + 1]),
			        k[m - 1] == '!' ? " (required)" : "");
			k += m;
			k += strspn(k, " ");
		}
		bprintf(b, " | %s | %s |\n", target_names[in->target], in->doc);
	}
}

const Tcgen05Shape tcgen05_shapes[TC_NSHAPES] = {
#define TCGEN05_SHAPE(id, name, lanes, bits) \
	[id] = { name, lanes, bits, (lanes) * (bits) / 1024, (bits) / 32, TCGEN05_MAX_REGS / ((lanes) * (bits) / 1024) },
#include "tcgen05.def"
#undef TCGEN05_SHAPE
};

const Tcgen05Shape *tcgen05_shape(const char *name)
{
	for (int i = 0; name && i < TC_NSHAPES; i++)
		if (strcmp(tcgen05_shapes[i].name, name) == 0)
			return &tcgen05_shapes[i];
	return NULL;
}

const char *tcgen05_shape_list(const char *last)
{
	Buf b = {0};
	for (int i = 0; i < TC_NSHAPES; i++)
		bprintf(&b, "%s%s", i == 0 ? "" : i == TC_NSHAPES - 1 ? xprintf(" %s ", last) : ", ", tcgen05_shapes[i].name);
	return b.s;
}

const TccpShape tccp_shapes[TCCP_NSHAPES] = {
#define TCCP_SHAPE(id, shape, mc, rows, bits, rs, rep, reps, split, extra) \
	[id] = { shape, mc, rows, bits, rs, rep, reps, split, extra },
#define SMEM_SWIZZLE(arg, layout, pitch, bbits, mshift, name)
#include "tccp.def"
#undef TCCP_SHAPE
#undef SMEM_SWIZZLE
};

const TccpShape *tccp_shape(const char *shape, const char *multicast)
{
	for (int i = 0; shape && multicast && i < TCCP_NSHAPES; i++)
		if (!strcmp(tccp_shapes[i].shape, shape) && !strcmp(tccp_shapes[i].multicast, multicast))
			return &tccp_shapes[i];
	return NULL;
}

const SmemSwizzle smem_swizzles[SMEM_NSWIZZLES] = {
#define TCCP_SHAPE(id, shape, mc, rows, bits, rs, rep, reps, split, extra)
#define SMEM_SWIZZLE(arg, layout, pitch, bbits, mshift, name) { arg, layout, pitch, bbits, mshift, name },
#include "tccp.def"
#undef TCCP_SHAPE
#undef SMEM_SWIZZLE
};

const SmemSwizzle *smem_swizzle_layout(int layout)
{
	for (int i = 0; i < SMEM_NSWIZZLES; i++)
		if (smem_swizzles[i].layout == layout)
			return &smem_swizzles[i];
	return NULL;
}

const char *smem_desc_invalid(uint64_t d)
{
	if ((d >> 46 & 7) != 1)
		return xprintf("has bits [48:46] = %d, not the fixed 0b001", (int)(d >> 46 & 7));
	if (d >> 52 & 1)
		return "has bit 52 set: the leading byte offset as an absolute address is sm_103a's";
	if (d >> 53 & 0xFF)
		return xprintf("has bits [60:53] = 0x%02x, not the fixed 0", (int)(d >> 53 & 0xFF));
	if (!smem_swizzle_layout((int)(d >> 61)))
		return xprintf("has swizzle mode %d (bits [63:61]); the modes are 0, 1, 2, 4 and 6", (int)(d >> 61));
	return NULL;
}

static const struct { const char *name; int lo, bits, want; } idesc_fields[IDESC_NFIELDS] = {
#define IDESC(id, lo, bits, name, want) [id] = { name, lo, bits, want },
#define MMA_ITYPE(dt, code)
#define MMA_SHAPE(cg, m, step)
#include "tcmma.def"
#undef IDESC
#undef MMA_ITYPE
#undef MMA_SHAPE
};
static const struct { int dt, code; } mma_itypes[] = {
#define IDESC(id, lo, bits, name, want)
#define MMA_ITYPE(dt, code) { dt, code },
#define MMA_SHAPE(cg, m, step)
#include "tcmma.def"
#undef IDESC
#undef MMA_ITYPE
#undef MMA_SHAPE
};
static const struct MmaShapeRow { int cg, m, step; } mma_shapes[] = {
#define IDESC(id, lo, bits, name, want)
#define MMA_ITYPE(dt, code)
#define MMA_SHAPE(cg, m, step) { cg, m, step },
#include "tcmma.def"
#undef IDESC
#undef MMA_ITYPE
#undef MMA_SHAPE
};
enum { MMA_NITYPES = sizeof mma_itypes / sizeof mma_itypes[0], MMA_NSHAPES = sizeof mma_shapes / sizeof mma_shapes[0] };

unsigned idesc_field(uint32_t d, int f)
{
	return d >> idesc_fields[f].lo & ((1u << idesc_fields[f].bits) - 1);
}

int mma_itype_code(int dt)
{
	for (int i = 0; i < MMA_NITYPES; i++)
		if (mma_itypes[i].dt == dt)
			return mma_itypes[i].code;
	return -1;
}

int mma_itype_dtype(unsigned code)
{
	for (int i = 0; i < MMA_NITYPES; i++)
		if ((unsigned)mma_itypes[i].code == code)
			return mma_itypes[i].dt;
	return DT_NONE;
}

/* Why (m, n) is not a shape of rows (cg, M, N step) for cta_group cg, or
 * NULL: MMA_SHAPE and MMAS_SHAPE alike. */
static const char *shape_invalid(const struct MmaShapeRow *rows, int nrows, int cg, int64_t m, int64_t n)
{
	Buf ms = {0};
	bputs(&ms, "");
	for (int i = 0; i < nrows; i++) {
		if (rows[i].cg != cg)
			continue;
		bprintf(&ms, "%s%d", ms.n ? " or " : "", rows[i].m);
		if (rows[i].m != m)
			continue;
		int s = rows[i].step;
		if (n < s || n > 256 || n % s)
			return xprintf("N = %lld: with cta_group %d and M = %lld, N is a multiple of %d from %d to 256",
			               (long long)n, cg, (long long)m, s, s);
		return NULL;
	}
	return xprintf("M = %lld: with cta_group %d, M is %s", (long long)m, cg, ms.s);
}

const char *mma_shape_invalid(int cg, int64_t m, int64_t n)
{
	return shape_invalid(mma_shapes, MMA_NSHAPES, cg, m, n);
}

const char *idesc_invalid(uint32_t d, int cg)
{
	for (int f = 0; f < IDESC_NFIELDS; f++)
		if (idesc_fields[f].want >= 0 && idesc_field(d, f) != (unsigned)idesc_fields[f].want)
			return xprintf("has %s (bits [%d:%d]) = %u; txc requires %d", idesc_fields[f].name,
			               idesc_fields[f].lo + idesc_fields[f].bits - 1, idesc_fields[f].lo, idesc_field(d, f),
			               idesc_fields[f].want);
	unsigned a = idesc_field(d, ID_ATYPE), b = idesc_field(d, ID_BTYPE);
	if (mma_itype_dtype(a) == DT_NONE || mma_itype_dtype(b) == DT_NONE)
		return xprintf("has atype %u and btype %u (bits [9:7], [12:10]); .kind::f16 takes 0 (F16) and 1 (BF16)", a, b);
	if (a != b)
		return xprintf("has atype %u and btype %u (bits [9:7], [12:10]): txc requires A and B of one type", a, b);
	const char *why = mma_shape_invalid(cg, (int64_t)idesc_field(d, ID_M) << 4, (int64_t)idesc_field(d, ID_N) << 3);
	return why ? xprintf("describes %s", why) : NULL;
}

uint32_t idesc_encode(int atype, int btype, int64_t m, int64_t n, bool trans_a, bool trans_b, bool neg_a, bool neg_b)
{
	unsigned v[IDESC_NFIELDS] = {0};
	for (int f = 0; f < IDESC_NFIELDS; f++)
		v[f] = idesc_fields[f].want > 0 ? (unsigned)idesc_fields[f].want : 0;
	v[ID_ATYPE] = (unsigned)atype;
	v[ID_BTYPE] = (unsigned)btype;
	v[ID_NEG_A] = neg_a;
	v[ID_NEG_B] = neg_b;
	v[ID_TRANS_A] = trans_a;
	v[ID_TRANS_B] = trans_b;
	v[ID_N] = (unsigned)(n >> 3);
	v[ID_M] = (unsigned)(m >> 4);
	uint32_t d = 0;
	for (int f = 0; f < IDESC_NFIELDS; f++)
		d |= (v[f] & ((1u << idesc_fields[f].bits) - 1)) << idesc_fields[f].lo;
	return d;
}

/* ---- the block-scaled .kind::mxf8f6f4 (tcmma.def's IDESCS, MMAS_* rows) ---- */

static const struct { const char *name; int lo, bits, want; } idescs_fields[IDESCS_NFIELDS] = {
#define IDESCS(id, lo, bits, name, want) [id] = { name, lo, bits, want },
#include "tcmma.def"
#undef IDESCS
};
static const MmasFormat mmas_formats[] = {
#define MMAS_FORMAT(name, code, dt, ebits, mbits) { name, code, dt, ebits, mbits },
#include "tcmma.def"
#undef MMAS_FORMAT
};
static const struct { const char *name; int code; } mmas_scales[] = {
#define MMAS_SCALE(name, code) { name, code },
#include "tcmma.def"
#undef MMAS_SCALE
};
static const struct MmaShapeRow mmas_shapes[] = {
#define MMAS_SHAPE(cg, m, step) { cg, m, step },
#include "tcmma.def"
#undef MMAS_SHAPE
};
enum { MMAS_NFORMATS = sizeof mmas_formats / sizeof mmas_formats[0],
       MMAS_NSCALES = sizeof mmas_scales / sizeof mmas_scales[0],
       MMAS_NSHAPES = sizeof mmas_shapes / sizeof mmas_shapes[0] };

unsigned idescs_field(uint32_t d, int f)
{
	return d >> idescs_fields[f].lo & ((1u << idescs_fields[f].bits) - 1);
}

const MmasFormat *mmas_format_named(const char *name)
{
	for (int i = 0; i < MMAS_NFORMATS; i++)
		if (name && !strcmp(mmas_formats[i].name, name))
			return &mmas_formats[i];
	return NULL;
}

const MmasFormat *mmas_format_code(unsigned code)
{
	for (int i = 0; i < MMAS_NFORMATS; i++)
		if ((unsigned)mmas_formats[i].code == code)
			return &mmas_formats[i];
	return NULL;
}

int mmas_scale_code(const char *name)
{
	for (int i = 0; i < MMAS_NSCALES; i++)
		if (name && !strcmp(mmas_scales[i].name, name))
			return mmas_scales[i].code;
	return -1;
}

const char *mmas_format_names(void)
{
	Buf b = {0};
	bputs(&b, "");
	for (int i = 0; i < MMAS_NFORMATS; i++)
		bprintf(&b, "%s\"%s\"", i ? ", " : "", mmas_formats[i].name);
	return b.s;
}

const char *mmas_shape_invalid(int cg, int64_t m, int64_t n)
{
	return shape_invalid(mmas_shapes, MMAS_NSHAPES, cg, m, n);
}

const char *idescs_invalid(uint32_t d, int cg)
{
	for (int f = 0; f < IDESCS_NFIELDS; f++)
		if (idescs_fields[f].want >= 0 && idescs_field(d, f) != (unsigned)idescs_fields[f].want)
			return xprintf("has %s (bits [%d:%d]) = %u; txc requires %d", idescs_fields[f].name,
			               idescs_fields[f].lo + idescs_fields[f].bits - 1, idescs_fields[f].lo, idescs_field(d, f),
			               idescs_fields[f].want);
	unsigned a = idescs_field(d, IDS_ATYPE), b = idescs_field(d, IDS_BTYPE);
	if (!mmas_format_code(a) || !mmas_format_code(b))
		return xprintf("has atype %u and btype %u (bits [9:7], [12:10]); .kind::mxf8f6f4 takes 0 (E4M3), 1 (E5M2), "
		               "3 (E2M3), 4 (E3M2) and 5 (E2M1)", a, b);
	const char *why = mmas_shape_invalid(cg, (int64_t)idescs_field(d, IDS_M) << 4, (int64_t)idescs_field(d, IDS_N) << 3);
	return why ? xprintf("describes %s", why) : NULL;
}

uint32_t idescs_encode(int afmt, int bfmt, int64_t m, int64_t n, bool trans_a, bool trans_b, bool neg_a, bool neg_b,
                       int a_sf, int b_sf)
{
	unsigned v[IDESCS_NFIELDS] = {0};
	for (int f = 0; f < IDESCS_NFIELDS; f++)
		v[f] = idescs_fields[f].want > 0 ? (unsigned)idescs_fields[f].want : 0;
	v[IDS_ATYPE] = (unsigned)afmt;
	v[IDS_BTYPE] = (unsigned)bfmt;
	v[IDS_NEG_A] = neg_a;
	v[IDS_NEG_B] = neg_b;
	v[IDS_TRANS_A] = trans_a;
	v[IDS_TRANS_B] = trans_b;
	v[IDS_N] = (unsigned)(n >> 3);
	v[IDS_M] = (unsigned)(m >> 4);
	v[IDS_A_SF_ID] = (unsigned)a_sf;
	v[IDS_B_SF_ID] = (unsigned)b_sf;
	uint32_t d = 0;
	for (int f = 0; f < IDESCS_NFIELDS; f++)
		d |= (v[f] & ((1u << idescs_fields[f].bits) - 1)) << idescs_fields[f].lo;
	return d;
}

void print_tcgen05(Buf *b)
{
	bputs(b, "| shape | lanes a warp reaches | bits a lane | registers a thread | 32-bit columns | `.x{num}` |\n");
	bputs(b, "|---|---|---|---|---|---|\n");
	for (int i = 0; i < TC_NSHAPES; i++) {
		const Tcgen05Shape *s = &tcgen05_shapes[i];
		bprintf(b, "| `%s` | %d | %d | %s | %s | 1, 2, 4, ..., %d |\n", s->name, s->lanes, s->bits,
		        s->regs == 1 ? "num" : xprintf("%d x num", s->regs), s->cols == 1 ? "num" : xprintf("%d x num", s->cols),
		        s->max_num);
	}
}

/* Names CUDA C, its headers or txc's generated code already use: a kernel,
 * buffer or variable of one of these names gets a '_' after it in CUDA C,
 * and the launcher looks the kernel up by the same rule. TVM's kernels are
 * often called main. */
static const char *const cuda_reserved[] = {
	"alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "const", "constexpr",
	"const_cast", "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
	"explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
	"mutable", "namespace", "new", "noexcept", "nullptr", "operator", "private", "protected", "public",
	"register", "reinterpret_cast", "restrict", "return", "short", "signed", "sizeof", "static",
	"static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true",
	"try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
	"wchar_t", "while", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "min", "max", "half",
	"half2", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
	"uintptr_t", "uint2", "uint4", "smem", "smem_raw", "printf", "assert", "main",
	/* what CUDA's headers declare with C linkage or in the global
	 * namespace: a kernel so named would overload it (nvcc refuses) */
	"abs", "acos", "acosf", "acosh", "acoshf", "asin", "asinf", "asinh", "asinhf", "atan", "atan2", "atan2f",
	"atanf", "atanh", "atanhf", "cbrt", "cbrtf", "ceil", "ceilf", "copysign", "copysignf", "cos", "cosf", "cosh",
	"coshf", "cospi", "cospif", "erf", "erfc", "erfcf", "erff", "exp", "exp10", "exp10f", "exp2", "exp2f", "expf",
	"expm1", "expm1f", "fabs", "fabsf", "fdim", "fdimf", "floor", "floorf", "fma", "fmaf", "fmax", "fmaxf", "fmin",
	"fminf", "fmod", "fmodf", "frexp", "frexpf", "hypot", "hypotf", "ilogb", "ilogbf", "isfinite", "isinf",
	"isnan", "labs", "ldexp", "ldexpf", "lgamma", "lgammaf", "llabs", "llrint", "llround", "log", "log10",
	"log10f", "log1p", "log1pf", "log2", "log2f", "logb", "logbf", "logf", "lrint", "lround", "modf", "modff",
	"nan", "nanf", "nearbyint", "nearbyintf", "nextafter", "nextafterf", "pow", "powf", "remainder",
	"remainderf", "remquo", "rint", "rintf", "round", "roundf", "rsqrt", "rsqrtf", "scalbln", "scalbn",
	"signbit", "sin", "sincos", "sincosf", "sinf", "sinh", "sinhf", "sinpi", "sinpif", "sqrt", "sqrtf", "tan",
	"tanf", "tanh", "tanhf", "tgamma", "tgammaf", "trunc", "truncf", "memcpy", "memset", "memcmp", "memmove",
	"malloc", "free", "calloc", "realloc", "strlen", "strcmp", "clock", "clock64", "atomicAdd", "atomicSub",
	"atomicExch", "atomicMin", "atomicMax", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor", "atomicInc",
	"atomicDec", "exit", "abort", "rand", NULL,
};

const char *cuda_name(const char *s)
{
	/* The words above: a hash away once this runs for every name printed
	 * (txc-cuda); the first few names asked (txc-ptx asks for its kernels'
	 * only) are compared with each, cheaper than the map's 250 puts. */
	enum { SCANS = 2 };
	static Map reserved;
	static int scans;
	bool clash = strncmp(s, "txc_", 4) == 0 || strncmp(s, "__", 2) == 0;
	if (!clash && scans < SCANS) {
		scans++;
		for (int i = 0; cuda_reserved[i] && !clash; i++)
			clash = cuda_reserved[i][0] == s[0] && strcmp(cuda_reserved[i], s) == 0;
	} else if (!clash) {
		if (!reserved.cap)
			for (int i = 0; cuda_reserved[i]; i++)
				map_put(&reserved, cuda_reserved[i], (void *)1);
		clash = map_get(&reserved, s) != NULL;
	}
	return clash ? xprintf("%s_", s) : s;
}

/* PTX ISA, ld: .level1::eviction_priority (sm_70 and later) and
 * .level::prefetch_size (sm_75 and later) */
const char *const ld_l1_evict[] = { "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last",
                                    "L1::no_allocate", NULL };
const char *const ld_prefetch[] = { "L2::64B", "L2::128B", "L2::256B", NULL };

static int word_in(const char *p, size_t n, const char *const *v)
{
	for (int i = 0; v[i]; i++)
		if (strlen(v[i]) == n && strncmp(p, v[i], n) == 0)
			return i;
	return -1;
}

const char *ld_quals_list(const char *const *v)
{
	Buf b = { 0 };
	for (int i = 0; v[i]; i++)
		bprintf(&b, "%s\"%s\"", i ? ", " : "", v[i]);
	return b.s;
}

const char *ld_quals_check(const char *q)
{
	int stage = 0; /* 1 after nc, 2 after an L1 priority, 3 after a prefetch size */
	for (const char *p = q; *p || p == q;) {
		size_t n = strcspn(p, ".");
		int at = n == 2 && strncmp(p, "nc", 2) == 0 ? 1 : word_in(p, n, ld_l1_evict) >= 0 ? 2 :
		         word_in(p, n, ld_prefetch) >= 0 ? 3 : 0;
		if (!at || at <= stage)
			return xprintf("the qualifiers of a global load are, in this order and each at most once, \"nc\", an "
			               "L1 eviction priority (%s) and an L2 prefetch size (%s), joined by dots; not \"%s\"",
			               ld_quals_list(ld_l1_evict), ld_quals_list(ld_prefetch), q);
		stage = at;
		p += n;
		if (*p == '.' && !*++p)
			return xprintf("\"%s\" ends in a dot", q);
	}
	return NULL;
}
