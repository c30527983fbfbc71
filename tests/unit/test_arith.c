/* Integer facts about index expressions: ranges and the divisibility
 * analysis that later passes use to prove alignment. */
#include "tap.h"

/* Verifies a kernel with body `body` and returns the region of the source
 * (second) operand of its `which`-th tile op. */
static Value *src_region(const char *body, int which)
{
	const char *text = xprintf(
	    "from tvm.script import tirx as T\n@T.prim_func\ndef k(A_ptr: T.handle):\n"
	    "    A = T.match_buffer(A_ptr, (4096, 4096), \"float16\")\n    T.device_entry()\n"
	    "    bx = T.cta_id([32])\n    tid = T.thread_id([128])\n"
	    "    S0 = T.alloc_shared((128, 64), \"float16\")\n%s", body);
	char *d;
	Module *m = verified(text, &d);
	if (!m) {
		printf("#   %s", d);
		return NULL;
	}
	Stmt *f = m->body[1];
	int n = 0;
	/* the tile ops, in order, at any depth */
	Stmt *stack[64];
	int sp = 0;
	for (int i = f->nbody - 1; i >= 0; i--)
		stack[sp++] = f->body[i];
	while (sp) {
		Stmt *s = stack[--sp];
		if (s->kind == S_EXPR && s->value->kind == E_CALL && s->value->nargs == 2 && s->value->args[1]->val &&
		    s->value->args[1]->val->kind == V_REGION && n++ == which)
			return s->value->args[1]->val;
		for (int i = s->nbody - 1; i >= 0 && sp < 64; i--)
			stack[sp++] = s->body[i];
	}
	return NULL;
}

/* Elements between row starts of A: the start (r, c) is at r * 4096 + c. */
static int64_t start_multiple(Value *r)
{
	int64_t a = expr_multiple(r->starts[0]), b = expr_multiple(r->starts[1]);
	int64_t rows = a * 4096;
	while (b) {
		int64_t t = rows % b;
		rows = b;
		b = t;
	}
	return rows;
}

/* int_binop against Python's results, worked by hand: -7 // 2 = -4,
 * -7 % 2 = 1, 7 % -2 = -1, -1 >> 70 = -1, 3 << 2 = 12. */
static void python_ints(void)
{
	int64_t r = 0;
	ok(int_binop(OP_FLOORDIV, -7, 2, &r) && r == -4, "-7 // 2 is -4 (floor)");
	ok(int_binop(OP_MOD, -7, 2, &r) && r == 1, "-7 %% 2 is 1");
	ok(int_binop(OP_MOD, 7, -2, &r) && r == -1, "7 %% -2 is -1");
	ok(int_binop(OP_FLOORDIV, 7, 2, &r) && r == 3, "7 // 2 is 3");
	ok(int_binop(OP_SHR, -1, 70, &r) && r == -1, "-1 >> 70 is -1");
	ok(int_binop(OP_SHL, 3, 2, &r) && r == 12, "3 << 2 is 12");
	ok(!int_binop(OP_FLOORDIV, 1, 0, &r), "a division by zero has no value");
	ok(!int_binop(OP_FLOORDIV, INT64_MIN, -1, &r), "INT64_MIN // -1 overflows");
	ok(!int_binop(OP_MUL, INT64_MAX, 2, &r), "an overflowing product has no value");
	ok(!int_binop(OP_SHL, 1, 63, &r), "1 << 63 overflows int64");
	ok(!int_binop(OP_SHR, 1, -1, &r), "a negative shift count has no value");
	ok(int_binop(OP_LT, -1, 0, &r) && r == 1, "a comparison is 0 or 1");
	/* the hierarchy: thread 300 of a CTA is lane 12 of warp 9, thread 44
	 * and warp 1 of warpgroup 2 */
	is_int(axis_value(AX_LANEID, 300), 12, "thread 300: lane 12");
	is_int(axis_value(AX_WARPID, 300), 9, "thread 300: warp 9");
	is_int(axis_value(AX_WGID, 300), 2, "thread 300: warpgroup 2");
	is_int(axis_value(AX_TIDINWG, 300), 44, "thread 300: thread 44 of its warpgroup");
	is_int(axis_value(AX_WIDINWG, 300), 1, "thread 300: warp 1 of its warpgroup");
	is_int(axis_count(AX_WIDINWG, 48), 2, "48 threads reach 2 warps of a warpgroup");
	is_int(axis_count(AX_LANEID, 256), 32, "a warp has 32 lanes");
	int64_t c[AX_COUNT] = { 0 };
	c[AX_LANEID] = 12, c[AX_WIDINWG] = 1;
	is_int(axes_thread(1u << AX_LANEID | 1u << AX_WIDINWG, c, 128, 511), 172, "lane 12 of warp 1 from thread 128: 172");
}

void test_arith(void)
{
	python_ints();
	Value *r = src_region("    Tx.cta.copy(S0[:, :], A[bx * 128 : bx * 128 + 128, 0:64])\n", 0);
	ok(r && expr_multiple(r->starts[0]) == 128, "bx * 128 is a multiple of 128");
	ok(r && expr_divisible(r->starts[0], 8) && r->extents[0] == 128, "so 16-byte (8 x float16) rows are aligned");

	r = src_region("    F = T.alloc_shared((8192,), \"float16\")\n"
	               "    G = A.view(16777216)\n"
	               "    Tx.cta.copy(F[0:8], G[bx * 128 * 64 + tid * 8 : bx * 128 * 64 + tid * 8 + 8])\n", 0);
	ok(r && expr_multiple(r->starts[0]) == 8, "bx * 128 * 64 + tid * 8: the gcd of 8192 and 8 is 8");
	ok(r && expr_divisible(r->starts[0], 8) && !expr_divisible(r->starts[0], 16), "a multiple of 8 elements, not provably of 16");

	r = src_region("    G = A.view(16777216)\n    for t in range(4):\n"
	               "        Tx.cta.copy(S0[0, 0:64], G[(bx * 4 + t) * 256 : (bx * 4 + t) * 256 + 64])\n", 0);
	ok(r && expr_multiple(r->starts[0]) == 256, "(bx * 4 + t) * 256 with a loop variable t: a multiple of 256");

	r = src_region("    At = A[bx * 128 : bx * 128 + 128, :]\n"
	               "    for t in range(4):\n"
	               "        Ar = At[t * 32 : t * 32 + 32, 64:128]\n"
	               "        Tx.cta.copy(S0[0:32, :], Ar[0:32, 0:64])\n", 0);
	ok(r && expr_multiple(r->starts[0]) == 32 && r->extents[0] == 32 && r->extents[1] == 64,
	   "through nested slices of a view: bx * 128 + t * 32 is a multiple of 32");
	ok(r && expr_multiple(r->starts[1]) == 64, "and the column start 64 is a multiple of 64");
	ok(r && start_multiple(r) == 64, "so the start address (in elements) is a multiple of 64");

	r = src_region("    for t in range(8, 64, 8):\n"
	               "        Tx.cta.copy(S0[0:1, 0:8], A[0, t : t + 8])\n", 0);
	ok(r && expr_multiple(r->starts[1]) == 8, "a loop from 8 by 8: its variable is a multiple of 8");

	r = src_region("    x = tid * 4\n    Tx.cta.copy(S0[0:1, 0:8], A[0, x * 2 : x * 2 + 8])\n", 0);
	ok(r && expr_multiple(r->starts[1]) == 8, "a let-bound name: x * 2 with x = tid * 4 is a multiple of 8");

	r = src_region("    Tx.cta.copy(S0[0:1, 0:2], A[0, bx * 3 + 1 : bx * 3 + 3])\n", 0);
	ok(r && !expr_divisible(r->starts[1], 2), "bx * 3 + 1 is refused: no 4-byte alignment of 2-byte elements");
	ok(r && expr_multiple(r->starts[1]) == 1, "nothing but 1 divides bx * 3 + 1");

	r = src_region("    Tx.cta.copy(S0[0:1, 0:8], A[0, tid // 2 * 8 : tid // 2 * 8 + 8])\n", 0);
	ok(r && expr_multiple(r->starts[1]) == 8, "an opaque tid // 2 times 8 is a multiple of 8");
	r = src_region("    Tx.cta.copy(S0[0:1, 0:8], A[0, (tid << 3) : (tid << 3) + 8])\n", 0);
	ok(r && expr_multiple(r->starts[1]) == 8, "tid << 3 is a multiple of 8");

	int64_t lo, hi;
	r = src_region("    y = bx // 4 * 128 + tid % 8\n    Tx.cta.copy(S0[0:1, 0:8], A[y, 0:8])\n", 0);
	ok(r && expr_range(r->starts[0], &lo, &hi) && lo == 0 && hi == 7 * 128 + 7, "range of bx // 4 * 128 + tid %% 8: [0, 903]");
	/* a grouped tile schedule (seed 004): bx in [0, 31], g = min(40 - bx, 8) in [8, 8] */
	r = src_region("    g = T.min(40 - bx, 8)\n    y = bx % g * 128 + bx // g\n"
	               "    Tx.cta.copy(S0[0:1, 0:8], A[y, 0:8])\n", 0);
	ok(r && expr_range(r->starts[0], &lo, &hi) && lo == 0 && hi == 7 * 128 + 3,
	   "range of bx %% g * 128 + bx // g, g = T.min(40 - bx, 8): [0, 899]");
	/* a run-time divisor in [1, 8]: the remainder is below 8 and at most the dividend */
	r = src_region("    g = T.max(T.min(8 - tid, 8), 1)\n    y = tid % g + bx % g * 16 + tid % 8 // g\n"
	               "    Tx.cta.copy(S0[0:1, 0:8], A[y, 0:8])\n", 0);
	ok(r && expr_range(r->starts[0], &lo, &hi) && lo == 0 && hi == 7 + 7 * 16 + 7,
	   "range of tid %% g + bx %% g * 16 + tid %% 8 // g, g in [1, 8]: [0, 126]");
	r = src_region("    g = T.min(tid, 8) + 1\n    y = 3 % g\n    Tx.cta.copy(S0[0:1, 0:8], A[y, 0:8])\n", 0);
	ok(r && expr_range(r->starts[0], &lo, &hi) && lo == 0 && hi == 3, "range of 3 %% g, g in [1, 9]: [0, 3]");
}
