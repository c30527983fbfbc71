/* txc-cuda: the CUDA backend. Reads a verified, lowered txc program
 * (doc/txir.md, section 12) and writes one CUDA C file: a header, a prelude
 * holding only the helpers this file calls (each intrinsic is one helper
 * around one PTX instruction in the form of shared/reference/ptx.md), then
 * one extern "C" __global__ function per kernel. The IR's names, loops and
 * branches are kept, so the CUDA reads like the IR it came from.
 *
 * Each kernel is emitted twice: the first pass only records which buffers
 * and launch ids are used, so that the second leaves out declarations
 * nothing reads (a view the lowering replaced, an unused warp id). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "lowered.h"
#include "chain.h"

#ifndef TXC_VERSION
#define TXC_VERSION "0.1"
#endif

/* C precedence, loosest first. */
enum { P_COND = 3, P_OR, P_AND, P_BITOR, P_XOR, P_BITAND, P_EQ, P_REL, P_SHIFT, P_ADD, P_MUL,
       P_UNARY = 15, P_POSTFIX, P_ATOM };

typedef struct Code { const char *s; int prec; } Code;

/* A name in scope: a buffer, a runtime scalar (buf NULL), or a constant. */
typedef struct Bind {
	const char *name;
	Buffer *buf;
	bool is_int, is_str;
	int64_t ival;
	const char *str;
} Bind;

typedef struct Helper { const char *name, *text; } Helper;

typedef struct Gen {
	Low low;     /* its names and module, for lowered.c */
	Module *m;
	Diag *d;
	Func *f;
	Buf *out;
	int indent;
	Names binds;         /* name -> Bind, popped at the end of a block */
	bool counting;   /* the first pass over a kernel: record uses only */
	bool *buf_used;  /* per f->bufs entry */
	Var **vars;      /* launch ids used */
	int nvars;
	bool wide;       /* int names as int64_t: an offset that may pass 2^31 */
	bool shared;     /* a shared buffer was declared */
	Helper *helpers; /* the prelude, in order of first use */
	int nhelpers;
	bool header[DT_COUNT]; /* dtypes whose header (dtype.def) the code needs */
	bool fp8;              /* cuda_fp8.h, for the float8 conversions */
} Gen;

/* ---- names, types, helpers -------------------------------------------------- */

/* The IR's name, or with a '_' after it where it would clash in CUDA C
 * (the library's cuda_name, which the launcher uses for the kernel). */
static const char *cname(const char *s) { return cuda_name(s); }

static bool is_intdt(int dt) { return dt > 0 && dt < DT_COUNT && (dtypes[dt].kind == DK_INT || dtypes[dt].kind == DK_UINT); }
/* sema's literal dtypes (past DT_COUNT) become int32 and float32 */

/* The C type of a dtype (dtype.def), whose header the code then includes. */
static const char *ctype(Gen *g, int dt)
{
	if (dt < 0 || dt >= DT_COUNT)
		die("txc-cuda: ctype of dtype %d, not one of dtype.def", dt);
	g->header[dt] = true;
	return dtypes[dt].ctype;
}
/* The same for scalars, where int reads better than int32_t. */
static const char *stype(Gen *g, int dt) { return dt == DT_INT32 ? "int" : ctype(g, dt); }

static bool have(Gen *g, const char *name)
{
	for (int i = 0; i < g->nhelpers; i++)
		if (strcmp(g->helpers[i].name, name) == 0)
			return true;
	return false;
}

static const char *add(Gen *g, const char *name, const char *text)
{
	if (!have(g, name))
		vpush(g->helpers, g->nhelpers, ((Helper){ name, text }));
	return name;
}

#define DEV "static __device__ __forceinline__ "

/* A helper whose body is one asm statement with only a memory clobber. */
static const char *asm0(Gen *g, const char *name, const char *ptx)
{
	if (!have(g, name))
		add(g, name, xprintf(DEV "void %s()\n{\n  asm volatile(\"%s\" ::: \"memory\");\n}\n", name, ptx));
	return name;
}

/* A grid launch id in dimension d: CUDA C, or a PTX special register read
 * by a helper (%cluster_ctaid, %clusterid: sm_90). */
static const char *grid_id(Gen *g, const GridId *l, int d)
{
	char dim = "xyz"[d];
	if (l->cuda[0] != '%')
		return xprintf(l->cuda, dim);
	const char *reg = xprintf(l->cuda + 1, dim), *name = xprintf("txc_%.*s_%c", (int)strcspn(reg, "."), reg, dim);
	if (!have(g, name))
		add(g, name, xprintf(DEV "int %s()\n{\n  uint32_t r;\n  asm volatile(\"mov.u32 %%0, %%%%%s;\" : \"=r\"(r));\n"
		                     "  return (int)r;\n}\n", name, reg));
	return xprintf("%s()", name);
}

static void need_smem(Gen *g)
{
	add(g, "txc_smem", "// the shared-memory address that PTX takes, from a generic pointer\n"
	    DEV "uint32_t txc_smem(const void* p)\n{\n  return (uint32_t)__cvta_generic_to_shared(p);\n}\n");
}

/* A helper with parameters and one asm statement with inputs. */
static const char *asm_in(Gen *g, const char *name, const char *params, const char *ptx, const char *in)
{
	if (!have(g, name)) {
		if (strstr(in, "txc_smem"))
			need_smem(g);
		add(g, name, xprintf(DEV "void %s(%s)\n{\n  asm volatile(\"%s\"\n               :: %s\n               : \"memory\");\n}\n",
		                     name, params, ptx, in));
	}
	return name;
}

/* nc: the load through the read-only non-coherent path (ld.global.nc, __ldg) */
/* A copy whose global load has qualifiers (ld_quals_check): one inline
 * ld.global.QUALS of n bytes into registers, then a plain store. */
static const char *copy_quals_helper(Gen *g, int64_t n, const char *quals)
{
	Buf id = { 0 }, b = { 0 };
	for (const char *p = quals; *p; p++)
		bputc(&id, isalnum((unsigned char)*p) ? *p : '_');
	const char *name = xprintf("txc_copy_bytes_%s_%lld", id.s, (long long)n);
	if (have(g, name))
		return name;
	bprintf(&b, "// %lld bytes: one ld.global.%s and one store\n" DEV "void %s(void* dst, const void* src)\n{\n",
	        (long long)n, quals, name);
	if (n <= 2) /* an 8- or 16-bit register */
		bprintf(&b, "  unsigned short w;\n  asm volatile(\"ld.global.%s.u%lld %%0, [%%1];\" : \"=h\"(w) : \"l\"(src));\n"
		        "  *(uint%lld_t*)dst = (uint%lld_t)w;\n", quals, (long long)n * 8, (long long)n * 8, (long long)n * 8);
	else if (n == 4)
		bprintf(&b, "  uint32_t v;\n  asm volatile(\"ld.global.%s.u32 %%0, [%%1];\" : \"=r\"(v) : \"l\"(src));\n"
		        "  *(uint32_t*)dst = v;\n", quals);
	else if (n == 8)
		bprintf(&b, "  uint2 v;\n  asm volatile(\"ld.global.%s.v2.u32 {%%0, %%1}, [%%2];\" : \"=r\"(v.x), \"=r\"(v.y) : "
		        "\"l\"(src));\n  *(uint2*)dst = v;\n", quals);
	else
		bprintf(&b, "  uint4 v;\n  asm volatile(\"ld.global.%s.v4.u32 {%%0, %%1, %%2, %%3}, [%%4];\" : \"=r\"(v.x), "
		        "\"=r\"(v.y), \"=r\"(v.z), \"=r\"(v.w) : \"l\"(src));\n  *(uint4*)dst = v;\n", quals);
	bputs(&b, "}\n");
	add(g, name, b.s);
	return name;
}

static const char *copy_helper(Gen *g, int64_t n, bool nc)
{
	static const char *const vt[17] = { [1] = "uint8_t", [2] = "uint16_t", [4] = "uint32_t", [8] = "uint2", [16] = "uint4" };
	const char *name = xprintf("txc_copy_bytes_%s%lld", nc ? "nc_" : "", (long long)n);
	if (nc && !have(g, name))
		add(g, name, xprintf("// %lld bytes: one read-only (ld.global.nc) vector load and one vector store\n"
		                     DEV "void %s(void* dst, const void* src)\n{\n  *(%s*)dst = __ldg((const %s*)src);\n}\n",
		                     (long long)n, name, vt[n], vt[n]));
	if (!have(g, name))
		add(g, name, xprintf("// %lld bytes: one vector load and one vector store\n"
		                     DEV "void %s(void* dst, const void* src)\n{\n  *(%s*)dst = *(const %s*)src;\n}\n",
		                     (long long)n, name, vt[n], vt[n]));
	return name;
}

static void floor_helpers(Gen *g)
{
	add(g, "txc_floordiv", "// Python's // and % (floor semantics), for operands that may be negative\n"
	    DEV "long long txc_floordiv(long long a, long long b)\n{\n  long long q = a / b;\n"
	    "  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;\n}\n"
	    DEV "long long txc_floormod(long long a, long long b)\n{\n  long long r = a % b;\n"
	    "  return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;\n}\n");
}

static const char *fp8_helper(Gen *g, int dt, bool to)
{
	const char *k = dt == DT_FP8E4M3 ? "e4m3" : "e5m2", *K = dt == DT_FP8E4M3 ? "E4M3" : "E5M2";
	g->fp8 = g->header[DT_FLOAT16] = true; /* through __half */
	const char *name = to ? xprintf("txc_float_to_%s", k) : xprintf("txc_%s_to_float", k);
	if (!have(g, name))
		add(g, name, to ? xprintf("// float8 values are raw bits (uint8_t)\n" DEV "uint8_t %s(float x)\n{\n"
		                          "  return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_%s);\n}\n", name, K) :
		             xprintf(DEV "float %s(uint8_t x)\n{\n  return __half2float(__half(__nv_cvt_fp8_to_halfraw(x, __NV_%s)));\n}\n",
		                     name, K));
	return name;
}

/* ---- what names mean --------------------------------------------------------- */

static Bind *lookup(Gen *g, const char *name) { return names_lookup(&g->binds, name); }

/* lowered.h's view of the names this program has bound */
static int low_name(void *gp, const char *name, int64_t *iv, const char **sv)
{
	Bind *x = lookup(gp, name);
	if (!x)
		return 0;
	*iv = x->ival;
	*sv = x->str;
	return x->is_int ? 'i' : x->is_str ? 's' : 'o';
}

static Bind *bind(Gen *g, const char *name, Buffer *b)
{
	Bind *x = xalloc(sizeof *x);
	*x = (Bind){ .name = name, .buf = b };
	names_bind(&g->binds, name, x);
	return x;
}

/* The builtin a callee names (-1: none; *dt: a dtype constructor T.float16),
 * as sema recorded it on the call. */
static int resolve(Gen *g, const Expr *call, int *dt)
{
	(void)g;
	return call_builtin(call, NULL, dt);
}

/* Compile-time integers and strings: literals, constants of the module or
 * the kernel, T.uint64(0). */
static bool const_int(Gen *g, const Expr *e, int64_t *out) { return low_const_int(&g->low, e, out); }

static const char *const_str(Gen *g, const Expr *e) { return low_const_str(&g->low, e); }

static Buffer *buffer_of(Gen *g, const Expr *e)
{
	Bind *x = e->kind == E_NAME ? lookup(g, e->str) : NULL;
	return x ? x->buf : NULL;
}

static void use_buf(Gen *g, Buffer *b)
{
	for (; g->counting && b; b = b->base)
		for (int i = 0; i < g->f->nbufs; i++)
			if (g->f->bufs[i] == b)
				g->buf_used[i] = true;
}

static bool buf_used(Gen *g, Buffer *b)
{
	for (int i = 0; i < g->f->nbufs; i++)
		if (g->f->bufs[i] == b)
			return g->buf_used[i];
	return false;
}

/* ---- expressions ---------------------------------------------------------------- */

static Code code(const char *s, int prec) { return (Code){ s, prec }; }

static Code fail(Gen *g, const Expr *e, const char *msg)
{
	error_at(g->d, expr_start(e), "%s", msg);
	return code("0", P_ATOM);
}

static Code cx(Gen *g, const Expr *e, int hint);

static const char *sub(Gen *g, const Expr *e, int hint, int need)
{
	Code c = cx(g, e, hint);
	return c.prec < need ? xprintf("(%s)", c.s) : c.s;
}

/* A float literal: the shortest digits that read back as the same value. */
static const char *float_digits(double v, bool single)
{
	char s[64];
	if (isinf(v))
		return single ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000LL)";
	for (int p = 1; p <= 17; p++) {
		snprintf(s, sizeof s, "%.*g", p, v);
		if (single ? strtof(s, NULL) == (float)v : strtod(s, NULL) == v)
			break;
	}
	return xprintf("%s%s%s", s, strpbrk(s, ".e") ? "" : ".0", single ? "f" : "");
}

/* A float expression converted to a 16- or 8-bit float type. */
static Code narrow(Gen *g, int dt, const char *f)
{
	g->header[dt] = true;
	if (dt == DT_FLOAT16)
		return code(xprintf("__float2half_rn(%s)", f), P_POSTFIX);
	if (dt == DT_BFLOAT16)
		return code(xprintf("__float2bfloat16_rn(%s)", f), P_POSTFIX);
	return code(xprintf("%s(%s)", fp8_helper(g, dt, true), f), P_POSTFIX);
}

static Code lit_float(Gen *g, double v, int hint)
{
	if (low_is_half(hint) || low_is_fp8(hint))
		return narrow(g, hint, xprintf("%s%s", signbit(v) ? "-" : "", float_digits(fabs(v), true)));
	if (signbit(v)) {
		Code c = lit_float(g, -v, hint);
		return code(xprintf("-%s", c.prec < P_UNARY ? xprintf("(%s)", c.s) : c.s), P_UNARY);
	}
	if (is_intdt(hint) || hint == DT_BOOL)
		return code(xprintf("(%s)%s", stype(g, hint), float_digits(v, false)), P_UNARY);
	return code(float_digits(v, hint == DT_FLOAT32), isinf(v) ? P_POSTFIX : P_ATOM);
}

static Code lit_int(Gen *g, int64_t v, int hint)
{
	if (hint == DT_BOOL)
		return code(v ? "true" : "false", P_ATOM);
	if (hint > DT_BOOL && hint < DT_COUNT && dtypes[hint].kind == DK_FLOAT)
		return lit_float(g, (double)v, hint);
	if (v == INT64_MIN)
		return code("(-9223372036854775807LL - 1)", P_ATOM);
	const char *s = v >= INT32_MIN && v <= INT32_MAX ? xprintf("%lld", (long long)v) :
	                hint == DT_UINT32 && v > 0 && v <= (int64_t)UINT32_MAX ? xprintf("%lldu", (long long)v) :
	                hint == DT_UINT64 && v > 0 ? xprintf("%lldull", (long long)v) : xprintf("%lldLL", (long long)v);
	return code(s, v < 0 ? P_UNARY : P_ATOM);
}

/* An index or pointer offset: in 64 bits when it may pass 2^31. */
static const char *offset_str(Gen *g, const Expr *off)
{
	bool was = g->wide;
	g->wide = was || !low_fits32(off);
	const char *s = cx(g, off, DT_NONE).s;
	g->wide = was;
	return s;
}

/* buf[i, j]: the element at its storage offset (layout and swizzle applied). */
static const char *element(Gen *g, const Expr *e, Buffer **bp)
{
	Buffer *b = buffer_of(g, e->a);
	const char *why = NULL;
	if (!b) {
		fail(g, e, "only buffers are indexed");
		return "0";
	}
	if (buffer_root(b)->scope == SC_TMEM) {
		fail(g, e, xprintf("tensor memory ('%s') is read and written only by tcgen05 intrinsics", b->name));
		return "0";
	}
	Expr *off = buffer_offset_expr(b, e->args, &why);
	if (!off) {
		fail(g, e, why);
		return "0";
	}
	use_buf(g, b);
	if (bp)
		*bp = b;
	return xprintf("%s[%s]", cname(b->name), offset_str(g, off));
}

/* An address operand: T.address_of(x), a buffer element, a buffer, a handle. */
static Code address(Gen *g, const Expr *e)
{
	if (low_call_id(e) == IN_ADDRESS_OF && e->nargs == 1)
		return address(g, e->args[0]);
	Buffer *b = e->kind == E_INDEX ? buffer_of(g, e->a) : buffer_of(g, e);
	if (b && e->kind == E_INDEX)
		return code(xprintf("&%s", element(g, e, NULL)), P_UNARY);
	if (b && buffer_root(b)->scope == SC_TMEM)
		return cx(g, buffer_root(b)->alloc_addr, DT_UINT32);
	if (b) {
		use_buf(g, b);
		return code(cname(b->name), P_ATOM);
	}
	return cx(g, e, DT_HANDLE);
}

/* T.cast(x, to) and T.<dtype>(x); 16- and 8-bit floats go through float. */
static Code cast(Gen *g, const Expr *x, int to)
{
	int from = x->dtype;
	if (!low_known(from))
		return cx(g, x, to);
	Code c = cx(g, x, from);
	if (from == to)
		return c;
	if (low_is_fp8(from)) {
		c = code(xprintf("%s(%s)", fp8_helper(g, from, false), c.s), P_POSTFIX);
		from = DT_FLOAT32;
	} else if (low_is_half(from)) {
		c = code(xprintf("%s(%s)", from == DT_FLOAT16 ? "__half2float" : "__bfloat162float", c.s), P_POSTFIX);
		from = DT_FLOAT32;
	}
	if (from == to)
		return c;
	if (low_is_half(to) || low_is_fp8(to))
		return narrow(g, to, from == DT_FLOAT32 ? c.s : xprintf("(float)%s", c.prec < P_UNARY ? xprintf("(%s)", c.s) : c.s));
	if (to == DT_BOOL)
		return code(xprintf("%s != 0", c.prec <= P_EQ ? xprintf("(%s)", c.s) : c.s), P_EQ);
	return code(xprintf("(%s)%s", stype(g, to), c.prec < P_UNARY ? xprintf("(%s)", c.s) : c.s), P_UNARY);
}

static Code call_expr(Gen *g, const Expr *e)
{
	int dt, id = resolve(g, e, &dt);
	if (dt && e->nargs == 1)
		return cast(g, e->args[0], dt);
	switch (id) {
	case IN_CAST:
		return cast(g, e->args[0], e->dtype);
	case IN_MIN: case IN_MAX: {
		int t = low_concrete(e->dtype);
		add(g, "txc_min", "template <typename T> " DEV "T txc_min(T a, T b) { return b < a ? b : a; }\n"
		    "template <typename T> " DEV "T txc_max(T a, T b) { return a < b ? b : a; }\n");
		return code(xprintf("txc_%s<%s>(%s, %s)", id == IN_MIN ? "min" : "max", stype(g, t),
		                    cx(g, e->args[0], t).s, cx(g, e->args[1], t).s), P_POSTFIX);
	}
	case IN_ADDRESS_OF:
		return address(g, e);
	case IN_ELECT_SYNC:
		add(g, "txc_elect_sync", "// elect.sync over the active threads of the warp: true in one of them\n"
		    DEV "bool txc_elect_sync()\n{\n  uint32_t e;\n"
		    "  asm volatile(\"{ .reg .pred p; elect.sync _|p, %1; selp.u32 %0, 1, 0, p; }\" : \"=r\"(e) : \"r\"(__activemask()));\n"
		    "  return e != 0;\n}\n");
		return code("txc_elect_sync()", P_POSTFIX);
	case IN_TMEM_ADDR:
		return code(xprintf("%s + (%s << 16) + %s", sub(g, e->args[0], DT_UINT32, P_ADD + 1),
		                    sub(g, e->args[1], DT_UINT32, P_SHIFT + 1), sub(g, e->args[2], DT_UINT32, P_ADD + 1)), P_ADD);
	case IN_POINTER_OFFSET: {
		Buffer *b = buffer_of(g, e->args[0]);
		if (!b || buffer_root(b)->scope == SC_TMEM)
			return fail(g, e, "T.pointer_offset takes a buffer in memory (not tensor memory)");
		use_buf(g, b);
		return code(xprintf("(void*)(%s + (int64_t)(%s))", cname(b->name), offset_str(g, e->args[1])), P_UNARY);
	}
	}
	return fail(g, e, xprintf("'%s' has no value in CUDA", expr_str(e->a)));
}

static Code binary(Gen *g, const Expr *e, int hint)
{
	static const struct { const char *s; int prec; } ops[OP_COUNT] = {
		[OP_ADD] = { "+", P_ADD }, [OP_SUB] = { "-", P_ADD }, [OP_MUL] = { "*", P_MUL },
		[OP_DIV] = { "/", P_MUL }, [OP_FLOORDIV] = { "/", P_MUL }, [OP_MOD] = { "%", P_MUL },
		[OP_SHL] = { "<<", P_SHIFT }, [OP_SHR] = { ">>", P_SHIFT }, [OP_BITAND] = { "&", P_BITAND },
		[OP_BITOR] = { "|", P_BITOR }, [OP_BITXOR] = { "^", P_XOR },
		[OP_LT] = { "<", P_REL }, [OP_LE] = { "<=", P_REL }, [OP_GT] = { ">", P_REL }, [OP_GE] = { ">=", P_REL },
		[OP_EQ] = { "==", P_EQ }, [OP_NE] = { "!=", P_EQ },
	};
	int op = e->op, t = low_known(e->a->dtype) ? e->a->dtype : low_known(e->b->dtype) ? e->b->dtype : hint;
	int64_t lo, hi, lo2, hi2;
	if (low_is_fp8(t))
		return fail(g, e, "arithmetic on float8 values; convert them with T.cast to float32 first");
	if (!ops[op].s)
		return fail(g, e, xprintf("'%s' on runtime values has no CUDA form", op_spelling[op]));
	if (op == OP_FLOORDIV || op == OP_MOD) {
		bool plain = (t > 0 && t < DT_COUNT && dtypes[t].kind == DK_UINT) ||
		             (low_range(e->a, &lo, &hi) && lo >= 0 && low_range(e->b, &lo2, &hi2) && lo2 > 0);
		if (!plain) {
			floor_helpers(g);
			return code(xprintf("txc_floor%s(%s, %s)", op == OP_MOD ? "mod" : "div", cx(g, e->a, t).s,
			                    cx(g, e->b, t).s), P_POSTFIX);
		}
	}
	int p = ops[op].prec, nl = p, nr = p + 1;
	if (p == P_SHIFT || p == P_BITAND || p == P_XOR || p == P_BITOR)
		nl = nr = P_UNARY; /* (a >> 6) & 7: parentheses a reader does not have to check */
	if (p == P_REL || p == P_EQ)
		nl = nr = P_SHIFT;
	Code c = code(xprintf("%s %s %s", sub(g, e->a, t, nl), ops[op].s, sub(g, e->b, t, nr)), p);
	if (e->kind == E_BIN && is_intdt(t) && dtypes[t].bits < 32) /* C computes in int: wrap as the dtype does */
		c = code(xprintf("(%s)(%s)", stype(g, t), c.s), P_UNARY);
	return c;
}

static Code cx(Gen *g, const Expr *e, int hint)
{
	const Value *v = e->val;
	if (v && v->kind == V_INT)
		return lit_int(g, v->i, hint);
	if (v && v->kind == V_FLOAT)
		return lit_float(g, v->f, hint);
	if (v && v->kind == V_BOOL)
		return hint == DT_BOOL || !low_known(hint) ? code(v->i ? "true" : "false", P_ATOM) : lit_int(g, v->i, hint);
	switch (e->kind) {
	case E_INT: return lit_int(g, e->ival, hint);
	case E_FLOAT: return lit_float(g, e->fval, hint);
	case E_TRUE: case E_FALSE: return code(e->kind == E_TRUE ? "true" : "false", P_ATOM);
	case E_NAME:
		if (!e->var)
			return fail(g, e, xprintf("'%s' is not a value the CUDA code can hold", e->str));
		if (e->var->launch && g->counting) {
			bool seen = false;
			for (int i = 0; i < g->nvars; i++)
				seen |= g->vars[i] == e->var;
			if (!seen)
				vpush(g->vars, g->nvars, e->var);
		}
		if (g->wide && is_intdt(e->var->dtype) && dtypes[e->var->dtype].bits < 64)
			return code(xprintf("(int64_t)%s", cname(e->var->name)), P_UNARY);
		return code(cname(e->var->name), P_ATOM);
	case E_UN: {
		int t = low_known(e->a->dtype) ? e->a->dtype : hint;
		if (e->op == OP_POS)
			return cx(g, e->a, hint);
		if (low_is_fp8(t))
			return fail(g, e, "arithmetic on float8 values; convert them with T.cast to float32 first");
		const char *x = sub(g, e->a, t, P_UNARY);
		Code c = code(xprintf("%s%s", e->op == OP_NEG ? "-" : "~", x[0] == '-' ? xprintf("(%s)", x) : x), P_UNARY);
		if (is_intdt(t) && dtypes[t].bits < 32)
			c = code(xprintf("(%s)(%s)", stype(g, t), c.s), P_UNARY);
		return c;
	}
	case E_BIN: case E_CMP:
		return binary(g, e, hint);
	case E_AND: case E_OR:
		return code(xprintf("%s %s %s", sub(g, e->a, DT_BOOL, P_EQ), e->kind == E_AND ? "&&" : "||",
		                    sub(g, e->b, DT_BOOL, P_EQ)), e->kind == E_AND ? P_AND : P_OR);
	case E_NOT:
		return code(xprintf("!%s", sub(g, e->a, DT_BOOL, P_UNARY)), P_UNARY);
	case E_COND: {
		int t = low_known(e->dtype) ? e->dtype : hint;
		return code(xprintf("%s ? %s : %s", sub(g, e->a, DT_BOOL, P_OR), sub(g, e->b, t, P_OR), sub(g, e->c, t, P_OR)),
		            P_COND);
	}
	case E_INDEX:
		return code(element(g, e, NULL), P_POSTFIX);
	case E_CALL:
		return call_expr(g, e);
	default:
		return fail(g, e, xprintf("'%s' has no CUDA form", expr_str(e)));
	}
}

/* ---- statements ------------------------------------------------------------------ */

static void line(Gen *g, const char *s)
{
	for (int i = 0; i < g->indent; i++)
		bputs(g->out, "  ");
	bputs(g->out, s);
	bputc(g->out, '\n');
}

static void stmt(Gen *g, Stmt *s);

static void block(Gen *g, Stmt **v, int n)
{
	int mark = names_mark(&g->binds);
	g->indent++;
	for (int i = 0; i < n; i++)
		stmt(g, v[i]);
	g->indent--;
	names_pop(&g->binds, mark);
}

/* Keyword operand kw of call e, a constant (dflt when absent): its kind
 * in intrin.def is int or bool, which sema checked. */
static int64_t kw_int(Gen *g, const Expr *e, const char *kw, int64_t dflt) { return low_kw_int(&g->low, e, kw, dflt); }

/* Operand i of call e, a constant (dflt when absent), as kw_int. */
static int64_t arg_int(Gen *g, const Expr *e, int i, int64_t dflt) { return low_arg_int(&g->low, e, i, dflt); }

/* T.ptx.cp_async(dst, src, size [, cache_policy, prefetch_size, src_size,
 * predicate, cache]): policy 0, prefetch 0, src_size -1 and predicate -1
 * mean none; a false predicate copies no bytes and zero-fills. */
static void cp_async(Gen *g, const Expr *e)
{
	int64_t n = arg_int(g, e, 2, 16), v;
	const char *cache = e->nargs > 7 ? const_str(g, e->args[7]) : "";
	if (!cache)
		cache = ""; /* sema checked the size and the cache operator */
	if (!*cache)
		cache = n == 16 ? "cg" : "ca";
	bool hint = e->nargs > 3 && !(const_int(g, e->args[3], &v) && v == 0);
	int64_t pf = arg_int(g, e, 4, 0); /* 0, 64, 128 or 256: sema checked it */
	bool size = e->nargs > 5 && !(const_int(g, e->args[5], &v) && v == -1);
	bool pred = e->nargs > 6 && !(const_int(g, e->args[6], &v) && v == -1);
	const char *name = xprintf("txc_cp_async_%s_%lld%s%s%s", cache, (long long)n, pf ? xprintf("_L2_%lldB", (long long)pf) : "",
	                           size || pred ? "_zfill" : "", hint ? "_hint" : "");
	Buf ptx = {0}, params = {0}, in = {0}, args = {0};
	bprintf(&ptx, "cp.async.%s.shared.global%s%s [%%0], [%%1], %lld", cache, hint ? ".L2::cache_hint" : "",
	        pf ? xprintf(".L2::%lldB", (long long)pf) : "", (long long)n);
	bputs(&params, "void* dst, const void* src");
	bputs(&in, "\"r\"(txc_smem(dst)), \"l\"(src)");
	bprintf(&args, "%s, %s", address(g, e->args[0]).s, address(g, e->args[1]).s);
	int k = 2;
	if (size || pred) {
		bprintf(&ptx, ", %%%d", k++);
		bputs(&params, ", uint32_t src_size");
		bputs(&in, ", \"r\"(src_size)");
		const char *ss = size ? cx(g, e->args[5], DT_UINT32).s : xprintf("%lld", (long long)n);
		bprintf(&args, ", %s", pred ? xprintf("%s ? %s : 0", sub(g, e->args[6], DT_BOOL, P_OR), ss) : ss);
	}
	if (hint) {
		bprintf(&ptx, ", %%%d", k++);
		bputs(&params, ", uint64_t cache_policy");
		bputs(&in, ", \"l\"(cache_policy)");
		bprintf(&args, ", %s", cx(g, e->args[3], DT_UINT64).s);
	}
	bputc(&ptx, ';');
	asm_in(g, name, params.s, ptx.s, in.s);
	line(g, xprintf("%s(%s);", name, args.s));
}

/* One register operand of tcgen05.ld/st: a buffer element names the 32-bit
 * word that starts there (two float16 elements, or four 8-bit ones); st
 * also takes a 32-bit value (sema checked the dtypes and the offsets). */
static const char *tc_reg(Gen *g, const Expr *e)
{
	Buffer *b = NULL;
	if (e->kind == E_INDEX && buffer_of(g, e->a)) {
		const char *el = element(g, e, &b);
		if (!b)
			return "0";
		add(g, "txc_reg32", "// the 32-bit register that holds element x and, for narrower types, those after it\n"
		    "template <typename T> " DEV "uint32_t& txc_reg32(T& x)\n{\n"
		    "  static_assert(sizeof(T) <= 4, \"a register holds 32 bits\");\n"
		    "  return *reinterpret_cast<uint32_t*>(&x);\n}\n");
		return b->dtype == DT_UINT32 ? el : xprintf("txc_reg32(%s)", el);
	}
	int dt = low_concrete(e->dtype);
	if (dt == DT_FLOAT32)
		return xprintf("__float_as_uint(%s)", cx(g, e, dt).s);
	return cast(g, e, DT_UINT32).s; /* int32 or uint32 */
}

/* T.ptx.ldmatrix/stmatrix(num, trans, address, registers...): a helper
 * per form, its registers 32-bit words (tc_reg). */
static void ldst_matrix(Gen *g, const Expr *e, bool ld)
{
	int64_t num = arg_int(g, e, 0, 1), trans = arg_int(g, e, 1, 0);
	const char *op = ld ? "ldmatrix" : "stmatrix", *tr = trans ? ".trans" : "";
	const char *fn = xprintf("txc_%s_x%lld%s", op, (long long)num, trans ? "_trans" : "");
	need_smem(g);
	Buf params = { 0 }, regs = { 0 }, cons = { 0 };
	for (int64_t i = 0; i < num; i++) {
		bprintf(&params, "%suint32_t%s r%lld", i ? ", " : "", ld ? "&" : "", (long long)i);
		bprintf(&regs, "%s%%%lld", i ? ", " : "", (long long)(ld ? i : i + 1));
		bprintf(&cons, "%s\"%sr\"(r%lld)", i ? ", " : "", ld ? "=" : "", (long long)i);
	}
	if (ld)
		add(g, fn, xprintf(DEV "void %s(%s, const void* p)\n{\n"
		                   "  asm volatile(\"ldmatrix.sync.aligned.m8n8.x%lld%s.shared.b16 {%s}, [%%%lld];\"\n"
		                   "               : %s\n               : \"r\"(txc_smem(p))\n               : \"memory\");\n}\n",
		                   fn, params.s, (long long)num, tr, regs.s, (long long)num, cons.s));
	else
		add(g, fn, xprintf(DEV "void %s(void* p, %s)\n{\n"
		                   "  asm volatile(\"stmatrix.sync.aligned.m8n8.x%lld%s.shared.b16 [%%0], {%s};\"\n"
		                   "               :: \"r\"(txc_smem(p)), %s\n               : \"memory\");\n}\n",
		                   fn, params.s, (long long)num, tr, regs.s, cons.s));
	Buf call = { 0 };
	bprintf(&call, "%s(", fn);
	if (!ld)
		bprintf(&call, "%s", address(g, e->args[2]).s);
	for (int i = 0; i < num; i++)
		bprintf(&call, "%s%s", i || !ld ? ", " : "", tc_reg(g, e->args[3 + i]));
	if (ld)
		bprintf(&call, ", %s", address(g, e->args[2]).s);
	bputs(&call, ");");
	line(g, call.s);
}

/* T.ptx.tcgen05.ld/st(taddr, row, col, shape, num, pack, registers...). */
static void tcgen05_ldst(Gen *g, const Expr *e, bool ld)
{
	/* sema checked the shape (tcgen05.def), num and the registers */
	const char *shape = const_str(g, e->args[3]);
	int64_t num = arg_int(g, e, 4, 1), pack = arg_int(g, e, 5, 0);
	int64_t nregs = num * tcgen05_shape(shape)->regs;
	const char *q = pack ? (ld ? ".pack::16b" : ".unpack::16b") : "";
	const char *name = xprintf("txc_tcgen05_%s_%s_x%lld%s", ld ? "ld" : "st", shape, (long long)num,
	                           pack ? (ld ? "_pack16" : "_unpack16") : "");
	if (!have(g, name)) {
		/* the asm operand list: registers first for ld (outputs), the address first for st */
		Buf t = {0}, regs = {0}, ops = {0};
		bprintf(&t, DEV "void %s(uint32_t taddr, uint32_t row, uint32_t col", name);
		for (int i = 0; i < nregs; i++) {
			bprintf(&t, ",%s%s r%d", i % 8 ? " " : "\n    ", ld ? "uint32_t&" : "uint32_t", i);
			bprintf(&regs, "%s%%%d", i ? ", " : "", i + !ld);
			bprintf(&ops, "%s%s\"%sr\"(r%d)", i ? "," : "", i % 8 ? " " : i ? "\n                 " : "", ld ? "=" : "", i);
		}
		/* the warp reaches the 32 lanes of its quarter of tensor memory,
		 * 32 x (warp % 4) on: the hardware's rule, added here, so that the
		 * IR's row is the warpgroup-relative one (0, or 16 for a slab) */
		bprintf(&t, ")\n{\n  taddr += (row + %d * ((threadIdx.x / %d) %% %d)) << 16;\n", ES_WARP_SIZE, ES_WARP_SIZE,
		        ES_WARPGROUP_SIZE / ES_WARP_SIZE);
		bprintf(&t, "  asm volatile(\"tcgen05.%s.sync.aligned.%s.x%lld%s.b32 ", ld ? "ld" : "st", shape, (long long)num, q);
		if (ld)
			bprintf(&t, "{%s}, [%%%lld];\"\n               : %s\n               : \"r\"(taddr + col)\n",
			        regs.s, (long long)nregs, ops.s);
		else
			bprintf(&t, "[%%0], {%s};\"\n               :: \"r\"(taddr + col),\n                 %s\n",
			        regs.s, ops.s);
		bputs(&t, "               : \"memory\");\n}\n");
		add(g, name, t.s);
	}
	/* the call, on continuation lines when it would pass 100 columns */
	const char *head = xprintf("%s(%s, %s, %s", name, cx(g, e->args[0], DT_UINT32).s, cx(g, e->args[1], DT_UINT32).s,
	                           cx(g, e->args[2], DT_UINT32).s);
	const char **regs = xalloc(sizeof(char *) * (size_t)nregs);
	size_t len = strlen(head) + 2 * (size_t)g->indent;
	for (int i = 0; i < nregs; i++)
		len += strlen(regs[i] = tc_reg(g, e->args[6 + i])) + 2;
	Buf call = {0};
	bputs(&call, head);
	for (int i = 0; i < nregs; i++) {
		if (len > 100 && (i == 0 || call.n + strlen(regs[i]) + 2 * (size_t)g->indent > 96)) {
			bputc(&call, ',');
			line(g, call.s);
			call = (Buf){0};
			bprintf(&call, "    %s", regs[i]);
		} else {
			bprintf(&call, ", %s", regs[i]);
		}
	}
	bputs(&call, ");");
	line(g, call.s);
}

/* tcgen05.cp: one helper per shape, multicast and cta_group; the address
 * is taddr + (row << 16) + col (no lane quarter: one thread issues it). */
static void tcgen05_cp(Gen *g, const Expr *e)
{
	/* sema checked the pair (tccp.def) and cta_group */
	const char *shape = const_str(g, e->args[3]);
	Kw *mk = call_kw(e, "multicast");
	const char *mc = mk ? const_str(g, mk->value) : "";
	int64_t cg = kw_int(g, e, "cta_group", 1);
	Buf name = {0};
	bprintf(&name, "txc_tcgen05_cp_%s", shape);
	if (*mc) /* warpx2::02_13 -> _warpx2_02_13 */
		bputc(&name, '_');
	for (const char *p = mc; *p; p++) {
		bputc(&name, *p == ':' ? '_' : *p);
		p += *p == ':';
	}
	if (cg == 2)
		bputs(&name, "_cg2");
	asm_in(g, name.s, "uint32_t taddr, uint32_t row, uint32_t col, uint64_t desc",
	       xprintf("tcgen05.cp.cta_group::%d.%s%s%s [%%0], %%1;", (int)cg, shape, *mc ? "." : "", mc),
	       "\"r\"(taddr + (row << 16) + col), \"l\"(desc)");
	line(g, xprintf("%s(%s, %s, %s, %s);", name.s, cx(g, e->args[0], DT_UINT32).s, cx(g, e->args[1], DT_UINT32).s,
	                cx(g, e->args[2], DT_UINT32).s, cx(g, e->args[4], DT_UINT64).s));
}

/* T.cuda.tcgen05.encode_matrix_descriptor: the 64-bit shared-memory matrix
 * descriptor (tccp.def's swizzle modes; PTX ISA 9.7.16.4.1), written to
 * the 64-bit element at desc. */
static void smem_desc(Gen *g, const Expr *e)
{
	need_smem(g);
	if (!have(g, "txc_tcgen05_smem_desc")) {
		Buf t = {0};
		bputs(&t, "// the shared-memory matrix descriptor of tcgen05: start >> 4 [13:0], ldo [29:16], sdo [45:32],\n"
		      "// 0b001 [48:46], base offset [51:49], the swizzle's layout type [63:61]\n"
		      DEV "uint64_t txc_tcgen05_smem_desc(const void* addr, uint32_t ldo, uint32_t sdo, uint32_t layout, "
		      "uint32_t base_offset)\n{\n"
		      "  return (uint64_t)((txc_smem(addr) >> 4) & 0x3FFF) | (uint64_t)(ldo & 0x3FFF) << 16 |\n"
		      "         (uint64_t)(sdo & 0x3FFF) << 32 | (uint64_t)1 << 46 | (uint64_t)(base_offset & 7) << 49 |\n"
		      "         (uint64_t)(layout & 7) << 61;\n}\n");
		add(g, "txc_tcgen05_smem_desc", t.s);
	}
	int64_t sw = kw_int(g, e, "swizzle", 0), bo = kw_int(g, e, "base_offset", 0); /* sema: 0 to 4, 0 to 7 */
	line(g, xprintf("*(uint64_t*)(%s) = txc_tcgen05_smem_desc(%s, %s, %s, %d, %lld);", address(g, e->args[0]).s,
	                address(g, e->args[1]).s, cx(g, call_kw(e, "ldo")->value, DT_UINT32).s,
	                cx(g, call_kw(e, "sdo")->value, DT_UINT32).s, smem_swizzles[sw].layout, (long long)bo));
}

/* tcgen05.mma .kind::f16 with A and B in shared memory: enable_input_d
 * becomes the predicate (doc/tcgen05-mma.md); sema checked that the
 * disable-output-lane masks, when given, are 0, so none are emitted. */
static void tcgen05_mma(Gen *g, const Expr *e)
{
	int64_t cg = kw_int(g, e, "cta_group", 1);
	Kw *sa = call_kw(e, "scale_a"), *sb = call_kw(e, "scale_b");
	if (sa && sb) {
		/* kind "mxf8f6f4" (sema: the only kind with scales): the block-scaled
		 * form, the scales' tensor-memory addresses in brackets */
		const char *bname = cg == 2 ? "txc_tcgen05_mma_mxf8f6f4_cg2" : "txc_tcgen05_mma_mxf8f6f4";
		asm_in(g, bname, "uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc, uint32_t idesc, uint32_t enable_input_d, "
		       "uint32_t scale_a, uint32_t scale_b",
		       xprintf("{ .reg .pred p; setp.ne.b32 p, %%4, 0; tcgen05.mma.cta_group::%d.kind::mxf8f6f4.block_scale."
		               "scale_vec::1X [%%0], %%1, %%2, %%3, [%%5], [%%6], p; }", (int)cg),
		       "\"r\"(d_taddr), \"l\"(a_desc), \"l\"(b_desc), \"r\"(idesc), \"r\"(enable_input_d), \"r\"(scale_a), "
		       "\"r\"(scale_b)");
		line(g, xprintf("%s(%s, %s, %s, %s, %s, %s, %s);", bname, cx(g, e->args[0], DT_UINT32).s,
		                cx(g, e->args[1], DT_UINT64).s, cx(g, e->args[2], DT_UINT64).s, cx(g, e->args[3], DT_UINT32).s,
		                cx(g, e->args[4], DT_UINT32).s, cx(g, sa->value, DT_UINT32).s, cx(g, sb->value, DT_UINT32).s));
		return;
	}
	const char *name = cg == 2 ? "txc_tcgen05_mma_f16_cg2" : "txc_tcgen05_mma_f16";
	asm_in(g, name, "uint32_t d_taddr, uint64_t a_desc, uint64_t b_desc, uint32_t idesc, uint32_t enable_input_d",
	       xprintf("{ .reg .pred p; setp.ne.b32 p, %%4, 0; tcgen05.mma.cta_group::%d.kind::f16 [%%0], %%1, %%2, %%3, "
	               "p; }", (int)cg),
	       "\"r\"(d_taddr), \"l\"(a_desc), \"l\"(b_desc), \"r\"(idesc), \"r\"(enable_input_d)");
	line(g, xprintf("%s(%s, %s, %s, %s, %s);", name, cx(g, e->args[0], DT_UINT32).s, cx(g, e->args[1], DT_UINT64).s,
	                cx(g, e->args[2], DT_UINT64).s, cx(g, e->args[3], DT_UINT32).s, cx(g, e->args[4], DT_UINT32).s));
}

/* T.cuda.tcgen05.encode_instr_descriptor: every operand is a constant
 * (sema checked them), so the descriptor is one (ir/tcmma.def). */
static void instr_desc(Gen *g, const Expr *e)
{
	int64_t m = kw_int(g, e, "M", 0), n = kw_int(g, e, "N", 0);
	int at = mma_itype_code(dtype_lookup(const_str(g, call_kw(e, "a_dtype")->value)));
	int bt = mma_itype_code(dtype_lookup(const_str(g, call_kw(e, "b_dtype")->value)));
	uint32_t d = idesc_encode(at, bt, m, n, kw_int(g, e, "trans_a", 0), kw_int(g, e, "trans_b", 0),
	                          kw_int(g, e, "neg_a", 0), kw_int(g, e, "neg_b", 0));
	line(g, xprintf("*(uint32_t*)(%s) = 0x%08xu; // tcgen05.mma .kind::f16 M=%lld N=%lld, instruction descriptor",
	                address(g, e->args[0]).s, d, (long long)m, (long long)n));
}

/* T.cuda.tcgen05.encode_instr_descriptor_block_scaled: a constant (sema
 * checked the operands; ir/tcmma.def's IDESCS rows), with the scale-factor
 * ids ORed in at run time when they are not constants (masked to 2 bits). */
static void instr_desc_bs(Gen *g, const Expr *e)
{
	int64_t m = kw_int(g, e, "M", 0), n = kw_int(g, e, "N", 0);
	const MmasFormat *af = mmas_format_named(const_str(g, call_kw(e, "a_dtype")->value));
	const MmasFormat *bf = mmas_format_named(const_str(g, call_kw(e, "b_dtype")->value));
	static const char *const ids[2] = { "a_sf_id", "b_sf_id" };
	static const int shift[2] = { 29, 4 };
	int64_t sf[2] = { 0, 0 };
	const char *rt[2] = { "", "" };
	for (int i = 0; i < 2; i++) {
		Kw *k = call_kw(e, ids[i]);
		if (k && !const_int(g, k->value, &sf[i])) {
			sf[i] = 0;
			rt[i] = xprintf(" | (((uint32_t)(%s) & 3u) << %d)", cx(g, k->value, DT_UINT32).s, shift[i]);
		}
	}
	uint32_t d = idescs_encode(af->code, bf->code, m, n, kw_int(g, e, "trans_a", 0), kw_int(g, e, "trans_b", 0),
	                           kw_int(g, e, "neg_a", 0), kw_int(g, e, "neg_b", 0), (int)sf[0], (int)sf[1]);
	line(g, xprintf("*(uint32_t*)(%s) = 0x%08xu%s%s; // tcgen05.mma .kind::mxf8f6f4 M=%lld N=%lld, block-scaled "
	                "instruction descriptor", address(g, e->args[0]).s, d, rt[0], rt[1], (long long)m, (long long)n));
}

/* The intrinsics that are one fixed PTX instruction (backend/fixed.def):
 * the helper, its parameters, the instruction and its asm inputs, and the
 * call's operands. */
static const struct Fixed {
	int id;
	const char *name, *params, *ptx, *in, *ops;
} fixed[] = {
#define FIXED(id, name, params, ptx, in, ops) { id, name, params, ptx, in, ops },
#include "fixed.def"
#undef FIXED
};

static void fixed_call(Gen *g, const Expr *e, const struct Fixed *x)
{
	const char *name = x->name, *ptx = x->ptx;
	/* cta_group 1 or 2, n_cols a power of two from 32 to 512: sema checked them */
	int64_t cg = kw_int(g, e, "cta_group", 1), n = kw_int(g, e, "n_cols", 32);
	if (strstr(ptx, "%d")) {
		name = cg == 2 ? xprintf("%s_cg2", name) : name;
		ptx = xprintf(ptx, (int)cg);
	}
	Buf call = {0};
	bprintf(&call, "%s(", x->in ? asm_in(g, name, x->params, ptx, x->in) : asm0(g, name, ptx));
	for (int k = 0; x->ops[k]; k++)
		bprintf(&call, "%s%s", k ? ", " : "", x->ops[k] == 'a' ? address(g, e->args[k]).s :
		        x->ops[k] == 'e' ? cx(g, e->args[k], DT_UINT32).s : xprintf("%lld", (long long)n));
	bputs(&call, ");");
	line(g, call.s);
}

/* The memory an address operand is in: SC_SHARED, SC_GLOBAL, or -1 when
 * it is a handle txc cannot follow (generic addressing then). */
static int addr_scope(Gen *g, const Expr *e)
{
	if (low_call_id(e) == IN_ADDRESS_OF && e->nargs == 1)
		return addr_scope(g, e->args[0]);
	Buffer *b = e->kind == E_INDEX ? buffer_of(g, e->a) : buffer_of(g, e);
	if (!b)
		return -1;
	int sc = buffer_root(b)->scope;
	return sc == SC_GLOBAL ? SC_GLOBAL : scopes[sc].flags & SCF_SHARED ? SC_SHARED : -1;
}

/* The kernel-parameter tensor map e names; NULL: e is the address of one
 * in memory. */
static const TensorMap *param_map(Gen *g, const Expr *e)
{
	for (int i = 0; e->kind == E_NAME && i < g->f->ntmaps; i++)
		if (!strcmp(g->f->tmaps[i]->name, e->str))
			return g->f->tmaps[i];
	return NULL;
}

/* The address of a tensor map in memory, for a PTX operand: the state
 * space's suffix, the helper's parameter and its asm input. */
static void tmap_operand(Gen *g, int sc, const char **ss, const char **in)
{
	if (sc == SC_SHARED) {
		need_smem(g);
		*ss = ".shared::cta";
		*in = "\"r\"(txc_smem(map))";
	} else if (sc == SC_GLOBAL) {
		*ss = ".global";
		*in = "\"l\"(__cvta_generic_to_global(map))";
	} else {
		*ss = "";
		*in = "\"l\"(map)";
	}
}

/* tensormap.replace: one helper per field, state space, ord and (for the
 * fields that take an immediate) value; the rest are operands. */
static void tmap_replace(Gen *g, const Expr *e)
{
	const char *field = const_str(g, e->args[0]);
	int f = tm_field_lookup(field); /* sema checked it, and the operands' count */
	const TmField *t = &tm_fields[f];
	int sc = addr_scope(g, e->args[1]);
	const char *ss, *in;
	tmap_operand(g, sc, &ss, &in);
	int64_t ord = t->ord ? arg_int(g, e, 2, 0) : -1, imm = t->imm ? arg_int(g, e, e->nargs - 1, 0) : -1;
	const Expr *v = e->args[e->nargs - 1];
	Buf name = {0};
	bprintf(&name, "txc_tensormap_replace_%s%s", field, sc == SC_SHARED ? "_shared" : sc == SC_GLOBAL ? "_global" : "");
	if (ord >= 0)
		bprintf(&name, "_%lld", (long long)ord);
	if (imm >= 0)
		bprintf(&name, "_v%lld", (long long)imm);
	const char *ptx = xprintf("tensormap.replace.tile.%s%s.b1024.b%d [%%0], %s%s;", field, ss, t->bits,
	                          ord >= 0 ? xprintf("%lld, ", (long long)ord) : "",
	                          imm >= 0 ? xprintf("%lld", (long long)imm) : "%1");
	const char *vt = t->bits == 64 ? "uint64_t" : "uint32_t";
	if (imm >= 0)
		asm_in(g, name.s, "void* map", ptx, in);
	else
		asm_in(g, name.s, xprintf("void* map, %s v", vt), ptx, xprintf("%s, \"%s\"(v)", in, t->bits == 64 ? "l" : "r"));
	const char *val = imm >= 0 ? "" :
	                  xprintf(", %s", f == TMF_ADDRESS && v->dtype == DT_HANDLE ? xprintf("(uint64_t)%s", address(g, v).s) :
	                          cx(g, v, t->bits == 64 ? DT_UINT64 : DT_UINT32).s);
	line(g, xprintf("%s(%s%s);", name.s, address(g, e->args[1]).s, val));
}

/* The bulk tensor copies: one helper per form and rank, the tensor map a
 * __grid_constant__ parameter whose address the instruction takes, or a
 * map in global memory (tensormap.cp_fenceproxy) through its address. */
static void tma(Gen *g, const Expr *e, int id)
{
	int rank = (int)arg_int(g, e, 0, 1); /* 1 to 5, the map's: sema checked it */
	int map = id == IN_TMA_LOAD ? 3 : id == IN_TMA_PREFETCH ? 1 : 2;
	const Expr *hint = NULL, *mask = NULL;
	for (int i = 0; i < e->nkws; i++)
		if (!strcmp(e->kws[i].name, "cache_hint"))
			hint = e->kws[i].value;
		else if (!strcmp(e->kws[i].name, "cta_mask"))
			mask = e->kws[i].value;
	/* cta_mask= (sema: sm_90a, a cluster): .multicast::cluster with the
	 * 16-bit mask; a constant 0 is no multicast (TVM's default) */
	if (mask && mask->val && mask->val->kind == V_INT && mask->val->i == 0)
		mask = NULL;
	const char *red = id == IN_TMA_REDUCE ? const_str(g, call_kw(e, "red_op")->value) : NULL; /* sema: one of eight */
	Kw *sp = id == IN_TMA_LOAD ? call_kw(e, "dst_space") : NULL;
	const char *space = sp ? const_str(g, sp->value) : "shared::cluster"; /* sema: one of two */
	bool cta = !strcmp(space, "shared::cta");
	Buf params = {0}, in = {0}, coords = {0}, name = {0};
	bputs(&name, id == IN_TMA_LOAD ? "txc_tma_load" : id == IN_TMA_STORE ? "txc_tma_store" :
	      id == IN_TMA_REDUCE ? xprintf("txc_tma_reduce_%s", red) : "txc_tma_prefetch");
	const TensorMap *t = param_map(g, e->args[map]); /* NULL: a map in global memory (tiled) */
	int mode = t ? t->mode : TMAP_TILED, ninfo = id == IN_TMA_LOAD || id == IN_TMA_PREFETCH ? e->nargs - map - 1 - rank : 0;
	/* sema: the map's mode has this form */
	const char *lm = id == IN_TMA_LOAD || id == IN_TMA_PREFETCH ? tmap_modes[mode].name : tmap_modes[mode].store;
	if (mode != TMAP_TILED) /* txc_tma_load_im2col_w_128_4d: the mode, "::" as "_" */
		for (const char *p = lm, *q; *p; p = *q ? q + 2 : q) {
			q = p + strcspn(p, ":");
			bprintf(&name, "_%.*s", (int)(q - p), p);
		}
	bprintf(&name, "_%dd%s%s%s", rank, cta ? "_cta" : "", mask ? "_multicast" : "", hint ? "_hint" : "");
	int op = 0;
	if (id == IN_TMA_LOAD || id == IN_TMA_STORE || id == IN_TMA_REDUCE) {
		bputs(&params, id == IN_TMA_LOAD ? "void* dst, " : "const void* src, ");
		bprintf(&in, "\"r\"(txc_smem(%s)), ", id == IN_TMA_LOAD ? "dst" : "src");
		op++;
	}
	if (id == IN_TMA_LOAD) {
		bputs(&params, "void* bar, ");
		bputs(&in, "\"r\"(txc_smem(bar)), ");
		op++;
	}
	int map_op = op++;
	bputs(&params, "const void* map");
	bputs(&in, "\"l\"(map)");
	for (int i = 0; i < rank; i++) {
		bprintf(&params, ", int32_t c%d", i);
		bprintf(&in, ", \"r\"(c%d)", i);
		bprintf(&coords, "%s%%%d", i ? ", " : "", op++);
	}
	Buf info = {0};
	for (int i = 0; i < ninfo; i++) {
		bprintf(&params, ", uint16_t i%d", i);
		bprintf(&in, ", \"h\"(i%d)", i);
		bprintf(&info, "%s%%%d", i ? ", " : ", {", op++);
	}
	if (ninfo)
		bputs(&info, "}");
	const char *mc = "";
	if (mask) {
		bputs(&params, ", uint16_t cta_mask");
		bputs(&in, ", \"h\"(cta_mask)");
		mc = ".multicast::cluster";
	}
	if (hint) {
		bputs(&params, ", uint64_t policy");
		bputs(&in, ", \"l\"(policy)");
	}
	const char *h = hint ? ".L2::cache_hint" : "";
	const char *tail = "";
	if (mask)
		tail = xprintf(", %%%d", op++);
	if (hint)
		tail = xprintf("%s, %%%d", tail, op);
	const char *ptx;
	switch (id) {
	case IN_TMA_LOAD:
		ptx = xprintf("cp.async.bulk.tensor.%dd.%s.global.%s.mbarrier::complete_tx::bytes%s%s [%%0], "
		              "[%%%d, {%s}], [%%1]%s%s;", rank, space, lm, mc, h, map_op, coords.s, info.s ? info.s : "", tail);
		break;
	case IN_TMA_STORE:
		ptx = xprintf("cp.async.bulk.tensor.%dd.global.shared::cta.%s.bulk_group%s [%%%d, {%s}], [%%0]%s;", rank, lm, h,
		              map_op, coords.s, tail);
		break;
	case IN_TMA_REDUCE:
		ptx = xprintf("cp.reduce.async.bulk.tensor.%dd.global.shared::cta.%s.%s.bulk_group%s [%%%d, {%s}], [%%0]%s;",
		              rank, red, lm, h, map_op, coords.s, tail);
		break;
	default:
		ptx = xprintf("cp.async.bulk.prefetch.tensor.%dd.L2.global.%s%s [%%%d, {%s}]%s%s;", rank, lm, h, map_op,
		              coords.s, info.s ? info.s : "", tail);
		break;
	}
	asm_in(g, name.s, params.s, ptx, in.s);
	Buf call = {0};
	bprintf(&call, "%s(", name.s);
	for (int k = 1; k < map; k++)
		bprintf(&call, "%s, ", address(g, e->args[k]).s);
	if (param_map(g, e->args[map]))
		bprintf(&call, "&%s", cname(e->args[map]->str));
	else
		bputs(&call, address(g, e->args[map]).s);
	for (int k = map + 1; k < e->nargs; k++)
		bprintf(&call, ", %s", k > map + rank ? xprintf("(uint16_t)(%s)", cx(g, e->args[k], DT_INT32).s) :
		        cx(g, e->args[k], DT_INT32).s);
	if (mask)
		bprintf(&call, ", %s", cx(g, mask, DT_UINT16).s);
	if (hint)
		bprintf(&call, ", %s", cx(g, hint, DT_UINT64).s);
	bputs(&call, ");");
	line(g, call.s);
}

static void call_stmt(Gen *g, const Expr *e)
{
	int64_t n;
	int dt, id = e->kind == E_CALL ? resolve(g, e, &dt) : -1;
	const char *s;
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (fixed[i].id == id) {
			fixed_call(g, e, &fixed[i]);
			return;
		}
	switch (id) {
	case IN_EVALUATE:
		if (!evaluated_value(e->args[0])) {
			call_stmt(g, e->args[0]);
			return;
		}
		/* T.evaluate(value): read for nothing, which nvcc may drop */
		line(g, xprintf("(void)(%s);", cx(g, e->args[0], e->args[0]->dtype).s));
		return;
	case IN_DEVICE_ENTRY: case IN_CTA_ID: case IN_CTA_ID_IN_CLUSTER: case IN_CLUSTER_ID: case IN_THREAD_ID: case IN_WARP_ID: case IN_LANE_ID: case IN_WARPGROUP_ID:
	case IN_THREAD_ID_IN_WG: case IN_WARP_ID_IN_WG:
	case IN_ATTR: /* its meaning is in smem_bytes */
	case IN_MATCH_BUFFER: /* an unbound one: the parameter is declared with the kernel */
		return;
	case IN_ASSUME: /* the caller's promise, which the proofs used: a kernel given other values stops */
		line(g, xprintf("if (!(%s)) __trap();  // T.assume", cx(g, e->args[0], DT_BOOL).s));
		return;
	case IN_COPY: case IN_COPY_ASYNC: case IN_PREFETCH: case IN_GEMM_ASYNC:
		error_at(g->d, expr_start(e), "run txc-lower first: tile op not lowered");
		return;
	case IN_CTA_SYNC:
		line(g, "__syncthreads();");
		return;
	case IN_WARP_SYNC:
		line(g, "__syncwarp();");
		return;
	case IN_STORAGE_SYNC:
		s = const_str(g, e->args[0]); /* "shared", "shared.dyn" or "warp": sema checked it */
		line(g, strcmp(s, "warp") == 0 ? "__syncwarp();" : "__syncthreads();");
		return;
	case IN_COPY_BYTES:
		n = arg_int(g, e, 2, 16); /* 1, 2, 4, 8 or 16: sema checked it */
		if (e->nargs > 3 && strcmp(const_str(g, e->args[3]), "nc") != 0)
			line(g, xprintf("%s(%s, %s);", copy_quals_helper(g, n, const_str(g, e->args[3])), address(g, e->args[0]).s,
			                address(g, e->args[1]).s));
		else
			line(g, xprintf("%s(%s, %s);", copy_helper(g, n, e->nargs > 3), address(g, e->args[0]).s,
			                address(g, e->args[1]).s));
		return;
	case IN_ZERO_BYTES: {
		static const char *const vt[17] = { [1] = "uint8_t", [2] = "uint16_t", [4] = "uint32_t", [8] = "uint2",
		                                    [16] = "uint4" }, *const zero[17] = { [1] = "0", [2] = "0", [4] = "0",
		                                    [8] = "make_uint2(0, 0)", [16] = "make_uint4(0, 0, 0, 0)" };
		n = arg_int(g, e, 1, 16); /* 1, 2, 4, 8 or 16: sema checked it */
		line(g, xprintf("*(%s*)(%s) = %s;", vt[n], address(g, e->args[0]).s, zero[n]));
		return;
	}
	case IN_CP_ASYNC:
		cp_async(g, e);
		return;
	case IN_TMA_LOAD: case IN_TMA_STORE: case IN_TMA_REDUCE: case IN_TMA_PREFETCH:
		tma(g, e, id);
		return;
	case IN_TMAP_PREFETCH: /* the map: a __grid_constant__ parameter, by its generic address */
		asm_in(g, "txc_prefetch_tensormap", "const void* map", "prefetch.tensormap [%0];", "\"l\"(map)");
		line(g, xprintf("txc_prefetch_tensormap(&%s);", cname(e->args[0]->str)));
		return;
	case IN_TMAP_COPY:
		add(g, "txc_copy_tensormap", "// the 128 bytes of a kernel-parameter tensor map, as eight 16-byte words\n"
		    DEV "void txc_copy_tensormap(void* dst, const void* map)\n{\n"
		    "  for (int i = 0; i < 8; i++)\n    ((uint4*)dst)[i] = ((const uint4*)map)[i];\n}\n");
		line(g, xprintf("txc_copy_tensormap(%s, &%s);", address(g, e->args[0]).s, cname(e->args[1]->str)));
		return;
	case IN_TMAP_REPLACE:
		tmap_replace(g, e);
		return;
	case IN_TMAP_CP_FENCE:
		need_smem(g);
		asm_in(g, "txc_tensormap_cp_fenceproxy", "void* dst, const void* src",
		       "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;",
		       "\"l\"(__cvta_generic_to_global(dst)), \"r\"(txc_smem(src))");
		line(g, xprintf("txc_tensormap_cp_fenceproxy(%s, %s);", address(g, e->args[0]).s, address(g, e->args[1]).s));
		return;
	case IN_FENCE_TMAP:
		asm_in(g, "txc_fence_proxy_tensormap_acquire", "const void* map",
		       "fence.proxy.tensormap::generic.acquire.gpu [%0], 128;", "\"l\"(map)");
		line(g, xprintf("txc_fence_proxy_tensormap_acquire(%s);", address(g, e->args[0]).s));
		return;
	case IN_CP_WAIT: case IN_BULK_WAIT: {
		n = arg_int(g, e, 0, 0);
		bool bulk = id == IN_BULK_WAIT, read = bulk && kw_int(g, e, "read", 0); /* N from 0 to 63: sema checked it */
		s = asm0(g, xprintf("txc_cp_async%s_wait_group%s_%lld", bulk ? "_bulk" : "", read ? "_read" : "", (long long)n),
		         xprintf("cp.async%s.wait_group%s %lld;", bulk ? ".bulk" : "", read ? ".read" : "", (long long)n));
		line(g, xprintf("%s();", s));
		return;
	}
	case IN_MBAR_WAIT:
		need_smem(g);
		add(g, "txc_mbarrier_try_wait",
		    "// waits until the phase with this parity completes (try_wait may time out: loop)\n"
		    DEV "void txc_mbarrier_try_wait(void* bar, uint32_t parity)\n{\n  uint32_t done = 0;\n  while (!done)\n"
		    "    asm volatile(\"{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }\"\n"
		    "                 : \"=r\"(done)\n                 : \"r\"(txc_smem(bar)), \"r\"(parity)\n                 : \"memory\");\n}\n");
		line(g, xprintf("txc_mbarrier_try_wait(%s, %s);", address(g, e->args[0]).s, cx(g, e->args[1], DT_UINT32).s));
		return;
	case IN_FENCE_ASYNC: {
		/* "shared::cta", "shared::cluster", "global" or "": sema checked it */
		s = e->nargs ? const_str(g, e->args[0]) : "shared::cta";
		const char *name = !*s ? "txc_fence_proxy_async" : !strcmp(s, "global") ? "txc_fence_proxy_async_global" :
		                   !strcmp(s, "shared::cta") ? "txc_fence_proxy_async_shared_cta" :
		                   "txc_fence_proxy_async_shared_cluster";
		line(g, xprintf("%s();", asm0(g, name, xprintf("fence.proxy.async%s%s;", *s ? "." : "", s))));
		return;
	}
	case IN_TC_LD: case IN_TC_ST:
		tcgen05_ldst(g, e, id == IN_TC_LD);
		return;
	case IN_TC_CP:
		tcgen05_cp(g, e);
		return;
	case IN_TC_SMEM_DESC:
		smem_desc(g, e);
		return;
	case IN_TC_MMA:
		tcgen05_mma(g, e);
		return;
	case IN_TC_IDESC_BS:
		instr_desc_bs(g, e);
		return;
	case IN_TC_IDESC:
		instr_desc(g, e);
		return;
	case IN_BAR_SYNC: case IN_BAR_ARRIVE: {
		bool al = kw_int(g, e, "aligned", 0), count = e->nargs > 1;
		const char *op = id == IN_BAR_SYNC ? "sync" : "arrive";
		const char *name = xprintf("txc_barrier_%s%s%s", op, al ? "_aligned" : "", count ? "_count" : "");
		asm_in(g, name, count ? "uint32_t id, uint32_t count" : "uint32_t id",
		       xprintf("barrier.%s%s %%0%s;", op, al ? ".aligned" : "", count ? ", %1" : ""),
		       count ? "\"r\"(id), \"r\"(count)" : "\"r\"(id)");
		line(g, xprintf("%s(%s%s%s);", name, cx(g, e->args[0], DT_UINT32).s, count ? ", " : "",
		                count ? cx(g, e->args[1], DT_UINT32).s : ""));
		return;
	}
	case IN_ST_SHARED_V4:
		asm_in(g, "txc_st_shared_v4_f32", "void* p, float a, float b, float c, float d",
		       "st.shared.v4.f32 [%0], {%1, %2, %3, %4};",
		       "\"r\"(txc_smem(p)), \"f\"(a), \"f\"(b), \"f\"(c), \"f\"(d)");
		line(g, xprintf("txc_st_shared_v4_f32(%s, %s, %s, %s, %s);", address(g, e->args[0]).s,
		                cx(g, e->args[1], DT_FLOAT32).s, cx(g, e->args[2], DT_FLOAT32).s, cx(g, e->args[3], DT_FLOAT32).s,
		                cx(g, e->args[4], DT_FLOAT32).s));
		return;
	case IN_LDMATRIX: case IN_STMATRIX:
		ldst_matrix(g, e, id == IN_LDMATRIX);
		return;
	case IN_LD_SHARED_V4:
		need_smem(g);
		add(g, "txc_ld_shared_v4_f32", DEV "void txc_ld_shared_v4_f32(float& a, float& b, float& c, float& d, const void* p)\n{\n"
		    "  asm volatile(\"ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\"\n"
		    "               : \"=f\"(a), \"=f\"(b), \"=f\"(c), \"=f\"(d)\n               : \"r\"(txc_smem(p))\n"
		    "               : \"memory\");\n}\n");
		line(g, xprintf("txc_ld_shared_v4_f32(%s, %s, %s, %s, %s);", element(g, e->args[0], NULL),
		                element(g, e->args[1], NULL), element(g, e->args[2], NULL), element(g, e->args[3], NULL),
		                address(g, e->args[4]).s));
		return;
	case IN_BULK_S2C:
		need_smem(g);
		add(g, "txc_bulk_s2c", "// bytes of this CTA's shared memory into the same place of CTA `rank`'s, completing\n"
		    "// on the mbarrier at the place of `bar` there (mapa.shared::cluster maps both)\n"
		    DEV "void txc_bulk_s2c(void* dst, const void* src, uint32_t bytes, void* bar, uint32_t rank)\n{\n"
		    "  uint32_t d, b;\n"
		    "  asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(d) : \"r\"(txc_smem(dst)), \"r\"(rank));\n"
		    "  asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(b) : \"r\"(txc_smem(bar)), \"r\"(rank));\n"
		    "  asm volatile(\"cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\"\n"
		    "               :: \"r\"(d), \"r\"(txc_smem(src)), \"r\"(bytes), \"r\"(b) : \"memory\");\n}\n");
		line(g, xprintf("txc_bulk_s2c(%s, %s, %lldu, %s, %s);", address(g, e->args[0]).s, address(g, e->args[1]).s,
		                (long long)arg_int(g, e, 2, 16), address(g, e->args[3]).s, cx(g, e->args[4], DT_UINT32).s));
		return;
	case IN_MAPA: {
		add(g, "txc_mapa", "// the address of the same shared variable in CTA `rank` of the cluster\n"
		    DEV "uint64_t txc_mapa(const void* p, uint32_t rank)\n{\n  uint64_t d;\n"
		    "  asm volatile(\"mapa.u64 %0, %1, %2;\" : \"=l\"(d) : \"l\"(p), \"r\"(rank));\n  return d;\n}\n");
		line(g, xprintf("%s = (%s)txc_mapa(%s, %s);", element(g, e->args[0], NULL), ctype(g, e->args[0]->dtype),
		                address(g, e->args[1]).s, cx(g, e->args[2], DT_UINT32).s));
		return;
	}
	case IN_MBAR_TRY_PARITY: {
		bool hint = e->nargs > 3;
		const char *name = hint ? "txc_mbarrier_try_wait_parity_hint" : "txc_mbarrier_try_wait_parity";
		if (!have(g, name)) {
			need_smem(g);
			add(g, name, xprintf("// one try: 1 when the phase with this parity has completed\n"
			    DEV "uint32_t %s(void* bar, uint32_t parity%s)\n{\n  uint32_t done;\n"
			    "  asm volatile(\"{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%%1], %%2%s; selp.u32 %%0, 1, 0, p; }\"\n"
			    "               : \"=r\"(done)\n               : \"r\"(txc_smem(bar)), \"r\"(parity)%s\n"
			    "               : \"memory\");\n  return done;\n}\n", name, hint ? ", uint32_t hint" : "",
			    hint ? ", %3" : "", hint ? ", \"r\"(hint)" : ""));
		}
		line(g, xprintf("%s = (%s)%s(%s, %s%s%s);", element(g, e->args[0], NULL), ctype(g, e->args[0]->dtype), name,
		                address(g, e->args[1]).s, cx(g, e->args[2], DT_UINT32).s, hint ? ", " : "",
		                hint ? cx(g, e->args[3], DT_UINT32).s : ""));
		return;
	}
	}
	error_at(g->d, expr_start(e), "'%s' has no CUDA form", e->kind == E_CALL ? expr_str(e->a) : expr_str(e));
}

/* buf[i, j] = v, or buf[i, j] op= v. */
static void store(Gen *g, Expr *t, Expr *v, int op)
{
	Buffer *b = NULL;
	const char *lhs = element(g, t, &b);
	if (!b)
		return;
	int dt = b->dtype;
	if (op < 0) {
		line(g, xprintf("%s = %s;", lhs, cx(g, v, dt).s));
	} else if (op == OP_FLOORDIV || op == OP_MOD || op == OP_POW || low_is_fp8(dt)) {
		Expr e = { .kind = E_BIN, .pos = t->pos, .op = op, .a = t, .b = v, .dtype = dt };
		line(g, xprintf("%s = %s;", lhs, cx(g, &e, dt).s));
	} else {
		line(g, xprintf("%s %s= %s;", lhs, op_spelling[op], cx(g, v, dt).s));
	}
}

static void declare(Gen *g, Buffer *b)
{
	bind(g, b->name, b);
	Buffer *r = buffer_root(b);
	const char *T = ctype(g, b->dtype), *n = cname(b->name);
	if (b->is_param)
		return;
	if (r->scope == SC_TMEM) {
		line(g, xprintf("// %s: tensor memory at %s, read and written by tcgen05 only", b->name, expr_str(r->alloc_addr)));
		return;
	}
	if (!g->counting && !buf_used(g, b))
		return;
	if (b->base)
		line(g, xprintf("%s* %s = %s%s;  // the storage of %s", T, n, b->dtype == r->dtype ? "" : xprintf("(%s*)", T),
		                cname(r->name), r->name));
	else if (scopes[b->scope].flags & SCF_SHARED) {
		g->shared = true;
		line(g, xprintf("%s* %s = (%s*)(smem + %lld);", T, n, T, (long long)b->smem_off));
	} else if (b->scope == SC_LOCAL) {
		int64_t k = buffer_storage(b);
		line(g, xprintf("__align__(%lld) %s %s[%lld];", (long long)(b->align > 16 ? b->align : 16), T, n,
		                (long long)(k > 0 ? k : 1)));
	} else {
		error_at(g->d, b->pos, "buffer '%s' in %s memory has no CUDA form", b->name, scopes[b->scope].name);
	}
}

static void assign(Gen *g, Stmt *s)
{
	Expr **t = s->targets, *v = s->value;
	int nt = s->ntargets, dt;
	if (nt == 1 && t[0]->kind == E_TUPLE && !t[0]->paren) {
		nt = t[0]->nargs;
		t = t[0]->args;
	}
	if (nt == 1 && t[0]->kind == E_INDEX) {
		store(g, t[0], v, -1);
		return;
	}
	int id = v->kind == E_CALL ? resolve(g, v, &dt) : -1;
	if (is_launch_id(id)) {
		for (int i = 0; i < nt; i++) {
			bool used = g->counting;
			for (int k = 0; k < g->nvars; k++)
				used |= g->vars[k]->launch == id && strcmp(g->vars[k]->name, t[i]->str) == 0;
			bind(g, t[i]->str, NULL);
			const char *rhs = grid_launch(id) ? grid_id(g, grid_launch(id), i) : launch_cuda(thread_launch(id));
			if (used)
				line(g, xprintf("const int %s = %s;", cname(t[i]->str), rhs));
		}
		return;
	}
	if (id == IN_TENSORMAP || id == IN_TENSORMAP_IM2COL)
		return; /* a kernel parameter, encoded by the host */
	if (v->kind == E_CALL && (id >= 0 || (v->a->kind == E_ATTR && strcmp(v->a->str, "view") == 0)))
		for (int i = 0; i < g->f->nbufs; i++)
			if (g->f->bufs[i]->decl == v) {
				declare(g, g->f->bufs[i]);
				return;
			}
	if (nt == 1 && t[0]->kind == E_NAME && t[0]->var && t[0]->var->mut) {
		/* a mutable variable: declared at its first assignment, stored to after */
		Var *var = t[0]->var;
		const char *rhs = cx(g, v, var->dtype).s;
		if (var->pos.off == t[0]->pos.off && var->pos.line == t[0]->pos.line) {
			bind(g, t[0]->str, NULL);
			line(g, xprintf("%s %s = %s;", stype(g, var->dtype), cname(t[0]->str), rhs));
		} else {
			line(g, xprintf("%s = %s;", cname(t[0]->str), rhs));
		}
		return;
	}
	if (nt == 1 && t[0]->kind == E_NAME && v->dtype != DT_NONE) {
		dt = low_concrete(v->dtype);
		const char *rhs = cx(g, v, dt).s;
		bind(g, t[0]->str, NULL);
		if (dt == DT_HANDLE)
			line(g, xprintf("void* %s = %s;", cname(t[0]->str), rhs));
		else
			line(g, xprintf("const %s %s = %s;", stype(g, dt), cname(t[0]->str), rhs));
		return;
	}
	/* compile-time constants and names of regions: no code */
	for (int i = 0; i < nt; i++) {
		if (t[i]->kind != E_NAME)
			continue;
		Bind *x = bind(g, t[i]->str, NULL);
		if (nt == 1) {
			x->is_int = const_int(g, v, &x->ival);
			x->str = const_str(g, v);
			x->is_str = x->str != NULL;
		}
	}
}

static bool has_load(const Expr *e)
{
	if (!e)
		return false;
	if (e->kind == E_INDEX || e->kind == E_CALL)
		return !e->val;
	return has_load(e->a) || has_load(e->b) || has_load(e->c);
}

static void for_stmt(Gen *g, Stmt *s)
{
	Expr *it = s->value;
	/* sema's dtype of the variable: the bounds', int64 past int32 */
	int dt = s->targets[0]->var ? s->targets[0]->var->dtype : DT_INT32, id = low_call_id(it);
	int64_t step = 1;
	if (it->nargs == 3)
		step = arg_int(g, it, 2, 1);
	const char *lo = it->nargs > 1 ? cx(g, it->args[0], dt).s : "0";
	const char *hi = cx(g, it->args[it->nargs > 1], dt).s;
	const char *v = cname(s->targets[0]->str), *T = stype(g, dt), *end = hi;
	if (id == IN_UNROLL)
		line(g, "#pragma unroll");
	if (has_load(it->args[it->nargs > 1])) /* range() reads its bound once */
		for (end = xprintf("%s_end", v); lookup(g, end); end = xprintf("%s_", end))
			;
	line(g, xprintf("for (%s %s = %s%s; %s < %s; %s) {", T, v, lo, end != hi ? xprintf(", %s = %s", end, hi) : "", v, end,
	                step == 1 ? xprintf("++%s", v) : xprintf("%s += %lld", v, (long long)step)));
	int mark = names_mark(&g->binds);
	bind(g, s->targets[0]->str, NULL);
	block(g, s->body, s->nbody);
	names_pop(&g->binds, mark);
	line(g, "}");
}

static void stmt(Gen *g, Stmt *s)
{
	switch (s->kind) {
	case S_EXPR:
		call_stmt(g, s->value);
		return;
	case S_ASSIGN:
		if (stmt_names_param(s))
			return; /* m = T.int32(): a scalar parameter */
		assign(g, s);
		return;
	case S_AUGASSIGN:
		if (s->targets[0]->kind == E_NAME && s->targets[0]->var) {
			/* x op= v of a mutable variable */
			Expr *t = s->targets[0];
			int dt = t->var->dtype;
			Expr e = { .kind = E_BIN, .pos = s->pos, .op = s->op, .a = t, .b = s->value, .dtype = dt };
			line(g, xprintf("%s = %s;", cname(t->str), cx(g, &e, dt).s));
			return;
		}
		store(g, s->targets[0], s->value, s->op);
		return;
	case S_DECL:
		/* `x: T.int32`: starts at 0, as in the emulator */
		if (s->targets[0]->var) {
			bind(g, s->targets[0]->str, NULL);
			line(g, xprintf("%s %s = 0;", stype(g, s->targets[0]->var->dtype), cname(s->targets[0]->str)));
		}
		return;
	case S_IF:
		line(g, xprintf("if (%s) {", cx(g, s->value, DT_BOOL).s));
		for (;;) {
			block(g, s->body, s->nbody);
			if (s->norelse == 1 && s->orelse[0]->kind == S_IF) {
				s = s->orelse[0];
				line(g, xprintf("} else if (%s) {", cx(g, s->value, DT_BOOL).s));
				continue;
			}
			if (s->norelse) {
				line(g, "} else {");
				block(g, s->orelse, s->norelse);
			}
			break;
		}
		line(g, "}");
		return;
	case S_FOR:
		for_stmt(g, s);
		return;
	case S_WHILE: {
		/* the condition inside the loop: what cx writes before it runs
		 * at every trip */
		line(g, "for (;;) {");
		g->indent++;
		line(g, xprintf("if (!(%s))", cx(g, s->value, DT_BOOL).s));
		g->indent++;
		line(g, "break;");
		g->indent -= 2;
		block(g, s->body, s->nbody);
		line(g, "}");
		return;
	}
	default:
		return;
	}
}

/* ---- kernels and the file -------------------------------------------------------- */

static void kernel(Gen *g, Stmt *s, Buf *out)
{
	Func *f = s->func;
	/* the library's rule: the plan, plus 1024 when the base must be rounded */
	int64_t bytes = smem_bytes(f);
	Buf body = {0};
	g->f = f;
	g->buf_used = xalloc(sizeof(bool) * (size_t)(f->nbufs + 1));
	g->nvars = 0;
	for (int pass = 0; pass < 2; pass++) {
		body = (Buf){0};
		g->out = &body;
		g->counting = pass == 0;
		names_pop(&g->binds, 0);
		g->indent = 0;
		g->shared = false;
		for (int i = 0; i < f->nparams; i++)
			bind(g, f->params[i]->name, f->params[i]);
		for (int i = 0; i < f->nscalars; i++)
			bind(g, f->scalars[i]->name, NULL);
		block(g, s->body, s->nbody);
		if (g->d->errors)
			return;
	}
	bprintf(out, "\n// %s: grid %s, block (%lld, 1, 1), %lld bytes of dynamic shared memory\n", cname(f->name),
	        low_grid_str(f), (long long)f->threads, (long long)bytes);
	/* the cluster shape is compiled in: cuLaunchKernel launches such a
	 * kernel in clusters of that shape (runtime/txc-run.c) */
	const char *cluster = !f->has_cluster ? "" :
	                      xprintf("__cluster_dims__(%lld, %lld, %lld) ", (long long)f->cluster[0],
	                              (long long)f->cluster[1], (long long)f->cluster[2]);
	if (f->has_cluster)
		bprintf(out, "// in clusters of (%lld, %lld, %lld) CTAs\n", (long long)f->cluster[0], (long long)f->cluster[1],
		        (long long)f->cluster[2]);
	bprintf(out, "extern \"C\" __global__ void %s__launch_bounds__(%lld) %s(", cluster, (long long)f->threads, cname(f->name));
	if (f->ntmaps)
		add(g, "txc_tensormap", "// a TMA tensor map (CUtensorMap), encoded by the host and passed by value\n"
		    "struct __align__(64) txc_tensormap { uint64_t opaque[16]; };\n");
	/* the signature's order: buffers as pointers, scalar parameters by
	 * value, then the tensor maps */
	for (int i = 0; i < f->nsig; i++) {
		const char *sep = i ? (f->nsig > 3 ? ",\n    " : ", ") : f->nsig > 3 ? "\n    " : "";
		if (f->sig[i] == 'b') {
			Buffer *b = f->params[f->sig_at[i]];
			bprintf(out, "%s%s* __restrict__ %s", sep, ctype(g, b->dtype), cname(b->name));
		} else if (f->sig[i] == 't') {
			bprintf(out, "%sconst __grid_constant__ txc_tensormap %s", sep, cname(f->tmaps[f->sig_at[i]]->name));
		} else {
			Var *v = f->scalars[f->sig_at[i]];
			bprintf(out, "%s%s %s", sep, stype(g, v->dtype), cname(v->name));
		}
	}
	bputs(out, ")\n{\n");
	if (g->shared) {
		bputs(out, "  extern __shared__ __align__(1024) unsigned char smem_raw[];\n");
		if (smem_rounds_base(f))
			bputs(out, "  // swizzled buffers (the hardware swizzles absolute addresses) or align= above 16: start on 1024 bytes\n"
			           "  unsigned char* smem = smem_raw + ((1024 - (__cvta_generic_to_shared(smem_raw) & 1023)) & 1023);\n");
		else
			bputs(out, "  unsigned char* smem = smem_raw;\n");
	}
	bputs(out, body.s ? body.s : "");
	bputs(out, "}\n");
}

static bool emit(Gen *g, Buf *out, const char *src, const char *arch)
{
	Buf kernels = {0};
	for (int i = 0; i < g->m->nbody; i++)
		if (g->m->body[i]->kind == S_FUNC && g->m->body[i]->func)
			kernel(g, g->m->body[i], &kernels);
	if (g->d->errors)
		return false;
	/* through a pipeline the text comes from stdin, and #@ comments name the source */
	if (strcmp(src, "<stdin>") == 0)
		src = module_file(g->m);
	bprintf(out, "// Generated by txc-cuda (txc %s) from %s for %s. Do not edit.\n", TXC_VERSION, src, arch);
	bputs(out, "// Launch each kernel with the grid, block and dynamic shared memory above it.\n\n");
	bputs(out, "#include <stdint.h>\n");
	for (int dt = 0; dt < DT_COUNT; dt++)
		if (g->header[dt] && *dtypes[dt].header)
			bprintf(out, "#include <%s>\n", dtypes[dt].header);
	if (g->fp8)
		bputs(out, "#include <cuda_fp8.h>\n");
	if (g->nhelpers)
		bputs(out, "\n// ---- prelude: the helpers this file calls, one PTX instruction each --------\n");
	for (int i = 0; i < g->nhelpers; i++)
		bprintf(out, "\n%s", g->helpers[i].text);
	bputs(out, "\n// ---- kernels ---------------------------------------------------------------\n");
	bputs(out, kernels.s ? kernels.s : "");
	return true;
}

bool txc_cuda_emit(Module *m, int tg, const char *arch, const char *from, Diag *d, Buf *out)
{
	(void)tg; /* the module's target (load_module's) */
	if (!find_kernel("txc-cuda", m, NULL))
		return false;
	Gen g = { .m = m, .d = d };
	g.low = (Low){ m, &g, low_name, "txc-cuda" };
	return emit(&g, out, from, arch);
}

#ifndef TXC_CHAIN
int main(int argc, char **argv)
{
	const char *arch = "sm_90a";
	Opt opts[] = {
		{ "--arch", "ARCH", "the GPU: sm_80, sm_90, sm_90a (default) or sm_100a; newer intrinsics are refused", &arch, NULL },
		{ 0 },
	};
	Cli c = { .prog = "txc-cuda", .opts = opts,
	          .summary = "Writes CUDA C for a lowered txc program (doc/txir.md, section 12): one extern \"C\" __global__\n"
	                     "function per kernel, after a prelude of the inline-PTX helpers it calls." };
	cli_parse(&c, argc, argv);
	int tg = target_lookup(arch);
	if (tg <= TG_ANY)
		cli_usage_error(&c, "unknown architecture '%s' (expected sm_80, sm_90, sm_90a or sm_100a)", arch);
	prove_accesses = true;
	Module *m = load_module(c.prog, c.input, tg, true);
	if (!m)
		return 1;
	Diag d;
	diag_init(&d, stderr);
	Buf out = {0};
	if (!txc_cuda_emit(m, tg, arch, m->src->name, &d, &out))
		return 1;
	return write_file(c.prog, c.output, out.s, out.n) ? 0 : 1;
}
#endif
