/* Compile-time values: arithmetic, tuples, layouts written with S/R. */
#include "tap.h"

#define KERNEL "\n@T.prim_func\ndef k():\n    T.device_entry()\n"

static Module *module(const char *consts, char **d)
{
	char *diags;
	Module *m = verified(xprintf("%s%s", consts, KERNEL), &diags);
	if (d)
		*d = diags;
	return m;
}

static const char *one_line(const char *s)
{
	char *t = xstrdup(s);
	for (char *p = t; *p; p++)
		if (*p == '\n')
			*p = ';';
	return t;
}

static void int_is(const char *def, int64_t want)
{
	char *d;
	Module *m = module(def, &d);
	Value *v = m ? module_value(m, "x") : NULL;
	ok(v && v->kind == V_INT && v->i == want, "%s is %lld", one_line(def), (long long)want);
	if (!m)
		printf("#   %s", d);
	else if (v && v->kind == V_INT && v->i != want)
		printf("#   got %lld\n", (long long)v->i);
}

static void error_is(const char *def, const char *want)
{
	char *d;
	Module *m = module(def, &d);
	ok(!m && strstr(d, want), "%s: \"%s\"", one_line(def), want);
	if (m || !strstr(d, want))
		printf("#   got: %s\n", m ? "(accepted)" : d);
}

static Layout *layout_of(const char *def)
{
	char *d;
	Module *m = module(def, &d);
	Value *v = m ? module_value(m, "x") : NULL;
	if (!v || v->kind != V_LAYOUT) {
		printf("#   %s: %s\n", def, m ? "not a layout" : d);
		return NULL;
	}
	return v->layout;
}

static bool iter_list_is(const Iter *v, int n, const int64_t (*want)[3], int nwant)
{
	if (n != nwant)
		return false;
	for (int i = 0; i < n; i++)
		if (v[i].extent != want[i][0] || v[i].stride != want[i][1] || v[i].axis != want[i][2])
			return false;
	return true;
}

void test_eval(void)
{
	int_is("x = 7 // 2", 3);
	int_is("x = -7 // 2", -4);
	int_is("x = -7 % 2", 1);
	int_is("x = 7 % -2", -1);
	int_is("x = 2 ** 10", 1024);
	int_is("x = 1 << 62", (int64_t)1 << 62);
	int_is("x = -1 >> 70", -1);
	int_is("x = (6 & 3) | (8 ^ 1)", 11);
	int_is("x = (128, 32)[1]", 32);
	int_is("x = (128, 32)[-2]", 128);
	int_is("x = 3 if 1 < 2 else 4", 3);
	int_is("shape = (4, 8)\nx = shape[0] * shape[1]", 32);
	int_is("a, b = 3, 4\nx = a * b", 12);
	int_is("t = (1, 2) + (3,)\nx = t[2]", 3);
	/* names of Python modules over constants, computed by hand */
	int_is("import tvm\nx = tvm.DataType(\"bfloat16\").bits // 8", 2);
	int_is("import tvm\nx = tvm.runtime.DataType(\"float8_e4m3fn\").bits", 8);
	int_is("import math\nx = math.prod((4, 8, 3))", 96);
	int_is("import math\nx = math.gcd(4096, 384, -48)", 16);
	int_is("import math\nx = math.ceil(2.5) * 10 + math.floor(-2.5)", 27);
	int_is("import math\nx = math.ceil(-2.5) + math.floor(2.5)", 0);
	error_is("import math\nx = math.sqrt(4)", "'math.sqrt' is not a name of module 'math' that txc knows");
	error_is("x = 2 ** 63", "integer overflow in constant expression");
	error_is("x = 9223372036854775807 + 1", "integer overflow in constant expression");
	error_is("x = 1 // 0", "division by zero");
	error_is("x = 1 / 2", "'/' on integers; use '//'");
	error_is("x = (1, 2)[2]", "tuple index 2 out of range");
	error_is("x = y", "name 'y' is not defined");
	error_is("x = 1 @ 2", "'@' makes a layout stride");
	error_is("a, b = 1, 2, 3", "cannot unpack 3 values into 2 names");
	error_is("x = 1\nx = 2", "'x' is already defined (line 1)");

	/* TVMScript's Python subset (pyconst.c) */
	int_is("shape = (4, 8, 2)\nx = len(shape) * 100 + shape[::-1][0] * 10 + shape[1:][-1]", 322);
	int_is("x = int(\"1111\", 2) + int(\"0x10\", 0) + int(\" -3 \") + int(2.9)", 15 + 16 - 3 + 2);
	int_is("x = max((3, 9, 4)) + min(5, 2, 7) * 100", 209);
	int_is("s = (64, 32)\nx = len([d * 2 for d in s if d > 40])", 1);
	int_is("cfg = {\"a\": 1, \"b\": 2}\nx = {**cfg, \"b\": 5}[\"b\"]", 5);
	int_is("x = len(f\"x{3:04d}{'ab'!r}\")", 9);
	int_is("t = tuple(slice(0, d) for d in (4, 8))\nx = len((*t, 1))", 3);
	int_is("x = [i * j for i in range(3) for j in range(1, 3)][-1]", 4);
	int_is("x = {k: v for k, v in zip((\"a\", \"b\"), (1, 2))}[\"b\"]", 2);
	int_is("x = list(enumerate((7, 8), 1))[1][0]", 2);
	int_is("x = len((0,) * 5) + len(\"abc\"[::2])", 7);
	error_is("x = int(\"12\", 40)", "int() base must be >= 2 and <= 36, or 0");
	error_is("x = int(\"12\", 2)", "invalid literal for int() with base 2: '12'");
	error_is("x = {\"a\": 1}[\"b\"]", "key 'b' is not in the dict");
	error_is("x = (1, 2)[::0]", "slice step cannot be zero");
	error_is("x = f\"{1:.2f}\"", "not supported yet: the format spec ':.2f'");
	error_is("x = [1 for a in range(2048) for b in range(1024)]", "a comprehension takes at most 1048576 steps");
	error_is("import numpy as np\nx = np.pi", "'np.pi' comes from module 'numpy', which txc does not know");

	Layout *l = layout_of("x = S[(8, 2, 4, 2) : (4 @ laneid, 1 @ warpid, 1 @ laneid, 1)] + R[2 : 4 @ warpid] + 5 @ warpid");
	static const int64_t shard[][3] = { { 8, 4, AX_LANEID }, { 2, 1, AX_WARPID }, { 4, 1, AX_LANEID }, { 2, 1, AX_M } };
	static const int64_t rep[][3] = { { 2, 4, AX_WARPID } };
	ok(l && iter_list_is(l->shard, l->nshard, shard, 4), "S[...] gives the shard iters in order");
	ok(l && iter_list_is(l->rep, l->nrep, rep, 1), "R[...] gives the replica iters");
	ok(l && l->off[AX_WARPID] == 5 && l->off[AX_M] == 0, "+ 5 @ warpid is an offset");
	int64_t n = 0;
	ok(l && layout_size(l, &n) && n == 128, "size is the product of the shard extents: 128");
	ok(l && layout_span(l, AX_LANEID, &n) && n == 32, "span(laneid) = 1 + 7*4 + 3*1 = 32");
	ok(l && layout_span(l, AX_WARPID, &n) && n == 11, "span(warpid) = 1 + 1 + 4 + 5 = 11");
	l = layout_of("x = S[128, 32]");
	static const int64_t rm[][3] = { { 128, 32, AX_M }, { 32, 1, AX_M } };
	ok(l && iter_list_is(l->shard, l->nshard, rm, 2), "S[128, 32] is row-major on m");
	l = layout_of("shape = (4, 2, 3)\nx = TileLayout(S[shape])");
	static const int64_t rm3[][3] = { { 4, 6, AX_M }, { 2, 3, AX_M }, { 3, 1, AX_M } };
	ok(l && iter_list_is(l->shard, l->nshard, rm3, 3), "S[shape] with a named shape");
	l = layout_of("x = TileLayout(S[64] + 64)");
	ok(l && l->off[AX_M] == 64 && layout_span(l, AX_M, &n) && n == 128, "an integer offset is on m");
	l = layout_of("x = ComposeLayout(3, 3, 3, S[512])");
	ok(l && l->swizzled && l->swz_m == 3 && l->swz_b == 3 && l->swz_s == 3, "ComposeLayout records M, B, S");
	const char *texts[] = {
		"S[(8, 2, 4, 2) : (4 @ laneid, 1 @ warpid, 1 @ laneid, 1)] + R[2 : 4 @ warpid] + 5 @ warpid",
		"S[8 : 4 @ laneid] + 1 @ laneid + 64", "ComposeLayout(3, 3, 3, S[(64, 4, 64) : (64, 4096, 1)])",
		"S[1] + R[(2, 2) : (1 @ tx, 4 @ tx)]", "S[(128, 8) : (1 @ TLane, 1 @ TCol)] + 16 @ TLane",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		Layout *a = layout_of(xprintf("x = %s", texts[i]));
		char *back = a ? layout_str(a) : NULL;
		is_str(back, texts[i], "layout_str gives back the text of %s", texts[i]);
	}
	error_is("x = S[(2, 3) : (1,)]", "layout has 2 extents but 1 stride");
	error_is("x = S[(2, 0)]", "layout extent 0 is not positive");
	error_is("x = S[4 : -1]", "layout stride -1 is negative");
	error_is("x = S[4] + S[4]", "a layout has one shard");
	error_is("x = TileLayout(R[2 : 1 @ laneid])", "TileLayout needs a shard");
	error_is("x = ComposeLayout(3, 3, 2, S[512])", "the atom shift S (2) must be at least the swizzle length B (3)");
	error_is("x = S[4] + 1.5", "cannot add a float to a layout");
	error_is("x = S[4 : \"a\"]", "a layout stride is an integer or 'n @ axis'");
	error_is("x = S[(1 << 40, 1 << 40)]", "layout is too large");
}
