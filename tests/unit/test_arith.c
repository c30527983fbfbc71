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

void test_arith(void)
{
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
}
