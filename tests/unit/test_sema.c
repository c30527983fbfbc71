/* The checker: what a kernel's signature, launch and buffers come to, and
 * the errors of its rules. */
#include <stdlib.h>

#include "tap.h"

#define HEAD "from tvm.script import tirx as T\nfrom tvm.tirx.layout import S, TileLayout, laneid, TLane, TCol\n" \
             "@T.prim_func\ndef k(A_ptr: T.handle, B: T.Buffer((64, 32), \"float32\")):\n" \
             "    A = T.match_buffer(A_ptr, (128, 32), \"float16\")\n    T.device_entry()\n"

static Func *kernel_of(const char *body, char **d)
{
	char *text = xprintf(HEAD "%s", body);
	Module *m = verified(text, d);
	if (!m)
		return NULL;
	*d = "";
	for (int i = 0; i < m->nbody; i++)
		if (m->body[i]->kind == S_FUNC)
			return m->body[i]->func;
	return NULL;
}

static void accepts(const char *body, const char *name)
{
	char *d;
	ok(kernel_of(body, &d) != NULL, "accepts %s", name);
	if (*d)
		printf("#   %s", d);
}

static void rejects(const char *body, const char *want)
{
	char *d;
	Func *f = kernel_of(body, &d);
	ok(!f && strstr(d, want), "rejects with \"%s\"", want);
	if (f || !strstr(d, want))
		printf("#   got: %s\n", f ? "(accepted)" : d);
}

void test_sema(void)
{
	char *d;
	Func *f = kernel_of("    bx, by = T.cta_id([4, 2])\n    T.warp_id([4])\n    tid = T.thread_id([128])\n", &d);
	ok(f && f->grid[0] == 4 && f->grid[1] == 2 && f->grid[2] == 1, "T.cta_id([4, 2]) sets the grid");
	ok(f && f->threads == 128, "T.thread_id([128]): 128 threads");
	ok(f && f->nparams == 2 && !strcmp(f->params[0]->name, "A") && !strcmp(f->params[1]->name, "B"),
	   "parameters in signature order: A (matched), B (T.Buffer)");
	ok(f && f->params[0]->dtype == DT_FLOAT16 && f->params[0]->shape[0] == 128 && f->params[1]->dtype == DT_FLOAT32,
	   "parameter shapes and dtypes");
	f = kernel_of("    T.warpgroup_id([2])\n", &d);
	ok(f && f->threads == 256, "T.warpgroup_id([2]) alone: 256 threads");
	f = kernel_of("    X = T.alloc_shared((16, 16), \"float32\")\n    Y = X.view(256)\n", &d);
	ok(f && f->nbufs == 4 && f->bufs[3]->base == f->bufs[2] && f->bufs[3]->ndim == 1, "a view shares its base's storage");

	accepts("    tid = T.thread_id([32])\n    R = T.alloc_local((8,), \"float32\")\n"
	        "    V = R.view(32, 8, layout=TileLayout(S[(32, 8) : (1 @ laneid, 1)]))\n", "a register view");
	accepts("    tid = T.thread_id([128])\n    x = tid * 2 + 1\n    A[x // 2, 0] = T.float16(1)\n",
	        "a let-bound index within range");
	accepts("    bx = T.cta_id([4])\n    Tx.cta.copy(B[bx * 16 : bx * 16 + 16, 0:32], B[0:16, :])\n",
	        "a symbolic region within bounds");
	accepts("    Tx.cta.copy(A[0, 0:32], A[3, :])\n", "a region with an indexed dimension");
	accepts("    T.thread_id([128])\n    t = T.alloc_shared([1], \"uint32\")\n"
	        "    M = T.decl_buffer((128, 32), \"float32\", scope=\"tmem\", allocated_addr=t[0],"
	        " layout=TileLayout(S[(128, 32) : (1 @ TLane, 1 @ TCol)]))\n", "a tmem buffer");

	rejects("    bx = T.cta_id([5])\n    Tx.cta.copy(B[bx * 16 : bx * 16 + 16, 0:32], B[0:16, :])\n",
	        "starts in [0, 64] with extent 16, out of bounds (extent 64)");
	accepts("    Tx.cta.copy(A[0:128, 0:16], A[0:64, 0:32])\n", "regions of equal size, shaped otherwise");
	rejects("    Tx.cta.copy(A[0:128, 0:16], A[0:64, 0:16])\n",
	        "the destination region is 128x16 (2048 elements) but the source region is 64x16 (1024 elements)");
	rejects("    Tx.cta.copy(A[0:64, 0:32], B[0:64, 0:32])\n", "tile copies do not convert dtypes");
	rejects("    i = T.thread_id([64])\n    Tx.cta.copy(A[i:2 * i, 0:32], A[0:64, 0:32])\n", "is not a compile-time constant");
	rejects("    T.thread_id([64])\n    T.warp_id([4])\n", "T.warp_id([4]) means 128 threads, but the CTA has 64");
	rejects("    T.lane_id([16])\n", "a warp has 32 lanes");
	rejects("    T.thread_id([2048])\n", "2048 threads per CTA; any target allows at most 1024");
	rejects("    T.thread_id([64])\n    T.warp_id_in_wg([4])\n", "T.warp_id_in_wg([4]): a CTA of 64 threads has 2 warps in a warpgroup");
	rejects("    T.thread_id_in_wg([256])\n", "T.thread_id_in_wg() extent 256 is out of range (1 to 128)");
	rejects("    T.thread_id([32])\n    T.thread_id([64])\n", "is declared twice");
	accepts("    T.thread_id([32])\n    tid = T.thread_id([32])\n", "an id declared again with its extent, to name it");
	rejects("    T.cta_id([2, 3])\n    bx, by = T.cta_id([2, 4])\n", "is declared twice");
	rejects("    X = T.alloc_buffer((4, 4), \"float32\")\n", "needs scope=\"shared\" or scope=\"local\"");
	rejects("    X = T.alloc_buffer((4, 4), \"float32\", scope=\"tmem\")\n", "tensor memory is allocated with T.ptx.tcgen05.alloc");
	rejects("    M = T.decl_buffer((128, 32), \"float32\", scope=\"tmem\", allocated_addr=0)\n",
	        "tensor-memory buffer 'M' needs a layout over TLane and TCol");
	rejects("    M = T.decl_buffer((256, 32), \"float32\", scope=\"tmem\", allocated_addr=0,"
	        " layout=TileLayout(S[(256, 32) : (1 @ TLane, 1 @ TCol)]))\n", "spans 256 tensor-memory lanes; there are 128");
	rejects("    X = T.alloc_shared((4, 4), \"float32\", layout=TileLayout(S[(4, 4) : (1 @ TLane, 1)]))\n",
	        "TLane and TCol address tensor memory only");
	rejects("    R = T.alloc_local((8,), \"float32\")\n    V = R.view(32, 16, layout=TileLayout(S[(32, 16) : (1 @ laneid, 1)]))\n",
	        "view 'V' needs 16 elements of storage per thread but 'R' has 8");
	/* a swizzle moves elements within 2^(M+B)-element chunks: the storage a
	 * swizzled layout needs is one past its largest swizzled address (15
	 * rows of 112 in rows of 128: row 14's last chunk reaches 1919) */
	accepts("    X = T.alloc_shared((15, 112), \"float16\", layout=ComposeLayout(3, 3, 3, S[(15, 112) : (128, 1)]))\n"
	        "    F = X.view(1920)\n", "a view of the storage a swizzled tile over padded rows reaches");
	rejects("    X = T.alloc_shared((15, 112), \"float16\", layout=ComposeLayout(3, 3, 3, S[(15, 112) : (128, 1)]))\n"
	        "    F = X.view(1921)\n", "view 'F' needs 1921 elements of storage but 'X' has 1920");
	rejects("    X = T.alloc_shared((1919,), \"float16\")\n"
	        "    V = X.view(15, 112, layout=ComposeLayout(3, 3, 3, S[(15, 112) : (128, 1)]))\n",
	        "view 'V' needs 1920 elements of storage but 'X' has 1919");
	/* 13 rows: row 12's second chunk is swizzled by 1 (chunks 8..13 to 9, 8,
	 * 11, 10, 13, 12): it reaches no further than the rows' span, 1648 */
	accepts("    X = T.alloc_shared((1648,), \"float16\")\n"
	        "    V = X.view(13, 112, layout=ComposeLayout(3, 3, 3, S[(13, 112) : (128, 1)]))\n",
	        "a swizzled view that reaches the end of its storage exactly");
	rejects("    X = T.alloc_shared((1647,), \"float16\")\n"
	        "    V = X.view(13, 112, layout=ComposeLayout(3, 3, 3, S[(13, 112) : (128, 1)]))\n",
	        "view 'V' needs 1648 elements of storage but 'X' has 1647");
	rejects("    X = T.alloc_local((8,), \"float32\", layout=ComposeLayout(1, 1, 1, S[8]))\n",
	        "a swizzled layout is for shared memory");
	accepts("    A[0, 0] = 1.5\n    A[0, 0] = B[0, 0]\n", "a store converts its value to the buffer's dtype (TVMScript's)");
	rejects("    A[0, 0] += B[0, 0]\n", "operands of '+' have different dtypes, float16 and float32");
	rejects("    A[0, 0] = T.cast(1, \"int4\")\n", "unknown dtype \"int4\"");
	rejects("    T.cuda.cta_sync(1)\n", "takes 0 positional arguments but 1 was given");
	rejects("    T.ptx.mbarrier.init(B)\n", "takes 2 positional arguments but 1 was given");
	rejects("    Tx.copy(A, A, vec=4)\n", "has no keyword argument 'vec'; it takes dispatch");
	rejects("    T.ptx.tcgen05.alloc(T.address_of(A[0, 0]), cta_group=1)\n", "needs the keyword argument 'n_cols'");
	accepts("    x = 1\n    x += 1\n    for i in range(4):\n        x = x ^ i\n", "a name assigned again: a mutable variable");
	rejects("    for i in range(4):\n        i += 1\n", "'i' is a loop variable (line 7) and is bound once");
	rejects("    for i in range(4):\n        i = 2\n", "'i' is a loop variable (line 7) and is bound once");
	rejects("    x += 1\n", "cannot update 'x': it has no value yet");
	rejects("    x: T.int32\n    A[0, 0] = T.float16(x)\n", "'x' is read before it is assigned a value");
	rejects("    x: T.int32\n    x += 1\n", "'x' is read before it is assigned a value");
	accepts("    x: T.int32\n    x = 0\n    x += 1\n", "a declared variable, assigned, then updated");
	rejects("    if 1 + 2:\n        pass\n", "an if condition must be a boolean");
	rejects("    T.cuda.cta_sync\n", "this expression does nothing");
	rejects("    T.cast(1, \"int32\")\n", "the result of T.cast() is not used");
	rejects("    Tx.foo.copy(A, A)\n", "'Tx' has no member 'foo': the execution scopes");

	/* the target check */
	Module *m = parse_str(HEAD "    T.ptx.tcgen05.wait.ld()\n", NULL);
	m->target = TG_SM90A;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	Diag dg;
	diag_init(&dg, out);
	bool good = verify_module(m, &dg);
	fclose(out);
	ok(!good && strstr(buf, "T.ptx.tcgen05.wait.ld() needs sm_100a; the target is sm_90a"),
	   "an sm_100a intrinsic on sm_90a is refused");
	free(buf);
}
