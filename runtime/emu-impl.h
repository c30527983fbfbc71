/* Private to the emulator (emu.c, emu-*.c): the compiled program, the
 * machine state and the helpers the files share. emu-compile.c turns the
 * checked syntax tree of one kernel into CStmt/CExpr nodes with every name,
 * callee and variable slot resolved once; emu-acc.c works out once per
 * buffer how its elements are found; emu.c runs the nodes; emu-copy.c does
 * the tile copies and copy_bytes; emu-async.c the asynchronous copies
 * (cp.async and its groups, bulk groups, loads completing on mbarriers);
 * emu-tma.c the bulk tensor copies (TMA); emu-ptx.c mbarriers, named barriers and vector
 * shared-memory accesses; emu-value.c holds the dtype arithmetic, the
 * float conversions and the random fill. */
#ifndef TXC_EMU_IMPL_H
#define TXC_EMU_IMPL_H

#include <stdatomic.h>

#include "emu.h"
#include "ir.h"

/* ---- values (emu-value.c) --------------------------------------------------- */

typedef struct Mem Mem;

/* A runtime value. Integers and bools: the value, wrapped to its dtype
 * (uint64 as its bits); floats: the bits of the dtype's encoding, so that
 * moving a value never changes it; handles: byte offset i into mem. */
typedef struct EVal {
	int64_t i;
	Mem *mem;
} EVal;

static inline bool dt_float(int dt) { return dtypes[dt].kind == DK_FLOAT; }
static inline bool dt_unsigned64(int dt) { return dtypes[dt].kind == DK_UINT && dtypes[dt].bits == 64; }
/* v wrapped to the width of integer dtype dt (bool: v != 0). */
int64_t emu_wrap(int64_t v, int dt);
/* A float's value, exactly, and a double rounded to nearest even into dt's
 * encoding (NaN: the canonical NaN; fp8 saturates to the largest finite). */
double emu_fdecode(uint64_t bits, int dt);
uint64_t emu_fencode(double x, int dt);
/* v converted from dtype `from` to dtype `to` with the meaning of a CUDA
 * cast: ints wrap, floats round to nearest even, floats to ints truncate
 * and saturate (NaN: 0). */
EVal emu_conv(EVal v, int from, int to);
/* a op b in dtype dt (both already dt); NULL or the reason it failed. */
const char *emu_binop(int op, int dt, EVal a, EVal b, EVal *r);
EVal emu_unop(int op, int dt, EVal a);
bool emu_cmp(int op, int dt, EVal a, EVal b);
EVal emu_minmax(bool max, int dt, EVal a, EVal b);
/* Little-endian element bytes <-> values of dtype dt. */
EVal emu_load(const uint8_t *p, int dt);
void emu_store(uint8_t *p, int dt, EVal v);

/* ---- the compiled kernel (emu-compile.c, emu-acc.c) ---------------------------- */

enum { SP_NONE, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_TMEM };

/* How the elements of one buffer are found, worked out once. */
typedef struct Acc {
	const char *why;  /* why the buffer cannot be touched, or NULL */
	Buffer *b, *root;
	int dtype, esize, space;
	int mem;          /* the root's index among the parameters, the shared
	                   * roots or the local roots; -1: none */
	int64_t storage;  /* elements of the root's storage (per thread: local) */
	const Layout *l;  /* the layout (row-major when the buffer has none) */
	Layout *g;        /* l grouped by the shape (layout_group), or NULL */
	int *dims;        /* g's iters of dimension d: dims[d] .. dims[d+1]-1 */
	bool linear;      /* m = off + sum idx[d] * stride[d], then the swizzle */
	int64_t *stride, off;
	unsigned taxes;   /* the thread axes the layout uses, one bit per axis */
	int64_t nrep;     /* replica combinations */
	bool simple;      /* global or shared, no thread axes, no replicas */
} Acc;

#define EMU_MAX_DIMS 64

enum {
	X_CONST, X_VAR, X_LOAD, X_ADDR, X_PTR, X_BIN, X_UN, X_CMP, X_AND, X_OR, X_NOT, X_COND,
	X_CAST, X_MIN, X_MAX, X_FAIL,
	X_ELECT, /* elect.sync: true in the lowest active thread of each warp */
};

typedef struct CExpr {
	int kind, op;
	int dtype;       /* of the result; literals: int64 or float64 */
	int cdt;         /* X_CMP: the dtype both sides are compared in */
	Pos pos;         /* the operator, for errors of an operation */
	Pos at;          /* where the expression starts, for errors of a value */
	EVal k;          /* X_CONST */
	int slot;        /* X_VAR */
	Acc *acc;        /* X_LOAD, X_ADDR, X_PTR */
	struct CExpr **args;
	int nargs;
	const char *msg; /* X_FAIL: why it cannot be evaluated */
} CExpr;

/* A tile-op operand: a region of a buffer. */
typedef struct Region {
	Acc *acc;
	int ndim;
	CExpr **starts;
	int64_t *extents;
	Pos pos;
	const char *text;
} Region;

enum {
	C_NOP, C_LET, C_STORE, C_IF, C_FOR, C_WHILE, C_SYNC, C_WARP_SYNC, C_COPY, C_COPY_BYTES, C_ZERO_BYTES,
	C_COPY_ASYNC, /* a copy_async the emulator runs (done: how it completes; DONE_TC_WAIT_LD / _ST:
	               * tensor memory <-> registers, emu-tmem.c, with a the tensor memory's allocated_addr=) */
	C_CP_ASYNC, C_CP_COMMIT, C_CP_WAIT,
	C_MBAR,       /* op: IN_MBAR_*; a: the mbarrier, n: count, bytes or parity, b: try_wait_parity's result */
	C_NAMED_BAR,  /* barrier.sync: a the barrier, n the thread count (NULL: all) */
	C_VEC_SHARED, /* op: IN_ST_SHARED_V4 / IN_LD_SHARED_V4; a the address, idx the 4 values or element addresses */
	C_MATRIX,     /* op: IN_LDMATRIX / IN_STMATRIX, warp-collective; a the lane's row address, tc_num the
	               * matrices, trans, idx the tc_num registers: element addresses (values for st) */
	C_TMA,        /* op: IN_TMA_LOAD/STORE/REDUCE/PREFETCH; tmap the map, a the shared address, b the mbarrier
	               * (a load), idx the tmap->rank coordinates and an im2col load's tmap_info_count()
	               * operands, red the reduction */
	C_BULK_COMMIT, C_BULK_WAIT, /* T.ptx.cp_async.bulk.commit_group / wait_group(wait) */
	C_CLUSTER_SYNC, /* T.cuda.cluster_sync(): every thread of the cluster (C_SYNC without a cluster) */
	C_MAPA,       /* T.ptx.mapa: a the element written, b the shared address, n the CTA rank */
	C_BULK_S2C,   /* T.ptx.cp_async.bulk.s2c: a the destination, m the source, n the bytes, b the mbarrier
	               * (both named in this CTA), value the CTA rank */
	C_DSMEM,      /* Tx.copy_async through dsmem, as written: dst, src, b the mbarrier, value the CTA rank
	               * (remote_cta_id=); at once, the bytes completing on the remote mbarrier */
	C_TMAP,       /* op: IN_TMAP_COPY (a dst, tmap the parameter map), IN_TMAP_REPLACE (a the map, field, n the
	               * ord or NULL, value), IN_TMAP_CP_FENCE (a the global dst, b the shared src), IN_FENCE_TMAP (a) */
	C_TCGEN05,    /* op: IN_TC_ALLOC (a the shared word, n n_cols), IN_TC_DEALLOC (a the address, n n_cols),
	               * IN_TC_RELINQ, IN_TC_WAIT_LD, IN_TC_WAIT_ST, IN_TC_LD / IN_TC_ST (a the address, b the row, n the
	               * column, idx the nregs registers: element addresses, or values for st) */
	C_TCCP,       /* op: IN_TC_CP (a taddr, b row, n col, value the descriptor, tc_shape the tccp_shapes row),
	               * IN_TC_COMMIT (a the mbarrier), IN_TC_SMEM_DESC (a the destination, b the matrix's address,
	               * idx ldo, sdo, base_offset, field the descriptor's layout type); emu-tccp.c */
	C_TCMMA,      /* op: IN_TC_MMA (a d_taddr, b a_desc, n b_desc, value idesc, m enable_input_d;
	               * block-scaled: opt[0], opt[1] scale_a, scale_b), IN_TC_IDESC (a the destination,
	               * wait the descriptor); emu-mma.c; IN_TC_IDESC_BS (also b, n a_sf_id, b_sf_id or
	               * NULL) and the block-scaled IN_TC_MMA: emu-mmas.c */
	C_GEMM,       /* Tx.gemm_async through tcgen05_mma, as written: dst C, src A, src2 B, a C's allocated address,
	               * value accum= (NULL: False), trans_a, trans_b, sf SFA= and SFB= (NULL: none); emu-gemm.c */
	C_ASSUME,     /* T.assume(value): the kernel's promise on its scalar parameters, checked (text: the condition) */
	C_FENCE_ASYNC, /* T.ptx.fence.proxy_async (any space): each thread's generic writes to shared memory so far
	                * are fenced for the async proxy (emu_proxy_*) */
	C_FAIL,
};

/* T.ptx.cp_async's optional operands, in order (NULL: not given). */
enum { CP_POLICY, CP_PREFETCH, CP_SRC_SIZE, CP_PRED, CP_NOPT };

typedef struct CStmt {
	int kind;
	Pos pos;
	const char *text;  /* for --trace */
	int slot, dtype;   /* C_LET, C_FOR: the variable (slot -1: unused) */
	CExpr *value;      /* C_LET, C_STORE: the value; C_IF, C_WHILE: the condition */
	CExpr *lo, *hi, *step; /* C_FOR */
	Acc *acc;          /* C_STORE: buf[idx] = value, or buf[idx] op= value */
	CExpr **idx;
	int op;            /* C_STORE: -1, or the operator of `op=` */
	Pos tpos;          /* C_STORE: the target */
	struct CStmt **body, **orelse;
	int nbody, norelse;
	int scope;         /* C_COPY, C_COPY_ASYNC: execution scope (ES_*) */
	Region dst, src;   /* C_COPY, C_COPY_ASYNC */
	CExpr *a, *b, *n;  /* C_COPY_BYTES, C_CP_ASYNC: dst, src, bytes */
	CExpr *opt[CP_NOPT]; /* C_CP_ASYNC: the optional operands given */
	const char *cache; /* C_CP_ASYNC: "", "ca" or "cg" (NULL: not a string) */
	int64_t wait;      /* C_CP_WAIT, C_BULK_WAIT: N */
	int done;          /* C_COPY_ASYNC: how it completes (DONE_CP_GROUP, DONE_BULK_GROUP or
	                    * DONE_MBAR_TX, with the mbarrier's address in b) */
	const TensorMap *tmap; /* C_TMA: the parameter map, or NULL: a map in global memory at m; C_TMAP */
	CExpr *m;          /* C_TMA: the address of a map in global memory */
	int rank;          /* C_TMA: the rank the instruction names */
	int field;         /* C_TMAP: IN_TMAP_REPLACE's field (TMF_*) */
	int red;           /* C_TMA: IN_TMA_REDUCE's red_op, an index of tma_red_ops;
	                    * C_COPY_ASYNC: reduce=, 1 + that index (0: a plain copy) */
	int oob;           /* C_COPY_ASYNC: oob_fill=, the fill of a source element past the
	                    * tensor's edge: EMU_FILL_ZERO, EMU_FILL_NAN, or -1 (none: an error) */
	CExpr *mask;       /* C_TMA (a load), C_COPY_ASYNC (tma): cta_mask=, the multicast CTAs, or NULL */
	const char *msg;   /* C_FAIL */
	int tc_shape, tc_num, tc_pack, nregs; /* C_TCGEN05 ld/st: the shape (tcgen05_shapes), num, pack/unpack */
	bool fork;         /* C_IF: a branch may wait on an mbarrier (emu-fiber.c) */
	Region src2;       /* C_GEMM: B */
	Region *sf;        /* C_GEMM: NULL, or SFA and SFB (block-scaled; opt[0], opt[1] their allocated addresses) */
	bool trans_a, trans_b; /* C_GEMM: transA=, transB= */
	bool trans;        /* C_MATRIX: .trans */
	bool tc_half;      /* C_COPY_ASYNC (tensor memory): rows [0:64] of datapath D against a 64-row .16x*b
	                    * fragment, by TVM's convention the low half-slab (tcgen05_half_slab) */
} CStmt;

/* The launch ids: slot = what launch id (IN_CTA_ID dimension dim, ...). */
typedef struct LaunchVar { int slot, launch, dim; } LaunchVar;

typedef struct Prog {
	Func *f;
	CStmt **body;
	int nbody;
	int nslots;
	int depth;          /* the deepest nesting of if/for */
	LaunchVar *launch;
	int nlaunch;
	int *scalar_slot;   /* per scalar parameter (f->scalars): its slot, or -1 */
	Buffer **shared;    /* root shared buffers, placed by smem_plan */
	int nshared;
	int64_t smem_bytes;
	Buffer **local;     /* root local buffers; per thread, local_off[i] */
	int nlocal;
	int64_t *local_off;
	int64_t local_bytes; /* per thread */
	const char *fail;   /* a reason the kernel cannot run at all */
} Prog;

Prog *emu_compile(Module *m, Func *f, bool trace);

/* ---- where elements live (emu-acc.c) ------------------------------------------- */

/* The Acc of b, a buffer of p's kernel (after its roots are listed). */
Acc *emu_acc(Prog *p, Buffer *b);
/* The coordinates of element idx (in bounds) on every axis: what
 * layout_apply_coord gives, from the precomputed grouping. */
bool emu_coord(const Acc *a, const int64_t *idx, int64_t out[AX_COUNT]);
/* The storage offset (m) of element idx of a buffer without thread axes
 * or replicas. */
bool emu_offset(const Acc *a, const int64_t *idx, int64_t *m);
/* The threads of first .. first+n-1 (of nthreads) that hold the register
 * element with coordinates c, at most max of them, into out; returns how
 * many. Layout axes relative to a warp or warpgroup name a thread within
 * the group; an axis the layout does not use leaves every value open. */
int emu_owners(const Acc *a, const int64_t c[AX_COUNT], const int64_t cb[3], int first, int n, int nthreads,
               int *out, int max);

/* ---- the machine (emu.c) ------------------------------------------------------- */

/* A block of storage: a parameter, a shared buffer of the CTA, or one
 * thread's registers of a local buffer. */
struct Mem {
	uint8_t *data;
	int64_t size;       /* bytes */
	int64_t base;       /* bytes from the aligned start of its space (shared:
	                     * smem_off; the GPU aligns that start to 1024, a
	                     * parameter to 256 and a register array to 16) */
	int space;
	const Buffer *buf;  /* the root buffer */
	int thread;         /* local: the thread holding it, else -1 */
};

typedef struct AsyncQueue AsyncQueue; /* emu-async.c */
typedef struct Cluster Cluster;       /* emu.c */

typedef struct Fibers Fibers;

typedef struct Emu {
	Module *m;
	Func *f;
	Prog *p;
	Diag *d;
	int nthreads;
	int64_t cta[3];
	int64_t cb[3];         /* its coordinates in its cluster (0 without clusters) */
	EVal *slots;        /* nthreads x p->nslots */
	Mem *gmem;          /* per parameter */
	Mem *smem;          /* per shared root, over sdata */
	uint8_t *sdata;
	Mem *lmem;          /* nthreads x p->nlocal, over ldata */
	uint8_t *ldata;
	int *lists;         /* per nesting depth: two lists of threads */
	int64_t *loopv;     /* per nesting depth: a loop's current and end values */
	int64_t steps, max_steps;
	const int64_t *scalars; /* the scalar parameters' values, or NULL */
	bool trace;
	FILE *tout;
	/* The asynchronous machinery (emu-async.c): per thread, the cp.async
	 * copies issued since the last commit_group and the committed groups,
	 * performed when a wait_group retires them, their destinations
	 * poisoned until then. mbarriers stay in the 8 bytes of shared memory
	 * the program gives them (phase bit, expected and pending arrivals,
	 * signed transaction count; emu-ptx.c), so that a program that reads
	 * them sees what it wrote. A TMA load (emu-tma.c) completes its bytes
	 * on its mbarrier at issue and waits in txl for a wait that sees its
	 * phase; TMA stores and reductions join the bulk groups, a second
	 * queue per thread. Tensor memory (emu-tmem.c): E->tm. */
	AsyncQueue *async;  /* per thread; NULL until the first copy */
	AsyncQueue *bulk;   /* per thread, the bulk groups of TMA stores and reductions */
	const int *act;     /* the threads running the current statement, in thread order */
	int nact;
	/* per thread, the tensor maps in global memory it acquired
	 * (fence.proxy.tensormap) since they were last written: EMU_TMACQ
	 * (memory, byte) pairs each, nacq of them */
	Mem **acq_mem;
	int64_t *acq_off;
	int *nacq;
	struct TxLoad *txl; /* TMA loads whose data waits for a wait on their mbarrier */
	int ntxl, captxl;
	uint8_t *minit;     /* per 8 bytes of shared memory: an mbarrier initialized there */
	Cluster *cl;        /* the CTAs running together with this one, or NULL (a CTA alone) */
	int rank;           /* in the cluster: x + X * (y + Y * z) of cb */
	/* Shared memory an asynchronous copy still owns (emu-async.c): per
	 * byte 0, or 1 + the index in pends of the copy that will write it
	 * (a load not yet waited for) or read it (a TMA store not yet past
	 * wait_group.read). */
	uint16_t *pend;
	int64_t npending;   /* the bytes of pend that are not 0 */
	struct Pend *pends;
	int npend, cappend;
	/* Shared memory the generic proxy wrote and its writer has not fenced
	 * for the async proxy (emu-async.c, emu_proxy_*): per byte, 0 or 1 +
	 * 1024 * rank + t of the thread that last wrote it with a generic
	 * store (rank: its CTA in the cluster), and gep, emu_fence_seq at the
	 * write: the byte is unfenced while its writer's last fence.proxy.async
	 * (fences) is not later. An async-proxy write clears it. */
	uint16_t *gw;
	uint32_t *gep;
	uint32_t *fences;   /* per thread: emu_fence_seq at its last fence.proxy.async (0: none) */
	bool performing;    /* an asynchronous copy is being done: its own accesses */
	bool unchecked_async; /* EmuOptions's: no pend errors */
	struct Tmem *tm;    /* tensor memory (emu-tmem.c), made at the first tcgen05 builtin */
	uint32_t *tmem_out; /* EmuOptions's */
	bool *tmem_taken;
	Fibers *fb;         /* the branches running beside each other (emu-fiber.c), or NULL */
	/* The race checker (emu-race.c): NULL when off (EmuOptions.no_race_check). */
	bool race_on;
	struct Race *race;
	uint32_t *race_tmp; /* nthreads clocks of scratch */
	int race_wt;        /* the stamp of the asynchronous writes being performed: */
	uint32_t race_wc;   /* thread (-1: none) and clock, and line */
	int race_wline;
	int race_thr;       /* >= 0: the thread the next shared access is checked for (a register's owner) */
	int race_gn;        /* the threads of the group making it (a collective copy's; 1: one thread) */
	int sched;          /* EMU_SCHED_*: the order of the threads within a statement */
	uint64_t rng;
} Emu;

/* The CTAs of one cluster (more than one CTA) run together: each in an OS
 * thread of its own, one at a time, handing on at a wait that is not done
 * and at the cluster barrier (a deterministic schedule); see emu.c. */
enum { CS_RUN, CS_WAIT, CS_SYNC, CS_DONE };
struct Cluster {
	int n;
	Emu *cta;           /* per rank */
	int *state;         /* per rank: CS_* */
	const char **why;   /* per rank: what it waits for, for a deadlock report */
	int turn;           /* the rank that runs */
	int64_t progress;   /* counts what any CTA did; unchanged over a round: a deadlock */
	int64_t steps;      /* statement executions of the whole run */
	bool failed;
	int arrived;        /* at the cluster barrier, of generation gen */
	int64_t gen;
	void *sync;         /* the mutex and condition variable (emu.c) */
};

/* The CTA of the cluster at rank r (E itself without a cluster and r 0),
 * or NULL when there is none. */
Emu *emu_peer(Emu *E, int r);
/* The CTA whose shared memory holds p (E itself without a cluster). */
Emu *emu_owner(Emu *E, const uint8_t *p);
/* Hands on to the other CTAs of the cluster at a wait that is not done
 * (state CS_WAIT or CS_SYNC; why: what it waits for): 1 when they did
 * something (look again), 0 when none could (a deadlock), -1 when one
 * failed (stop, reported). */
int emu_block(Emu *E, int state, const char *why);
/* "cta rank 1 has ended; cta rank 2: threads 0-31 wait at line 9 ...":
 * the other CTAs of the cluster, for a deadlock report. */
const char *emu_cluster_str(Emu *E);

/* Warp specialization (emu-fiber.c): the else-branch of the divergent if
 * s runs as a fiber beside its then-branch, which runs here; then the join.
 * emu_fibers: another fiber of the CTA has not ended. emu_fiber_block
 * hands on at a wait that is not done, as emu_block. emu_fibers_str: what
 * the other fibers wait for. emu_fibers_end: at the CTA's end. */
bool emu_fork_if(Emu *E, const CStmt *s, const int *yes, int ny, const int *no, int nn, int depth);
bool emu_fibers(const Emu *E);
int emu_fiber_block(Emu *E, const char *why);
const char *emu_fibers_str(Emu *E);
void emu_fiber_progress(Emu *E);
void emu_fibers_end(Emu *E, bool ok);
bool emu_exec_block(Emu *E, CStmt **v, int n, const int *act, int nact, int depth);
/* The first warp of which act (in thread order) holds some threads but not
 * all (then *first its first active thread, *have of *need threads), or -1. */
int emu_partial_warp(const Emu *E, const int *act, int nact, int *first, int *have, int *need);
/* "thread 3", "threads 0-127", "5 threads" */
const char *emu_threads_str(const int *act, int nact);

/* Reports `thread (cta C, thread t): MESSAGE` at p (t < 0: no thread) and
 * returns false. */
bool emu_fail(Emu *E, Pos p, int t, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool emu_eval(Emu *E, const CExpr *x, int t, EVal *out);
/* An integer-valued expression as int64 (uint64 above 2^63 turn negative,
 * so that bounds checks refuse them). */
bool emu_eval_int(Emu *E, const CExpr *x, int t, int64_t *out);
Mem *emu_mem(Emu *E, const Acc *a, int t);
const char *emu_idx_str(const int64_t *idx, int n);

/* ---- tile copies (emu-copy.c) ------------------------------------------------- */

/* A tile copy (C_COPY) or the issue of a cp.async-kind copy_async
 * (C_COPY_ASYNC), once per group of threads of its scope. */
bool emu_copy(Emu *E, const CStmt *s, const int *act, int nact);
/* The element-wise copy of s's regions for the group first .. first+n-1
 * with regions starting at ds and ss (tf names the group in errors):
 * every element is checked; fill -1: copied, else the destination bytes
 * are filled with it instead (the source is not read): EMU_POISON when an
 * asynchronous copy is issued, 0 for one whose predicate= is false. With
 * s->oob >= 0 the source region may hang past its tensor's edge: the
 * elements there are filled with s->oob. */
bool emu_copy_region(Emu *E, const CStmt *s, int first, int n, int tf, const int64_t *ds, const int64_t *ss,
                     int fill);
bool emu_copy_bytes(Emu *E, const CStmt *s, int t);
bool emu_zero_bytes(Emu *E, const CStmt *s, int t);
/* Replica rep of element idx of region r for the group first .. first+n-1:
 * how many places (at most max) hold it, their bytes in out and, when who
 * is not NULL, the thread of each (-1: memory, not registers); -1 after
 * an error (reported; tf names the group). */
int emu_places(Emu *E, const Region *r, const int64_t *idx, int first, int n, int64_t rep, int tf, uint8_t **out,
               int *who, int max);
/* The regions of s at ds and ss are within their buffers (else reported). */
bool emu_regions_check(Emu *E, const CStmt *s, int tf, const int64_t *ds, const int64_t *ss);
/* Checks that v is an address of n bytes in bounds and aligned to n, for
 * the error messages of `OP of N bytes: the WHAT, ...`. */
bool emu_check_ptr(Emu *E, Pos p, int t, EVal v, int64_t n, int64_t align, const char *op, const char *what);
/* "shared buffer 'A_smem'", "the registers 'R' of thread 3". */
const char *emu_mem_str(const Mem *m);

/* ---- asynchronous copies (emu-async.c) ----------------------------------------- */

/* A bulk tensor copy (C_TMA) as issued, kept until it is performed. */
typedef struct TmaOp {
	const CStmt *s;
	int t;                    /* the issuing thread */
	Mem *sm;                  /* the shared buffer of the box */
	int64_t soff;             /* and the box's first byte in it */
	int32_t c[TMAP_MAX_RANK]; /* the coordinates */
	int32_t info[TMAP_MAX_RANK - 2]; /* an im2col map's 16-bit operands: the offsets, or wHalo and wOffset */
	TensorMap map;            /* the map as the copy was issued */
	Mem *g;                   /* the tensor's global memory */
	int64_t gbase;            /* and the byte of element 0 in it */
	int dt;                   /* the element's dtype */
} TmaOp;

/* The bytes of a destination not yet written by an asynchronous copy. */
#define EMU_POISON 0xAB
/* emu_copy_region's fill that writes nothing: it marks the source region
 * as read by a TMA store that is not done yet. */
#define EMU_MARK_SRC 0x200

/* Shared memory owned by an asynchronous copy between its issue and its
 * wait (emu_pend_*): n bytes at p, the destination or the source of the
 * copy issued at `at` by thread t (kind: PEND_CP, a cp.async destination;
 * PEND_MBAR, a TMA load's; PEND_STORE_SRC, a TMA store's source), in the
 * shared memory of whichever CTA of the cluster holds them. A generic read
 * of a pending destination (a missing wait), a generic write of either
 * (the copy would overwrite it, or read the new data) is an error at pos,
 * unless EmuOptions.unchecked_async. */
enum { PEND_CP = 1, PEND_MBAR, PEND_STORE_SRC };
void emu_pend_mark(Emu *E, const uint8_t *p, int64_t n, Pos at, int t, int kind);
void emu_pend_clear(Emu *E, const uint8_t *p, int64_t n);
bool emu_pend_check_slow(Emu *E, const uint8_t *p, int64_t n, bool write, Pos pos, int t);
/* The fence.proxy.async statements run so far, by every CTA: a fence
 * (of thread t, fences[t]) with a greater number than a write's (gep) is
 * later than the write. */
extern _Atomic uint32_t emu_fence_seq;
/* n bytes at off in O's shared memory written by thread t of CTA W with a
 * generic store: not fenced for the async proxy yet. */
static inline void emu_proxy_wrote(Emu *O, int64_t off, int64_t n, const Emu *W, int t)
{
	uint16_t id = (uint16_t)(1 + 1024 * W->rank + t);
	uint32_t ep = atomic_load_explicit(&emu_fence_seq, memory_order_relaxed);
	for (int64_t k = 0; k < n; k++) {
		O->gw[off + k] = id;
		O->gep[off + k] = ep;
	}
}
/* The n shared bytes at p written by the async proxy (a TMA load, an
 * asynchronous copy performed): no generic write of them to fence. */
void emu_proxy_clear(Emu *E, const uint8_t *p, int64_t n);
/* The async proxy's op (tcgen05.cp, tcgen05.mma, a TMA store) reads the n
 * shared bytes at p (what: the operand, in the error) for thread t: an
 * error at pos when one of them was written by a generic store that its
 * thread has not fenced since (fence.proxy.async); with by_issuer (the TMA
 * stores), a fence of thread t itself after the write also counts. */
bool emu_proxy_check(Emu *E, const uint8_t *p, int64_t n, Pos pos, int t, const char *op, const char *what,
                     bool by_issuer);
/* ---- races in shared memory, and schedules (emu-race.c) ---------------------------- */

typedef struct Race Race;
/* The checker's state for CTA E (when E->race_on); false: no memory. */
bool emu_race_init(Emu *E);
void emu_race_free(Emu *E);
/* A barrier of every thread of the CTA (cta_sync, cluster_sync, a new CTA). */
void emu_race_barrier(Emu *E);
/* A barrier of the n threads thr (bar.sync, __syncwarp). */
void emu_race_join(Emu *E, const int *thr, int n);
/* Thread t's own clock now. */
uint32_t emu_race_clock(Emu *E, int t);
/* mbarriers: init; thread t arrives (or its copy's complete_tx counts);
 * the phase in progress completed (after the word at bar changed); thread
 * t's wait for parity saw that phase complete; the clock of thread t in
 * the last completed phase of that parity. */
void emu_race_mbar_init(Emu *E, const uint8_t *bar);
void emu_race_arrive(Emu *E, const uint8_t *bar, int t);
void emu_race_flip(Emu *E, const uint8_t *bar);
void emu_race_wait(Emu *E, const uint8_t *bar, int parity, int t);
uint32_t emu_race_phase_clock(Emu *E, const uint8_t *bar, int parity, int t);
/* n bytes at p (this CTA's shared memory) written by an asynchronous copy,
 * stamped E->race_wt, race_wc, race_wline. */
void emu_race_async(Emu *E, const uint8_t *p, int64_t n);
/* Thread t reads or writes n bytes at shared offset off (statement at pos):
 * an error when an access of another thread that is not ordered before
 * this one conflicts with it. */
bool emu_race_access(Emu *E, int64_t off, int64_t n, bool write, Pos pos, int t);
/* The same for n cells of tensor memory from lane, col: a warp-collective
 * access (warp: tcgen05.ld / st, the tile op) is its warp's, stamped with
 * the warp's first thread; an MMA or tcgen05.cp, thread t's, its issuer. */
bool emu_race_tmem(Emu *E, int lane, int col, int n, bool write, Pos pos, int t, bool warp);
/* The threads act in the order of E->sched (buf: room for nact, at most
 * EMU_MAX_THREADS); and whether an if runs its else-branch first. */
#define EMU_MAX_THREADS 1024
const int *emu_sched(Emu *E, const int *act, int nact, int *buf);
bool emu_sched_swap(Emu *E);

/* Every load and store asks: nothing to look at, at once, when no copy
 * owns any of this CTA's shared memory (the usual case) and the access is
 * to it, or when the CTA has no cluster and no tensor memory. */
static inline bool emu_pend_check(Emu *E, const uint8_t *p, int64_t n, bool write, Pos pos, int t)
{
	if (E->performing)
		return true;
	bool own = E->sdata && p >= E->sdata && p < E->sdata + E->p->smem_bytes;
	if (E->race && own && !emu_race_access(E, p - E->sdata, n, write, pos, E->race_thr >= 0 ? E->race_thr : t))
		return false;
	if (E->unchecked_async)
		return true;
	if (write && own)
		emu_proxy_wrote(E, p - E->sdata, n, E, t);
	if (!E->tm && ((own && !E->npending) || (!own && !E->cl)))
		return true;
	return emu_pend_check_slow(E, p, n, write, pos, t);
}
/* The fills of a TMA load's out-of-bounds elements (ptx.md): zeros, or the
 * 16-bit pattern 0x7FF7 repeated through the element, a NaN in every
 * floating-point type. */
#define EMU_FILL_ZERO 0
#define EMU_FILL_NAN 0x100
void emu_fill(uint8_t *p, int n, int fill);

/* T.ptx.cp_async, commit_group and wait_group(N) for thread t; the
 * commit_group and wait_group of bulk groups (C_BULK_*) too. */
bool emu_cp_async(Emu *E, const CStmt *s, int t);
/* T.ptx.cp_async.bulk.s2c by thread t: the bytes into CTA rank's shared
 * memory when the remote mbarrier's phase completes (emu-async.c). */
bool emu_bulk_s2c(Emu *E, const CStmt *s, int t);
/* Tx.copy_async through dsmem by thread t: the region into CTA rank's
 * shared memory at once, its bytes completed on the remote mbarrier
 * (emu-copy.c). */
bool emu_dsmem(Emu *E, const CStmt *s, int t);
bool emu_cp_commit(Emu *E, const CStmt *s, int t);
bool emu_cp_wait(Emu *E, const CStmt *s, int t);
/* Issues copy_async s for the group first .. first+n-1 (checked, regions
 * at ds and ss): its destination is poisoned and one pending item joins
 * the open list of every thread of the group. */
bool emu_async_tile(Emu *E, const CStmt *s, int first, int n, int tf, const int64_t *ds, const int64_t *ss);
/* The end of a CTA: when perform, the copies never waited for are done
 * (the GPU completes them before the kernel ends; nothing is reported);
 * then every queue is emptied. False after an error. */
bool emu_async_end(Emu *E, bool perform);
/* Frees the queues once the run is over. */
void emu_async_free(Emu *E);

/* A TMA store or reduction (C_TMA) joins the open bulk list of its
 * thread o->t; performed (emu_tma_perform) when its group retires. */
bool emu_bulk_tma(Emu *E, const TmaOp *o);
/* A TMA load whose complete_tx was done in the phase of parity `parity`
 * of the mbarrier at bar (flipped: that complete_tx completed the phase):
 * performed when a wait on that phase succeeds (emu_mbar_waited), or at
 * the end of the CTA. */
bool emu_tx_load_tma(Emu *E, const TmaOp *o, uint8_t *bar, int parity, bool flipped);
/* The mbarrier at bar completed a phase / a wait for parity `parity` on
 * it succeeded, which delivers the loads of the phases it has seen. */
void emu_mbar_flipped(Emu *E, const uint8_t *bar);
bool emu_mbar_waited(Emu *E, const uint8_t *bar, int parity);

/* ---- the PTX dialect's shared-memory builtins (emu-ptx.c) ------------------------ */

/* An mbarrier builtin (C_MBAR) for thread t. */
bool emu_mbarrier(Emu *E, const CStmt *s, int t);
/* The mbarrier at address operand x of builtin `op`: 8 aligned bytes of
 * shared memory; NULL after an error. */
uint8_t *emu_mbar_at(Emu *E, const CExpr *x, int t, const char *op);
/* complete_tx(bytes) on the mbarrier at bar, operand x of the statement
 * at p, for thread t: the parity of the phase it counts in, and whether it
 * completed that phase. */
bool emu_mbar_complete_tx(Emu *E, const CExpr *x, Pos p, int t, uint8_t *bar, int64_t bytes, const char *op,
                          int *parity, bool *flipped);
/* cta_mask= of a multicast copy issued by thread t: the mask, checked
 * against the cluster (its CTAs alive); -1 after an error. */
int64_t emu_cta_mask(Emu *E, const CExpr *x, int t, const char *op);

/* ---- TMA (emu-tma.c) -------------------------------------------------------------- */

/* The reductions of cp.reduce.async.bulk.tensor, in red_op's spelling;
 * NULL-terminated. */
/* a red b in dtype dt: red an index of tma_red_ops */
EVal emu_reduce(int red, int dt, EVal a, EVal b);
/* A bulk tensor load, store, reduction or prefetch (C_TMA) issued by
 * thread t: checked at once; a load completes its bytes on the mbarrier
 * and poisons its box, a store or reduction joins the bulk group. */
bool emu_tma(Emu *E, const CStmt *s, int t);
/* The builtins of tensor maps in memory (C_TMAP) for the threads act. */
#define EMU_TMACQ 8
bool emu_tmap(Emu *E, const CStmt *s, const int *act, int nact);
/* Moves the data of an issued load, store or reduction. */
bool emu_tma_perform(Emu *E, const TmaOp *o);
/* barrier.sync (C_NAMED_BAR) for the threads that reach it together. */
bool emu_named_barrier(Emu *E, const CStmt *s, const int *act, int nact);
bool emu_matrix(Emu *E, const CStmt *s, const int *act, int nact);
/* st.shared.v4.f32 / ld.shared.v4.f32 (C_VEC_SHARED) for thread t. */
bool emu_vec_shared(Emu *E, const CStmt *s, int t);

/* ---- tensor memory (emu-tmem.c) ----------------------------------------------------- */

/* A tcgen05 builtin (C_TCGEN05) for the threads act. */
bool emu_tcgen05(Emu *E, const CStmt *s, const int *act, int nact);
/* A generic access of n bytes at p by thread t (emu_pend_check calls it):
 * an error when they are the destination of one of its tcgen05.ld not yet
 * past tcgen05.wait.ld. */
bool emu_tmem_reg_check(Emu *E, const uint8_t *p, int64_t n, bool write, Pos pos, int t);
/* The end of a CTA: columns still allocated are an error (when ok); the
 * state is reset for the next CTA. */
bool emu_tmem_end(Emu *E, bool ok);
/* Tx.wg.copy_async between tensor memory and registers (tcgen05_ldst's
 * tile op, completing on wait.ld / wait.st), for the warpgroup first ..
 * first+n-1 with its regions at ds and ss (checked alike in the group). */
static inline bool emu_tmem_tile_op(const CStmt *s)
{
	return s->kind == C_COPY_ASYNC && (s->done == DONE_TC_WAIT_LD || s->done == DONE_TC_WAIT_ST);
}
bool emu_tmem_tile(Emu *E, const CStmt *s, int first, int n, int tf, const int64_t *ds, const int64_t *ss);
void emu_tmem_free(Emu *E);
/* Accessors for tcgen05.cp (the end of emu-tmem.c): the CTA's tensor
 * memory made (false after an error), whether column c is allocated, the
 * live allocations ("columns 0..31, ..." or "none"), the 32-bit cell. */
bool emu_tmem_ready(Emu *E, Pos pos);
bool emu_tmem_allocated(Emu *E, int col);
const char *emu_tmem_allocs_str(Emu *E);
uint32_t *emu_tmem_cell(Emu *E, int lane, int col);

/* ---- tcgen05.cp, its descriptor and commit (emu-tccp.c) ------------------------------------ */

/* A C_GEMM statement for the threads act, each issuing its own (emu-gemm.c). */
bool emu_gemm(Emu *E, const CStmt *s, const int *act, int nact);

/* A C_TCCP statement for the threads act, each issuing its own. */
bool emu_tccp(Emu *E, const CStmt *s, const int *act, int nact);
/* One arrive on the mbarrier at bar by thread t (x the operand; op names
 * the builtin in errors): emu-ptx.c. */
bool emu_mbar_arrive(Emu *E, const CExpr *x, Pos p, int t, uint8_t *bar, const char *op);
/* A shared-memory matrix descriptor, decoded: the fields in bytes and the
 * swizzle mode. */
typedef struct SmemDesc {
	uint64_t d;
	int64_t start, lbo, sbo;
	const SmemSwizzle *sw;
} SmemDesc;
/* Decodes d for op (errors at `at`): its fixed fields, and only the modes
 * the emulator models (no swizzle mode 1, base offset 0). */
bool emu_smem_desc(Emu *E, Pos at, int t, const char *op, uint64_t d, SmemDesc *out);
/* The shared offset of row r's 16-byte chunk k of the matrix sd describes
 * (doc/tcgen05-cp.md's formula), checked: inside one shared buffer of the
 * CTA, not owned by a pending async copy (what names the matrix in
 * errors). */
bool emu_smem_desc_chunk(Emu *E, Pos pos, int t, const char *op, const char *what, const SmemDesc *sd, int r, int k,
                         int64_t *out);
/* The same for an MN-major matrix (tcgen05.mma with a transpose bit;
 * doc/tcgen05-mma.md): the shared offset of the 16-byte chunk c along MN
 * (elements 8c .. 8c+7 of 16-bit data) of K row k, checked the same way.
 *   no swizzle:      start + c * SBO + (k >> 3) * LBO + (k & 7) * 16
 *   swizzle, span S: swz(start + (c / (S/16)) * LBO + (k >> 3) * SBO
 *                        + (k & 7) * S + (c % (S/16)) * 16) */
bool emu_smem_desc_chunk_mn(Emu *E, Pos pos, int t, const char *op, const char *what, const SmemDesc *sd, int c, int k,
                            int64_t *out);

/* ---- tcgen05.mma and its instruction descriptor (emu-mma.c) ------------------------------ */

/* A C_TCMMA statement for the threads act, each issuing its own. */
bool emu_tcmma(Emu *E, const CStmt *s, const int *act, int nact);
/* The block-scaled ones (emu-mmas.c): the descriptor's encoder and the MMA
 * for thread t. */
static inline bool emu_tcmmas_op(const CStmt *s) { return s->op == IN_TC_IDESC_BS || s->opt[0]; }
bool emu_tcmmas(Emu *E, const CStmt *s, int t);

#endif
