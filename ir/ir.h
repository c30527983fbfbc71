/* txc IR: every type and prototype of the shared IR library, grouped by the
 * file that defines them. The IR is the syntax tree of the TIRx-like text
 * (doc/txir.md), annotated by sema.c with what each name and expression
 * means. Memory comes from one arena that lives until exit. */
#ifndef TXC_IR_H
#define TXC_IR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct Src Src;
typedef struct Pos Pos;
typedef struct Diag Diag;
typedef struct Expr Expr;
typedef struct Kw Kw;
typedef struct Stmt Stmt;
typedef struct Param Param;
typedef struct Alias Alias;
typedef struct Module Module;
typedef struct Layout Layout;
typedef struct Iter Iter;
typedef struct Value Value;
typedef struct Buffer Buffer;
typedef struct Var Var;
typedef struct Func Func;
typedef struct TensorMap TensorMap;
typedef struct Intrin Intrin;

/* ---- util.c ------------------------------------------------------------ */

extern const char *progname;        /* for messages with no position: set by cli_parse */
/* n zeroed bytes from the arena, aligned for any object, never freed (the
 * blocks are fresh zero pages and nothing is handed out twice); the path
 * of every allocation, so its common case is here, inline. */
extern char *xalloc_next, *xalloc_end;  /* the newest block's free part */
void *xalloc_block(size_t n);            /* a new block, n rounded */
static inline void *xalloc(size_t n)
{
	/* rounded to the alignment, not the size, of max_align_t: 16 bytes,
	 * where the size is 32 on x86-64 (a 144-byte Expr took 160) */
	enum { A = _Alignof(max_align_t) };
	n = n ? (n + A - 1) & ~(size_t)(A - 1) : A;
	if ((uintptr_t)xalloc_end - (uintptr_t)xalloc_next < n) /* 0 before the first block */
		return xalloc_block(n);
	void *p = xalloc_next;
	xalloc_next += n;
	return p;
}
void *xrealloc(void *p, size_t old, size_t n);
size_t arena_used(void);                 /* bytes handed out so far */
/* Room for n elements of `size` bytes in an array as large as vpush would
 * have grown it (a power of two), so that vpush may append to it. */
void *xalloc_vec(size_t size, int n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void arena_free_all(void);
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable array of pointers: `T **v; int n;` grown with vpush. */
#define vpush(v, n, x)                                                        \
	do {                                                                  \
		if (((n) & ((n)-1)) == 0)                                     \
			(v) = xrealloc((v), sizeof *(v) * (size_t)(n),        \
			               sizeof *(v) * (size_t)((n) ? 2 * (n) : 1)); \
		(v)[(n)++] = (x);                                             \
	} while (0)

/* A map from strings to pointers (open addressing, grown by doubling): the
 * one hash table of the library, for every lookup of a name. The keys are
 * not copied. */
typedef struct Map { struct MapSlot { const char *key; void *val; } *slots; int n, cap; } Map;
unsigned str_hash(const char *s);
void *map_get(const Map *m, const char *key);   /* NULL when absent */
void map_put(Map *m, const char *key, void *val); /* replaces an old value */
/* The same keyed by address (a node, a table row): for facts of one object
 * that a pass asks again. */
typedef struct PtrMap { struct PtrSlot { const void *key; void *val; } *slots; int n, cap; } PtrMap;
void *ptrmap_get(const PtrMap *m, const void *key);   /* NULL when absent */
void ptrmap_put(PtrMap *m, const void *key, void *val); /* replaces an old value */

/* Names bound in nested blocks, to pointers: a bind hides the same name's
 * older bind until names_pop(mark) unbinds back to a mark (names_mark()). */
typedef struct Names { Map top; struct NameBind { const char *name; void *val; int hidden; } *v; int n, cap; } Names;
void names_bind(Names *s, const char *name, void *val);
void *names_lookup(const Names *s, const char *name);  /* NULL when unbound */
static inline int names_mark(const Names *s) { return s->n; }
void names_pop(Names *s, int mark);

/* A string builder. next: where its text goes on, when the writer kept it
 * in pieces (txc-ptx's kernels), not copied into one; NULL for most. Only
 * the writers of a whole output (buf_write, write_buf) follow it. */
typedef struct Buf { char *s; size_t n, cap; struct Buf *next; } Buf;
void bputc(Buf *b, int c);
void bputs(Buf *b, const char *s);
void bprintf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vbprintf(Buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* n bytes of s, which holds no NUL among them */
void bputn(Buf *b, const char *s, size_t n);
/* Room in b for n more bytes and the NUL (grown by doubling): where they
 * go; the writer then adds n to b->n and puts the NUL. */
char *broom(Buf *b, size_t n);
/* A shape as Python writes the tuple: (128, 64), (8,). */
const char *shape_tuple(const int64_t *shape, int ndim);

/* Source text and positions (line and column count from 1; col in bytes). */
struct Src {
	const char *name;
	const char *text;
	size_t len;
};
/* Where a position's text is: the source, and the file it came from when
 * a `#@ FILE:LINE` comment said so (a Pos's line is then that file's
 * line; NULL: src itself). A lexer makes one for its source and one for
 * each comment that names another file, so that every Pos, in every
 * Expr, carries one pointer to them, not two. */
typedef struct Place { const Src *src; const char *file; } Place;
struct Pos {
	const Place *place; /* NULL: no position (a node a pass made) */
	int line, col;
	int off, len; /* byte offset and length of the token, for the caret */
};
static inline const Src *pos_src(Pos p) { return p.place ? p.place->src : NULL; }
/* The name to print for p, which has a place: the file, else the source's. */
static inline const char *pos_name(Pos p) { return p.place->file ? p.place->file : p.place->src->name; }
/* A new place in the arena (src is not NULL). */
const Place *new_place(const Src *src, const char *file);

/* Diagnostics go to `out` as `file:line:col: error: msg`, then the source
 * line and a caret under the token. */
struct Diag {
	FILE *out;
	int errors, warnings;
	int max_errors; /* stop reporting after this many (0: 20) */
};
void diag_init(Diag *d, FILE *out);
void error_at(Diag *d, Pos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void warn_at(Diag *d, Pos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void verror_at(Diag *d, Pos p, const char *kind, const char *fmt, va_list ap);

/* Reading a whole file (NULL name or "-": stdin); returns false and prints
 * `prog: error: cannot read ...` on failure, or when it is larger than
 * MAX_INPUT bytes. */
#define MAX_INPUT (256 << 20)
bool read_file(const char *prog, const char *name, Src *src);
/* src as the text read into `text` (NUL-terminated, as bputn keeps it),
 * named `name`; the arena keeps the text. */
void src_set(Src *src, Buf *text, const char *name);

/* ---- output.c: writing output files --------------------------------------- */

/* A file being written, by the same rules for every program: where nothing
 * or a regular file is, the output goes to a temporary file in the same
 * directory, renamed into place by output_close (a failed run leaves what
 * was there; the mode of a replaced file is kept). A device, FIFO or socket
 * is written in place. A symbolic link is followed and the file it names is
 * written by these rules; the link stays. A directory, and a file whose
 * mode has no w bit (e.g. 0444), are refused, even when root runs it. */
typedef struct Output {
	const char *name;  /* as given */
	char *path;        /* the file written: name with its links followed */
	char *tmp;         /* the temporary file; NULL when writing in place */
	int fd;            /* close-on-exec */
	char *err;         /* after a failure: "cannot write 'NAME': why" */
} Output;
bool output_open(Output *o, const char *name);
bool output_write(Output *o, const void *data, size_t n);
/* b's text, its pieces (next) after it */
bool buf_write(Output *o, const Buf *b);
/* keep: renames the temporary file into place; else removes it (what went
 * into a device stays). Returns false, with o->err, unless kept. */
bool output_close(Output *o, bool keep);
/* A whole output (NULL name or "-": stdout); prints `prog: error: ...` and
 * returns false on failure. */
bool write_file(const char *prog, const char *name, const char *text, size_t len);
bool write_buf(const char *prog, const char *name, const Buf *b);

/* ---- cli.c: the command line every program shares ------------------------ */

/* Options: `--name VALUE`, `--name=VALUE`, or a flag; -o FILE and --help are
 * always there. A usage error exits 2; --help prints and exits 0. */
typedef struct Opt {
	const char *name;   /* "--target", or a one-letter "-v" */
	const char *arg;    /* metavariable, NULL for a flag */
	const char *help;
	const char **value; /* where a value goes */
	bool *flag;         /* where a flag goes */
} Opt;
typedef struct Cli {
	const char *prog;
	const char *summary;  /* one line: what the program does */
	const Opt *opts;      /* terminated by a zero row */
	const char *input;    /* NULL: stdin */
	const char *output;   /* NULL: stdout */
	bool locations;       /* --locations: print #@ FILE:LINE comments */
	bool new_stmts;       /* the pass writes statements, which verifying puts in
	                       * canonical form: run_pass always verifies its output */
} Cli;
void cli_parse(Cli *c, int argc, char **argv);
_Noreturn void cli_usage_error(const Cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads, parses and (if asked) verifies a program for the target; NULL
 * after the errors are reported. */
Module *load_module(const char *prog, const char *file, int target, bool verify);
/* The file a module's text came from: read from a pipe, the file the
 * first location comment (`#@ FILE:LINE`, as the passes print them)
 * before a module-level statement names (for a module without
 * statements, its lone location comment's). */
const char *module_file(const Module *m);
/* The kernel called name (NULL: the first one), or NULL after saying which
 * kernels there are (naming module_file). */
Func *find_kernel(const char *prog, const Module *m, const char *name);

/* The body of a pass program: read and parse the input, verify, run `pass`
 * (may be NULL), verify again, print. Returns the exit status. */
int run_pass(Cli *c, int target, bool (*pass)(Module *m, Diag *d));

/* ---- tables.c: the facts that recur, one row each ------------------------ */

/* Element types. */
enum { DT_NONE = 0,
#define DTYPE(id, name, bits, kind, ctype, header) id,
#include "dtype.def"
#undef DTYPE
       DT_COUNT };
enum { DK_BOOL, DK_INT, DK_UINT, DK_FLOAT, DK_HANDLE };
typedef struct DType {
	const char *name;
	int bits;
	int kind;
	const char *ctype;  /* in emitted CUDA */
	const char *header; /* the CUDA header that declares ctype, or "" */
} DType;
extern const DType dtypes[DT_COUNT];
int dtype_lookup(const char *name); /* DT_NONE if unknown */
/* Expr->dtype of literals, which take the dtype of the other operand, and
 * of expressions in error. */
enum { DT_WEAK_INT = DT_COUNT, DT_WEAK_FLOAT, DT_ERROR };
int dtype_bytes(int dt);            /* bits/8, at least 1 */

/* The qualifiers of a copy's global load (T.cuda.copy_bytes' fourth
 * operand, Tx.copy's cache=, l1_evict= and prefetch_size=), in PTX's
 * order: "nc" (the read-only path, ld.global.nc), an L1 eviction priority
 * (.level1::eviction_priority: "L1::evict_normal", ...), an L2 prefetch
 * size ("L2::256B"). ld_quals_check: why `q`, such as
 * "nc.L1::no_allocate.L2::256B", is not a list of them, or NULL. */
extern const char *const ld_l1_evict[], *const ld_prefetch[];
const char *ld_quals_check(const char *q);
const char *ld_quals_list(const char *const *v); /* "a", "b", ... of a NULL-ended table */

/* Memory scopes. */
enum { SC_NONE = 0,
#define SCOPE(id, name, flags) id,
#include "scope.def"
#undef SCOPE
       SC_COUNT };
enum { SCF_MEM = 1,    /* addressed by the m axis */
       SCF_TMEM = 2,   /* addressed by TLane/TCol */
       SCF_THREAD = 4, /* private to a thread (may use thread axes) */
       SCF_SHARED = 8, /* CTA-shared memory */
       SCF_GLOBAL = 16 };
typedef struct Scope { const char *name; int flags; } Scope;
extern const Scope scopes[SC_COUNT];
int scope_lookup(const char *name);

/* The thread hierarchy (hierarchy.def): the execution scopes of tile ops
 * (`Tx.copy` thread, `Tx.warp.copy`, ...), innermost first, and the
 * threads of one group of each (ES_WARP_SIZE, ...). */
enum {
#define LEVEL(id, name, threads) id,
#include "hierarchy.def"
#undef LEVEL
	ES_COUNT };
enum {
#define LEVEL(id, name, threads) id##_SIZE = threads,
#include "hierarchy.def"
#undef LEVEL
};
extern const char *const exec_scope_names[ES_COUNT];
/* The threads of one group of scope es in a CTA of n threads (the CTA
 * and the cluster: n). */
int64_t level_threads(int es, int64_t n);

/* Layout axes. */
enum {
#define AXIS(id, name, kind, extent, outer, inner) id,
#include "axis.def"
#undef AXIS
	AX_COUNT };
enum { AXK_MEM, AXK_TMEM, AXK_THREAD };
typedef struct Axis {
	const char *name;
	int kind;
	int extent;         /* a tensor-memory axis's */
	int outer, inner;   /* a thread axis: it counts inner groups in an outer one */
} Axis;
extern const Axis axes[AX_COUNT];
int axis_lookup(const char *name); /* -1 if unknown */
/* Whether the axis is derived from the thread index in the CTA (not the
 * cluster axes). */
bool axis_of_thread(int axis);
/* A thread axis: t % mod / div for thread t of the CTA (mod 0: none). */
int64_t axis_mod(int axis);
int64_t axis_div(int axis);
/* Its value for thread t of the CTA. */
int64_t axis_value(int axis, int64_t t);
/* How many values it takes in a CTA of n threads. */
int64_t axis_count(int axis, int64_t n);
/* The thread of the CTA of n threads, among first..last, whose thread
 * axes take the values c[a] for every axis a in the bit set used; -1 when
 * none does. */
int64_t axes_thread(unsigned used, const int64_t *c, int64_t first, int64_t last);

/* GPU targets, oldest first, and their limits (target.def). */
enum {
#define TARGET(id, name, threads, smem, local) id,
#include "target.def"
#undef TARGET
	TG_COUNT
};
typedef struct Target {
	const char *name;
	int64_t threads;      /* threads per CTA */
	int64_t smem;         /* bytes of shared memory per CTA */
	int64_t local;        /* bytes of local memory per thread */
} Target;
extern const Target targets[TG_COUNT];

/* The launch ids that name a thread (launch.def). */
typedef struct LaunchId {
	int id;
	int axis;             /* the thread axis it is the value of */
} LaunchId;
/* The row of a thread launch id, or NULL (T.cta_id, anything else). */
const LaunchId *thread_launch(int id);
/* The launch ids that name a CTA of the grid (launch.def). */
typedef struct GridId {
	int id;
	bool in_cluster;      /* c % k: the CTA's coordinate in its cluster */
	bool of_cluster;      /* c / k: its cluster's coordinate in the grid */
	const char *cuda;     /* CUDA C (blockIdx.%c) or a PTX special register (%...) */
	const char *declares; /* what its extents declare */
} GridId;
/* The row of a grid launch id (T.cta_id, T.cta_id_in_cluster,
 * T.cluster_id), or NULL. */
const GridId *grid_launch(int id);
/* Its value in one dimension for grid coordinate c, in clusters of k CTAs. */
int64_t grid_value(const GridId *g, int64_t c, int64_t k);
/* Any launch id: a grid one or a thread one. */
bool is_launch_id(int id);
/* The value of a thread launch id for thread t of the CTA. */
int64_t launch_value(const LaunchId *l, int64_t t);
/* The extent a CTA of n threads declares for it. */
int64_t launch_extent(const LaunchId *l, int64_t n);
/* Its value in CUDA C: threadIdx.x % mod / div. */
const char *launch_cuda(const LaunchId *l);
extern const char *const target_names[TG_COUNT];
int target_lookup(const char *name); /* -1 if unknown */
bool target_has(int target, int need);

/* Intrinsics and builtin functions of the T/Tx namespace (intrin.def). */
enum {
#define INTRIN(id, path, args, kws, target, doc) id,
#include "intrin.def"
#undef INTRIN
	IN_COUNT };
struct Intrin {
	const char *path; /* dotted name below the T/Tx namespace */
	const char *args; /* positional operand kinds, see intrin.def */
	const char *kws;  /* keyword operands, see intrin.def */
	int target;       /* minimum target */
	const char *doc;
};
extern const Intrin intrins[IN_COUNT];
int intrin_lookup(const char *path); /* -1 if unknown */
bool intrin_is_prefix(const char *path); /* a namespace such as "ptx" */
/* The table as Markdown, for doc/txir.md (txc-parse --intrinsics). */
void print_intrinsics(Buf *b);
/* ptx.c: the PTX dialect (ptx.def). Whether a path such as
 * "T.cuda.mbarrier_wait" is a TVM builtin that means a txc builtin; the
 * dialect's table as Markdown (txc-parse --ptx). */
bool ptx_is_alias(const char *path);
void print_ptx(Buf *b);

/* The shapes of tcgen05.ld/st (tcgen05.def). */
enum {
#define TCGEN05_SHAPE(id, name, lanes, bits) id,
#include "tcgen05.def"
#undef TCGEN05_SHAPE
	TC_NSHAPES };
#define TCGEN05_MAX_REGS 128 /* registers per thread of one tcgen05.ld/st */
typedef struct Tcgen05Shape {
	const char *name;
	int lanes, bits; /* a warp's lanes and the bits of each, per repetition */
	int regs;        /* 32-bit registers per thread per repetition */
	int cols;        /* 32-bit tensor-memory columns per repetition */
	int max_num;     /* the most repetitions: TCGEN05_MAX_REGS / regs */
} Tcgen05Shape;
extern const Tcgen05Shape tcgen05_shapes[TC_NSHAPES];
const Tcgen05Shape *tcgen05_shape(const char *name); /* NULL if unknown */
/* The names as a list: "32x32b, 16x64b, 16x128b and 16x256b" (last: "and"). */
const char *tcgen05_shape_list(const char *last);
/* The table as Markdown, for doc/txir.md (txc-parse --tcgen05). */
void print_tcgen05(Buf *b);

/* tcgen05.cp's shapes and the descriptor's swizzle modes (tccp.def). */
enum {
#define TCCP_SHAPE(id, shape, mc, rows, bits, rs, rep, reps, split, extra) id,
#define SMEM_SWIZZLE(arg, layout, pitch, bbits, mshift, name)
#include "tccp.def"
#undef TCCP_SHAPE
#undef SMEM_SWIZZLE
	TCCP_NSHAPES };
typedef struct TccpShape {
	const char *shape, *multicast;
	int rows, bits;
	int row_stride, replicas, rep_stride, split, split_extra; /* the lanes of a row: tccp.def */
} TccpShape;
extern const TccpShape tccp_shapes[TCCP_NSHAPES];
/* The row of (shape, multicast) ("" none); NULL if PTX has no such pair. */
const TccpShape *tccp_shape(const char *shape, const char *multicast);
/* Source row r's lane, replica j, relative to the address's lane. */
static inline int tccp_lane(const TccpShape *s, int r, int j)
{
	return r * s->row_stride + (r >= s->split ? s->split_extra : 0) + j * s->rep_stride;
}
typedef struct SmemSwizzle {
	int arg, layout, pitch, bbits, mshift;
	const char *name;
} SmemSwizzle;
enum { SMEM_NSWIZZLES = 5 };
extern const SmemSwizzle smem_swizzles[SMEM_NSWIZZLES];
/* The mode with the descriptor's layout field (bits [63:61]); NULL: invalid. */
const SmemSwizzle *smem_swizzle_layout(int layout);

/* tcgen05.mma .kind::f16: the instruction descriptor's fields and the
 * shapes (tcmma.def). */
enum {
#define IDESC(id, lo, bits, name, want) id,
#define MMA_ITYPE(dt, code)
#define MMA_SHAPE(cg, m, step)
#include "tcmma.def"
#undef IDESC
#undef MMA_ITYPE
#undef MMA_SHAPE
	IDESC_NFIELDS };
enum { MMA_K = 16 }; /* K of one .kind::f16 MMA (Table 39) */
/* Field f of the instruction descriptor d. */
unsigned idesc_field(uint32_t d, int f);
/* The atype/btype code of dtype dt; -1 if .kind::f16 does not take it. */
int mma_itype_code(int dt);
/* The dtype of an atype/btype code; DT_NONE if none. */
int mma_itype_dtype(unsigned code);
/* Why (M, N) is not a dense .kind::f16 shape of cta_group cg, or NULL. */
const char *mma_shape_invalid(int cg, int64_t m, int64_t n);
/* Why the instruction descriptor d is not one txc emits and runs for
 * cta_group cg ("has sparsity (bit 2) = 1, not 0", ...), or NULL. */
const char *idesc_invalid(uint32_t d, int cg);
/* The descriptor of a dense .kind::f16 MMA with D in float32. */
uint32_t idesc_encode(int atype, int btype, int64_t m, int64_t n, bool trans_a, bool trans_b, bool neg_a, bool neg_b);

/* The block-scaled tcgen05.mma .kind::mxf8f6f4 (.block_scale.scale_vec::1X):
 * its instruction descriptor's fields, A's and B's formats, the scale
 * type and the shapes (tcmma.def's IDESCS, MMAS_* rows). */
enum {
#define IDESCS(id, lo, bits, name, want) id,
#include "tcmma.def"
#undef IDESCS
	IDESCS_NFIELDS };
enum { MMAS_K = 32 }; /* K of one dense .kind::mxf8f6f4 MMA (Table 39): 32 bytes a row */
/* One element format of A and B (MMAS_FORMAT). */
typedef struct MmasFormat { const char *name; int code, dt, ebits, mbits; } MmasFormat;
/* Field f of the block-scaled instruction descriptor d. */
unsigned idescs_field(uint32_t d, int f);
/* The format named name (a dtype name as TVM spells it) or with atype/btype
 * code; NULL if .kind::mxf8f6f4 has none. */
const MmasFormat *mmas_format_named(const char *name);
const MmasFormat *mmas_format_code(unsigned code);
/* The scale-type code of name ("float8_e8m0fnu"); -1 if none. */
int mmas_scale_code(const char *name);
/* "float8_e4m3fn, float8_e5m2, ..." (the formats' names). */
const char *mmas_format_names(void);
/* Why (M, N) is not a dense block-scaled shape of cta_group cg, or NULL. */
const char *mmas_shape_invalid(int cg, int64_t m, int64_t n);
/* Why the block-scaled descriptor d is not one txc emits for cta_group cg,
 * or NULL. */
const char *idescs_invalid(uint32_t d, int cg);
/* The block-scaled descriptor (scale type UE8M0) with scale-factor ids
 * a_sf and b_sf (0..3). */
uint32_t idescs_encode(int afmt, int bfmt, int64_t m, int64_t n, bool trans_a, bool trans_b, bool neg_a, bool neg_b,
                       int a_sf, int b_sf);

/* Why the 64-bit shared-memory descriptor d is invalid ("has bits [48:46]
 * ..."), or NULL: its fixed fields (PTX ISA 9.7.16.4.1). */
const char *smem_desc_invalid(uint64_t d);

/* Modules that `from M import ...` accepts. */
typedef struct ModuleName { const char *module, *name, *means; } ModuleName;
const char *import_lookup(const char *module, const char *name, bool *known_module);
/* The name s takes in CUDA C: itself, or with a '_' after it where CUDA C,
 * its headers or txc's generated code already use it (the kernel "main"
 * becomes "main_", and the launcher looks it up so). */
const char *cuda_name(const char *s);

/* ---- ast.c: the syntax tree ---------------------------------------------- */

enum ExprKind {
	E_INT, E_FLOAT, E_STR, E_TRUE, E_FALSE, E_NONE,
	E_NAME,  /* name */
	E_ATTR,  /* a.name */
	E_CALL,  /* a(args..., kws...) */
	E_INDEX, /* a[args...] */
	E_SLICE, /* a:b:c, any of them may be NULL */
	E_TUPLE, E_LIST,
	E_BIN,   /* a op b */
	E_UN,    /* op a */
	E_CMP,   /* a op b (chains are rejected by the parser) */
	E_AND, E_OR, E_NOT,
	E_COND,  /* b if a else c */
	E_STAR,  /* *a (op 1) in a call, tuple, list or subscript; **a (op 2) in a dict */
	E_DICT,  /* {k: v, **d}: args are E_PAIR or E_STAR items */
	E_PAIR,  /* a: b, an item of a dict */
	E_COMP,  /* a comprehension: op is COMP_*; a the element (an E_PAIR for a
	          * dict); args its E_COMPFOR clauses */
	E_COMPFOR, /* for a in b if args[0] if args[1] ... */
	E_FSTR,  /* f"...": args are E_STR pieces and E_FIELD fields */
	E_FIELD, /* {a!op:str} of an f-string: op the conversion ('r', 's' or 0),
	          * str the format spec (NULL: none) */
	E_LAMBDA, /* lambda args...: a (args the parameters' names) */
};
enum { COMP_LIST, COMP_GEN, COMP_DICT };
/* The keyword name of `**x` in a call's keywords. */
#define KW_SPLAT "**"
/* Binary/unary/comparison operators, with their spelling and precedence. */
enum {
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_MATMUL, OP_POW,
	OP_SHL, OP_SHR, OP_BITAND, OP_BITOR, OP_BITXOR,
	OP_NEG, OP_POS, OP_INVERT,
	OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
	OP_COUNT
};
extern const char *const op_spelling[OP_COUNT];

struct Kw {
	const char *name;
	Expr *value;
	Pos pos;
};

enum { EXPR_DEPTH_BITS = 14 };
struct Expr {      /* 112 bytes (2.4 million of them in a long kernel): the
	            * small fields packed into the first 8; the fields every walk
	            * reads (parsing, verifying, printing) first, in the first 64
	            * bytes: a long kernel's IR is far larger than the caches, and
	            * a walk pays for each cache line of a node */
	enum ExprKind kind : 8; /* GCC and Clang take an enum bit-field */
	signed char op;    /* E_BIN, E_UN, E_CMP: the operator (OP_COUNT < 128) */
	signed char es;    /* a tile op: its execution scope (set by sema) */
	signed char dtype; /* dtype of a runtime scalar expression (set by sema) */
	short intrin;      /* a call: the builtin it calls (-1: none; set by sema) */
	/* levels of the tree below and including this node, as the parser
	 * counts them: at most MAX_EXPR_DEPTH + 1 (parse.y asserts it fits) */
	unsigned depth : EXPR_DEPTH_BITS;
	bool paren : 1;    /* tuple written in parentheses (printing hint) */
	bool rebound : 1;  /* a name's first assignment in a kernel, assigned
	                    * again later in its scope: a mutable variable */
	int nargs;
	int nkws;
	Expr *a, *b;
	Expr **args;
	const char *str;   /* string literal, name, or attribute name */
	union {            /* one node is one literal */
		int64_t ival;  /* E_INT */
		double fval;   /* E_FLOAT */
	};
	/* set by sema */
	Value *val;        /* compile-time value, if any */
	Expr *c;
	Kw *kws;
	Var *var;          /* a name: the runtime value it means */
	Pos pos;
};
_Static_assert(OP_COUNT <= 127 && IN_COUNT <= 32767 && DT_ERROR <= 127 && ES_COUNT <= 127,
               "Expr's small fields hold every operator, builtin, dtype and scope");
/* xalloc rounds to 16 bytes: a field more costs 16 bytes a node */
_Static_assert(sizeof(void *) != 8 || sizeof(Expr) == 112, "Expr is 112 bytes on LP64");

enum StmtKind {
	S_EXPR, S_ASSIGN, S_AUGASSIGN, S_IF, S_FOR, S_PASS, S_FUNC, S_IMPORT,
	S_DECL, /* `name: annotation`, a variable declared without a value */
	S_RETURN, S_RAISE, /* a helper function's (value: NULL where none) */
	S_WHILE, /* `while value: body` (no else) */
};

struct Alias { const char *name, *as; Pos pos; };

struct Param {
	const char *name;
	Expr *type;
	Pos pos;
	Expr *dflt; /* `name=default`: a helper function's */
};

struct Stmt {      /* 160 bytes: the counts and flags together, then the
	            * pointers (the arena rounds to 16 bytes; so grouped, a
	            * long kernel's statements take a sixth less) */
	enum StmtKind kind;
	int ntargets, op, nbody, norelse, ndecorators, nparams, naliases;
	bool elif; /* S_IF in an else branch printed as elif */
	bool from; /* S_IMPORT: `from module import aliases` */
	Pos pos;
	/* S_EXPR: value. S_ASSIGN: targets = value (several targets: a tuple).
	 * S_AUGASSIGN: targets[0] op= value. S_DECL: targets[0]: ann. */
	Expr **targets;
	Expr *value;
	Expr *ann;  /* S_ASSIGN, S_DECL: the annotation of `name: ann = value` */
	/* S_IF, S_WHILE: value is the condition; S_FOR: targets[0] in value */
	Stmt **body;
	Stmt **orelse;
	/* S_FUNC */
	const char *name;
	Expr **decorators;
	Param *params;
	Expr *ret;
	Func *func; /* set by sema */
	/* S_IMPORT: `from module import aliases` or `import module as x` */
	const char *module;
	Alias *aliases;
};
_Static_assert(sizeof(void *) != 8 || sizeof(Stmt) == 160, "Stmt is 160 bytes on LP64");

struct Module {
	const Src *src;
	Stmt **body;
	int nbody;
	int target; /* for intrinsic checks; TG_ANY: no check */
	/* a module without statements read from IR: the file its #@ comment
	 * names (print_module_locations writes one for such a module) */
	const char *file;
	/* set by sema: the names bound at module level, in order */
	struct Binding { const char *name; Value *value; } *names;
	int nnames;
	Map byname; /* name -> its last Binding's value */
};

Expr *new_expr(enum ExprKind kind, Pos pos);
/* A fresh copy of a syntax tree, as the parser made it (nothing sema sets). */
Expr *expr_copy(const Expr *e);
Stmt *new_stmt(enum StmtKind kind, Pos pos);
/* TVM's `m = T.int32()` in a verified kernel: it only names a scalar
 * parameter (sema made m one), and code is made for nothing in it. */
bool stmt_names_param(const Stmt *s);
Expr *new_int(Pos pos, int64_t v);
Expr *new_name(Pos pos, const char *name);
Expr *new_call(Pos pos, Expr *fn);
void call_add_arg(Expr *call, Expr *arg);
/* e's operands (args, nargs): a copy of the n of v, in one array as large
 * as vpush would have grown it, so that call_add_arg and vpush append. */
void expr_set_args(Expr *e, Expr *const *v, int n);
void call_add_kw(Expr *call, const char *name, Expr *value, Pos pos);
Kw *call_kw(const Expr *call, const char *name);
/* call_builtin: below, after struct Value */
/* After verify_module: whether the operand x of T.evaluate(x) is a value,
 * computed and dropped (a load, T.cast(...)), not a call made for its effect. */
bool evaluated_value(const Expr *x);
/* An integer e is after verify_module: its literal, or the constant sema
 * found for it (val); false when it is neither. */
bool expr_int(const Expr *e, int64_t *v);
/* The deepest of e's operands' depths (the field every tree keeps, at
 * most MAX_EXPR_DEPTH where it was checked); e's own is one more. Inline:
 * the parser asks it of every node it makes. */
static inline int expr_child_depth(const Expr *e)
{
	int d = e->a ? e->a->depth : 0;
	if (e->b && e->b->depth > d)
		d = e->b->depth;
	if (e->c && e->c->depth > d)
		d = e->c->depth;
	for (int i = 0; i < e->nargs; i++)
		if (e->args[i]->depth > d)
			d = e->args[i]->depth;
	for (int i = 0; i < e->nkws; i++)
		if (e->kws[i].value->depth > d)
			d = e->kws[i].value->depth;
	return d;
}
/* Where the text of e begins (binary operators sit at their operator; a
 * call's position already spans its whole callee). */
Pos expr_start(const Expr *e);
/* "T.ptx.tcgen05.alloc" for a chain of names and attributes, else NULL. */
const char *dotted_name(const Expr *e);

/* ---- parse.y / lex.l: the reader ------------------------------------------ */

/* Parses src; on error reports through d and returns NULL. */
Module *parse_module(const Src *src, Diag *d);

/* ---- print.c: the canonical printer --------------------------------------- */

void print_module(Buf *b, const Module *m);
/* The same, with `#@ FILE:LINE` comments wherever a statement's source line
 * is not the one the reader would count: the next pass then reports errors
 * at the user's lines (doc/txir.md, section 11). */
void print_module_locations(Buf *b, const Module *m);
void print_expr(Buf *b, const Expr *e);
void print_stmt(Buf *b, const Stmt *s, int indent);
char *expr_str(const Expr *e);

/* ---- eval.c: compile-time values ------------------------------------------- */

enum ValueKind {
	V_INT, V_FLOAT, V_STR, V_BOOL, V_NONE,
	V_TUPLE,   /* also lists */
	V_SLICE,   /* lo:hi:step, any of them NULL */
	V_STRIDE,  /* n @ axis */
	V_AXIS,    /* an axis name: axis */
	V_LAYOUT,
	V_DTYPE,   /* T.float16 used as a value */
	V_FUNC,    /* a builtin: intrin index */
	V_NAMESPACE, /* T, Tx, T.ptx, ...: dotted path below the root */
	V_BUFFER,
	V_DATA,    /* buf.data: a buffer's storage */
	V_REGION,  /* buf[slices]: buffer, starts, extents */
	V_VAR,     /* a runtime scalar */
	V_HANDLE,  /* a T.handle parameter */
	V_PRIMFUNC,
	V_DICT,    /* elts: the keys, vals: the values, nelts entries */
	V_TMAP,    /* a tensor map: tmap */
	V_TLAYOUT, /* a Triton layout (NVMMASharedLayout, TensorMemoryLayout):
	            * tl; it takes its shape from the buffer (triton_layout) */
	V_OPAQUE,  /* a name from a module txc does not know: s the module;
	            * i 1 when txc knows the module but not the name */
	V_PYFUNC,  /* a module-level helper function (helper.c): func->stmt its
	            * def, elts its parameters' default values (NULL: none) */
};

struct Value {     /* no padding; the kind first (read by every use) */
	enum ValueKind kind;
	int nelts;
	int64_t i;      /* V_INT, V_BOOL; V_STRIDE: the stride */
	double f;
	const char *s;  /* V_STR; V_NAMESPACE path */
	Value **elts;   /* V_TUPLE; V_SLICE: lo, hi, step; V_DICT: keys */
	Value **vals;   /* V_DICT: values */
	const char *name; /* V_OPAQUE: the name imported from module s */
	Layout *layout;
	Buffer *buffer;
	Var *var;
	Func *func;
	TensorMap *tmap;  /* V_TMAP */
	const struct TritonLayout *tl; /* V_TLAYOUT */
	Expr *macro;      /* V_DICT bound by `name = T.meta_var({...})` in a kernel: the dict
	                   * display, whose items `**name` writes into a call (a fresh copy each) */
	Expr **starts;    /* V_REGION: per dimension */
	int64_t *extents;
	int axis;       /* V_STRIDE */
	int dtype;      /* V_DTYPE */
	int intrin;     /* V_FUNC */
	int ndim;
	bool list;      /* V_TUPLE: written as a list */
};

/* After verify_module: the builtin a call names (-1: none), the execution
 * scope of a tile op, and for T.float16(x) and the like the dtype (here:
 * the backends ask it of every call) */
static inline int call_builtin(const Expr *call, int *es, int *dtype)
{
	if (es)
		*es = call->es;
	if (dtype)
		*dtype = call->a && call->a->val && call->a->val->kind == V_DTYPE ? call->a->val->dtype : DT_NONE;
	return call->intrin;
}

Value *vint(int64_t i);
Value *vnew(enum ValueKind kind);
const char *value_kind_name(const Value *v);

/* ---- tvm.c: TVM's spellings (tvm.def) ------------------------------------------ */

/* The variant that honours TVM tile-op keyword `name`, or NULL when it is
 * not one txc honours (dispatch=, mbar=, plans= are txc's own). */
const char *tile_kw_variant(const char *name);
/* The table of TVM's spellings as Markdown, for doc/txir.md (txc-parse --tvm). */
void print_tvm(Buf *b);

/* ---- layout.c: TileLayout and its constructors ----------------------------- */

/* A layout written by a user has at most this many iters in its shard and
 * in its replicas. */
#define LAYOUT_MAX_ITERS 64

struct Iter {
	int64_t extent;
	int64_t stride;
	int axis;
};

struct Layout {
	Iter *shard;
	int nshard;
	Iter *rep;
	int nrep;
	int64_t off[AX_COUNT];
	/* swizzle (ComposeLayout): bits per element M, length B, atom S */
	bool swizzled;
	int swz_m, swz_b, swz_s;
	/* layout_apply_coord's grouping for the last shape it was given:
	 * made on first use (layout_cache), NULL before; shared by a struct
	 * copy of the layout, whose iters must then not change */
	struct LayoutCache *cache;
};
typedef struct LayoutCache {
	struct Layout *grouped;
	int64_t gshape[8];
	int gndim;
	int gdims[9];
} LayoutCache;

Layout *layout_new(void);
LayoutCache *layout_cache(const Layout *l); /* l's cache, made if it has none */
Layout *layout_copy(const Layout *l);
/* Number of logical elements (product of the shard extents). */
bool layout_size(const Layout *l, int64_t *out);
/* Storage the layout touches on one axis: 1 + sum (e-1)*s + offset. */
bool layout_span(const Layout *l, int axis, int64_t *out);
bool layout_uses_axis_kind(const Layout *l, int kind);
void layout_push(Layout *l, bool replica, int64_t extent, int64_t stride, int axis);
/* The named layouts; each returns NULL or the reason it cannot be built. */
const char *layout_default(Layout *l, const int64_t *shape, int n);
const char *layout_wg_local(Layout *l, int64_t cols, int64_t rows);
const char *layout_tmem_datapath(Layout *l, const char *dp, int64_t rows, int64_t cols, int64_t sub_slab);
const char *layout_tcgen05_atom(Layout *l, const char *shape, int64_t rows, int64_t cols, int dtype);
const char *layout_tcgen05_atom_num(Layout *l, const char *shape, int64_t rows, int64_t cols, int dtype, bool any_num);
const char *layout_mma_shared(Layout *l, int dtype, int64_t swizzle, const int64_t *shape, int n);

/* ---- triton.c: Triton's layouts (doc/txir.md, "Triton's layouts") --------- */

/* NVMMASharedLayout(...) or TensorMemoryLayout(...) as written: its
 * arguments checked on their own, and where each is, for the messages of
 * the checks that need the buffer. */
typedef struct TritonLayout {
	int kind;            /* IN_NVMMA_SHARED or IN_TMEM_LAYOUT */
	int64_t swizzle;     /* NVMMA: swizzle_byte_width: 0, 32, 64, 128 */
	int64_t bits;        /* NVMMA: element_bitwidth */
	int64_t rank;        /* NVMMA: the rank of the layout (a buffer may have one more, leading, dimension) */
	bool transposed;     /* NVMMA */
	int64_t block_m, block_n; /* TMEM */
	int64_t col_stride;  /* TMEM: 32-bit columns between adjacent elements' columns; 0: from unpacked */
	bool unpacked;       /* TMEM: the older spelling, col_stride = 32 / bits */
	Pos at, at_swizzle, at_bits, at_rank, at_block, at_stride; /* the call, its arguments (the call if absent) */
} TritonLayout;
/* The txc layout of `t` for a buffer of `shape` and `dtype`; NULL, or the
 * reason it cannot be built and in *where the argument it is about. */
const char *triton_layout(Layout *l, const TritonLayout *t, const int64_t *shape, int ndim, int dtype, Pos *where);

/* ---- algebra.c: what a layout does, and operations that keep it ---------- */

/* apply, first form: the coordinate on every axis of logical element
 * `flat` (row-major over the logical shape): split over the shard extents
 * innermost first (the outermost part is not reduced), add part * stride to
 * each iter's axis, add the offsets, then swizzle m. Replicas are left out;
 * layout_replica adds the contribution of replica combination r. Every
 * function returns false on overflow. */
bool layout_apply(const Layout *l, int64_t flat, int64_t out[AX_COUNT]);
/* apply, second form: one coordinate per shard iter, no splitting. */
bool layout_apply_iters(const Layout *l, const int64_t *coord, int64_t out[AX_COUNT]);
/* apply, third form: logical coordinates with the shape of the buffer; each
 * coordinate is split within the iters of its own dimension when the layout
 * groups by that shape, else the coordinates are flattened first. */
bool layout_apply_coord(const Layout *l, const int64_t *shape, int ndim, const int64_t *coord,
                        int64_t out[AX_COUNT]);
int64_t layout_nreplicas(const Layout *l);
void layout_replica(const Layout *l, int64_t r, int64_t out[AX_COUNT]);
/* The storage a layout reaches on m: its span, or for a swizzled layout
 * one past the largest of its addresses after the swizzle. */
bool layout_reach(const Layout *l, int64_t *out);
/* The swizzle of a ComposeLayout on an m address (identity if none). */
int64_t layout_swizzle(const Layout *l, int64_t addr);
/* Drop extent-1 iters, fuse adjacent iters on one axis when
 * outer.stride == inner.extent * inner.stride. */
Layout *layout_canonical(const Layout *l);
/* The layout without its thread-axis iters and offsets: what one thread,
 * or the memory, sees. */
Layout *layout_storage(const Layout *l);
/* Split iters so that each dimension of `shape` is a run of whole iters;
 * dims[d] .. dims[d+1]-1 are the iters of dimension d (dims has ndim+1
 * entries). NULL with *why set when an iter cannot be split evenly. */
Layout *layout_group(const Layout *l, const int64_t *shape, int ndim, int *dims, const char **why);
/* The layout of the region start[d] .. start[d]+extent[d] of a buffer of
 * `shape`: the start moves into the offsets, extents shrink. */
Layout *layout_slice(const Layout *l, const int64_t *shape, int ndim, const int64_t *start,
                     const int64_t *extent, const char **why);
/* The same from g, l grouped by shape (layout_group's result and dims),
 * which it changes into the slice and returns; NULL as layout_slice. */
Layout *layout_slice_grouped(Layout *g, const int *dims, const int64_t *shape, int ndim, const int64_t *start,
                             const int64_t *extent, const char **why);
/* Blocks of `inner` (shape ishape) arranged by `outer` (shape oshape): per
 * dimension, the outer iters with strides scaled by the inner span on their
 * axis, then the inner iters; the result has shape oshape * ishape. */
Layout *layout_tile(const Layout *outer, const int64_t *oshape, const Layout *inner,
                    const int64_t *ishape, int ndim, const char **why);
/* Splits the iters of a and b (of equal size) until both shards have the
 * same extents, innermost first; extent-1 iters are dropped. Their shard
 * arrays are new ones, or the same where they are split alike already:
 * the caller owns them (plan_align's layouts, made for it, and sorted
 * in place after). */
bool layout_refine(Layout *a, Layout *b, const char **why);
/* The text of a layout, in the syntax the parser reads:
 * S[(8, 4) : (4 @ laneid, 1)] + R[2 : 4 @ warpid] + 1 @ laneid + 64, or
 * ComposeLayout(M, B, S, ...) around it. */
char *layout_str(const Layout *l);
/* Checked integer arithmetic (false on overflow). */
bool mul_ok(int64_t a, int64_t b, int64_t *r);
bool add_ok(int64_t a, int64_t b, int64_t *r);

/* ---- arith.c: integer facts about checked index expressions --------------- */

/* Inclusive bounds from the ranges of launch ids and loop variables. */
bool expr_range(const Expr *e, int64_t *lo, int64_t *hi);
typedef struct Range { int64_t lo, hi; bool ok; } Range;
bool expr_range_step(const Expr *e, const Range *r, int64_t *lo, int64_t *hi); /* one node, from its operands' */
/* hi - lo, when it is a constant (polynomial cancellation). */
bool expr_const_diff(const Expr *hi, const Expr *lo, int64_t *out);
/* A number that provably divides e (0: e is 0; 1: nothing known). */
int64_t expr_multiple(const Expr *e);
/* expr_range of e, and *mult its expr_multiple, in one walk. */
bool expr_range_multiple(const Expr *e, int64_t *lo, int64_t *hi, int64_t *mult);
/* Whether n provably divides e; false also when it cannot be proven. */
bool expr_divisible(const Expr *e, int64_t n);

/* ---- build.c: expressions made by passes ---------------------------------- */

Expr *ex_int(int64_t v);
Expr *ex_int_shared(int64_t v); /* one node per value: see its callers */
Expr *ex_str(const char *s); /* a string literal */
Expr *ex_name(const char *name);
Expr *ex_add(Expr *a, Expr *b);   /* these fold constants and drop 0 and 1 */
Expr *ex_mul(Expr *a, Expr *b);
Expr *ex_div(Expr *a, int64_t d);
Expr *ex_mod(Expr *a, int64_t d);
Expr *ex_op(int op, Expr *a, Expr *b);
Expr *ex_call(const char *dotted, int n, Expr **args);
Expr *ex_index(Expr *base, int n, Expr **idx);
Expr *ex_swizzle(const Layout *l, Expr *offset);

/* ---- storage.c: where elements live ------------------------------------------ */

/* The buffer whose storage a view or decl_buffer(data=) shares. */
Buffer *buffer_root(Buffer *b);
/* Elements of storage the buffer needs (per thread for local buffers). */
int64_t buffer_storage(const Buffer *b);
/* The storage offset of a logical element as an expression of index
 * expressions (with the swizzle). */
Expr *buffer_offset_expr(const Buffer *b, Expr **idx, const char **why);
/* Places the kernel's shared buffers (smem_off); returns the bytes used. */
int64_t smem_plan(Func *f);
/* The dynamic shared memory a launch needs: smem_plan, plus 1024 when a
 * buffer is swizzled or has align= above 16, since the kernel rounds its
 * base up to 1024 bytes; at least what T.attr({"tirx.dyn_smem_bytes": N})
 * asks for. The backend, the launcher and the emulator all use this one
 * rule. */
int64_t smem_bytes(Func *f);
/* Whether the kernel rounds its shared memory base up to 1024 bytes. */
bool smem_rounds_base(Func *f);
/* Places the kernel's local buffers in each thread's local memory, 16-byte
 * aligned (local_off); returns the bytes a thread needs. Sizes saturate at
 * INT64_MAX. */
int64_t local_plan(Func *f);

/* ---- ieval.c: integer expressions with Python's semantics -------------------- */

/* x op y for the integer operators (floor // and %, comparisons as 0 or
 * 1); false on an overflow, a division by zero or a negative shift. */
bool int_binop(int op, int64_t x, int64_t y, int64_t *out);
/* What int_eval knows of a value, from best to worst: known, the same for
 * every thread of a CTA but not known here, or nothing. */
enum { IV_KNOWN, IV_UNIFORM, IV_UNKNOWN, IV_FOLLOW };
typedef struct IntEnv IntEnv;
struct IntEnv {
	/* A name's value: IV_KNOWN with *out, IV_UNIFORM, IV_UNKNOWN, or
	 * IV_FOLLOW to evaluate its let-bound definition instead. */
	int (*name)(IntEnv *env, const Expr *name, int64_t *out);
	int64_t budget;     /* nodes left to visit: definitions can nest exponentially */
	void *ctx;
};
/* The value of an integer or boolean expression (IV_*): a combination is
 * as good as its worst operand; past the budget, or on an overflow,
 * IV_UNKNOWN. */
int int_eval(const Expr *e, IntEnv *env, int64_t *out);
/* The names of a condition for thread *(int64_t *)env->ctx of the CTA:
 * thread launch ids known, grid ids and loop variables uniform, let-bound
 * names followed, run-time variables unknown. */
int int_thread_name(IntEnv *env, const Expr *e, int64_t *out);

/* ---- variants/: the copy variants, their families and plans ----------------- */

/* Memory classes, what a variant moves between: a scope's class. */
enum { MC_GLOBAL, MC_SHARED, MC_LOCAL, MC_TMEM, MC_COUNT };
extern const char *const memory_class_names[MC_COUNT];
int memory_class(int scope);

enum {
#define FAMILY(id, name, hooks) id,
#include "family.def"
#undef FAMILY
	FAM_COUNT };
enum {
#define PRED(name, doc) PR_##name,
#include "pred.def"
#undef PRED
	PR_COUNT };
enum {
#define COMPLETION(id, name, how, emulated) id,
#include "completion.def"
#undef COMPLETION
	DONE_COUNT };
typedef struct Completion { const char *name, *how; bool emulated; } Completion;
extern const Completion completions[DONE_COUNT];

/* The columns of ir/variant.def, as sets of bits: a misspelt class, width,
 * completion or predicate does not compile. */
enum { W_8 = 1, W_16 = 2, W_32 = 4, W_64 = 8, W_128 = 16, W_256 = 32 };
#define MV(src, dst) (1u << (MC_##src * MC_COUNT + MC_##dst))
#define MV_ANY 0xffffu
#define W(bits) W_##bits
#define DONE(dst, kind) ((unsigned)(kind) << (4 * MC_##dst))
#define P(name) (1u << PR_##name)
enum {
#define VARIANT(id, op, name, prio, family, moves, widths, access, done, preds) id,
#include "variant.def"
#undef VARIANT
	VA_COUNT };
typedef struct Variant {
	const char *name;
	int op;             /* IN_COPY or IN_COPY_ASYNC */
	int priority;
	int family;         /* FAM_* */
	unsigned moves;     /* MV(src, dst) bits */
	unsigned widths;    /* W(bits) bits */
	int access;         /* the builtin of one lowered access, -1: none */
	unsigned done;      /* DONE(dst, kind): 4 bits per destination class */
	unsigned preds;     /* P(name) bits */
} Variant;
extern const Variant variants[VA_COUNT];
extern const char *const family_names[FAM_COUNT];
int variant_lookup(int op, const char *name);
/* The variant of op that the table's own rules give a copy from scope src
 * to scope dst, with or without mbar=: the first by priority (ties by
 * name) that moves between those memories and completes at dst on an
 * mbarrier exactly when mbar= is given; -1 when none does. The emulator
 * runs a tile-level copy_async as that variant would. */
int variant_for(int op, int src, int dst, bool mbar);
/* Whether the variant moves data from scope src to scope dst. */
bool variant_moves(const Variant *v, int src, int dst);
/* A tcgen05_ldst copy between regions dst and src that reads rows [0:64]
 * of a datapath D buffer with a 64-row .16x*b fragment: by TVM's
 * convention its low half-slab, row r in lane 32 (r / 16) + r % 16 (the
 * emulator places the rows so). */
bool tcgen05_half_slab(const Value *dst, const Value *src);
/* Why the tcgen05_mma variant cannot run the Tx.gemm_async call (its
 * plan's rule), or NULL (variants/tcgen05_mma.c). */
const char *gemm_async_why(const Expr *call);
/* How a copy of the variant into scope dst completes (DONE_*). */
int variant_done(const Variant *v, int dst);
/* Whether bits is one of the variant's access widths. */
bool variant_width(const Variant *v, int64_t bits);
/* Its access widths, widest first: "128 64 32". */
const char *variant_widths(const Variant *v);
/* Its moves, as "global -> shared, shared -> global". */
const char *variant_moves_str(const Variant *v);
/* TVM's names of variants in dispatch="..." (ir/tvm_variant.def). */
typedef struct TvmVariant {
	const char *name;
	int op;
	const char *variants; /* txc's, space-separated */
	int bytes;            /* the access width it forces; 0: any */
	const char *why;      /* refused: why */
} TvmVariant;
extern const TvmVariant tvm_variants[]; /* ends with a zero row */
const TvmVariant *tvm_variant_lookup(int op, const char *name);

/* A variant's plan for one tile op (doc/txir.md, section 9): its members
 * are the rows of ir/plan.def; family says which of them it has. */
#include "plan.def"
#define PF_CTYPE_LAYOUT Layout *
#define PF_CTYPE_EXPR Expr *
#define PF_CTYPE_COUNT int64_t
#define PF_CTYPE_LIST Expr *
#define F(fam) (1u << FAM_##fam)
typedef struct Plan {
	const char *variant;
	int family;                  /* FAM_*, -1 when the variant is unknown */
	const char *why;             /* set when the variant cannot run the op */
#define PLAN_MEMBER(name, kind, fams, by, doc) PF_CTYPE_##kind name; /* 0 / NULL: not decided yet */
	PLAN_FIELDS(PLAN_MEMBER)
#undef PLAN_MEMBER
	/* set by plan_align alone (not a keyword): the operands src and dst
	 * were aligned from, the arguments, and what it made of them, so
	 * that a proof of the plan that still holds them need not align the
	 * same operands again (variants/prove.c) */
	struct Aligned {
		const Value *dst, *src;
		const Layout *d, *s;
		Expr *db, *sb;
		bool sort, dst_global;
	} aligned;
} Plan;
/* T.plan's keywords, for ir/intrin.def: "src:x dst:x ... why:s " */
#define PF_KIND_LAYOUT "x"
#define PF_KIND_EXPR "e"
#define PF_KIND_COUNT "i"
#define PF_KIND_LIST "x"
#define PLAN_KW(name, kind, fams, by, doc) #name ":" PF_KIND_##kind " "
#define PLAN_KEYWORDS PLAN_FIELDS(PLAN_KW) "why:s "
int read_plans(const Expr *call, Plan **out);
/* read_plans into room (cap plans) when they fit, for a pass that is done
 * with them before it reads the next op's */
int read_plans_in(const Expr *call, Plan *room, int cap, Plan **out);
void write_plans(Expr *call, const Plan *v, int n);
/* In one process: write_plans keeps the plans by the call (read_plans
 * reads them back) and plans_flush writes every kept one as expressions,
 * which must come before anything reads or prints a call's keywords;
 * plans_forget drops an op's (txc-lower, replacing it). See plan.c. */
extern bool plans_in_memory;
void plans_flush(void);
void plans_forget(const Expr *call);
Plan *find_plan(Plan *v, int n, const char *variant);
/* Whether keyword `name` of T.plan must be a positive integer. */
bool plan_count_field(const char *name);
/* The table of variants as doc/txir.md shows it (txc-parse --variants). */
void print_variants(Buf *b);
/* The table of plan fields as doc/txir.md shows it (txc-parse --plans). */
void print_plan_fields(Buf *b);
Expr *layout_expr(const Layout *l);
/* Threads taking part in a tile op of scope es. */
int64_t scope_threads(const Func *f, int es);
int64_t region_elements(const Value *region);
/* The buffer's layout, row-major when it has none. */
const Layout *buffer_layout(const Buffer *b);
/* Sets (or with NULL removes) keyword `name` of a call. */
void set_kw(Expr *call, const char *name, Expr *value);

/* A tile op where it stands: its statement, the conditions of the ifs
 * around it (negs[i]: in the else branch). */
typedef struct OpSite {
	Func *func;
	Stmt *fstmt;
	Stmt *stmt;
	Expr *call;
	Expr **conds;
	bool *negs;
	int nconds;
	Stmt **repl;        /* set by op_replace */
	int nrepl;          /* -1: the op stays */
} OpSite;
/* The callback returns a negative number after an error. */
typedef int (*OpFn)(OpSite *site, void *ctx);
/* Calls fn on every tile op of every kernel, in order; a block whose ops
 * were replaced is rebuilt once, after its walk (linear in its length). */
bool walk_tile_ops(Module *m, OpFn fn, void *ctx);
/* The same over the calls of one builtin (Tx.prefetch: IN_PREFETCH). */
bool walk_calls(Module *m, int intrin, OpFn fn, void *ctx);
/* From the callback: the op's statement is replaced by the n statements v. */
void op_replace(OpSite *o, Stmt **v, int n);
/* Inserts s before (*body)[at]. */
void stmt_insert(Stmt ***body, int *n, int at, Stmt *s);

/* NULL when variant va can run the tile op at o with plan (NULL: none),
 * else the first of its predicates that fails, as "name: reason". */
const char *variant_verdict(OpSite *o, const Variant *va, Plan *plan);

/* ---- sema.c: name resolution and checks ------------------------------------ */

struct Buffer {
	const char *name;
	Pos pos;
	int64_t *shape;
	int ndim;
	int dtype;
	int scope;
	Layout *layout;     /* NULL: row-major on m (or per-thread for local) */
	Buffer *base;       /* a view's or a decl_buffer(data=)'s storage */
	Var *param;         /* the handle of a match_buffer */
	Expr *alloc_addr;   /* tmem: allocated_addr= */
	Expr *decl;         /* the defining call */
	bool is_param;      /* a global buffer of the signature */
	int64_t smem_off;   /* shared: byte offset in the CTA's shared memory */
	int64_t local_off;  /* local: byte offset in each thread's local memory */
	bool swizzled_root; /* shared: it or a view of it is swizzled (storage.c) */
	int64_t align;      /* align=: the byte alignment of its start (0: the default) */
	bool scalar;        /* T.shared_scalar / T.local_scalar: its name reads element 0 */
	int64_t elem_offset; /* decl_buffer(elem_offset=): where it starts in its storage, in its elements */
	/* TVM's T.SMEMPool() (pool.c): the shared.dyn buffer it became, its
	 * cursor in bytes, the size operand of its T.alloc_buffer (grown with
	 * each allocation), whether commit() fixed its size */
	struct Pool { int64_t offset; Expr *size; bool committed; } *pool;
	int64_t mbar_depth;  /* MBarrier(pool, n) or TMABar(pool, n): n; its phase_offset= */
	int64_t mbar_phase;
	bool mbar_tma;       /* TMABar: arrive(i, tx_count=) expects bytes */
	/* A symbolic outermost extent, T.match_buffer(h, (m, 4096)) with m a
	 * scalar parameter: dyn is m, and shape[0] is m's bound (T.assume),
	 * against which the static checks run; the run time puts m's value
	 * in shape[0] (emu_bind_extents), and the lowering guards each
	 * access to the buffer with its row against m. */
	Var *dyn;
	int64_t dyn_bound;
	Pos dyn_at;          /* where the shape names m */
};

struct Var {        /* 96 bytes: the two ints together, no padding between */
	const char *name;
	Pos pos;
	int dtype;
	int launch;         /* 0 or the launch id kind (IN_CTA_ID, ...) */
	int64_t lo, hi;     /* known range [lo, hi); lo == hi: unknown */
	Expr *def;          /* a let-bound name: its value */
	Buffer *base;       /* a pointer bound to T.pointer_offset(B, e): B, as sema found it there */
	int64_t mult;       /* a known divisor of its values (0: none known) */
	bool mut;           /* a mutable variable (declared with a dtype, or
	                     * assigned again): no def, range or divisor */
	bool set;           /* sema, in program order: assigned a value by now */
	bool let;           /* bound by `name: T.let... = value` */
	bool param;         /* a scalar kernel parameter */
	bool tracked;       /* mutable: sema follows its range (vars.c, mut_set) */
	bool varying;       /* mutable: may differ between the threads of a CTA */
};

/* A TMA tensor map (T.tensormap before T.device_entry()): what
 * cuTensorMapEncodeTiled is given, every list innermost dimension first
 * (doc/txir.md, "Tensor maps"). The kernel takes it by value after its other
 * parameters, in declaration order; txc-run encodes it from the buffer's
 * device address, the emulator reads the buffer through it. */
#define TMAP_MAX_RANK 5
#define TMA_SMEM_ALIGN 128 /* a box in shared memory starts on it (ptx.md, "TMA") */
struct TensorMap {
	const char *name;
	Pos pos;
	Buffer *buf;          /* the global buffer parameter it describes */
	int rank;             /* 1 .. 5 */
	int64_t dims[TMAP_MAX_RANK];      /* elements per dimension */
	int64_t strides[TMAP_MAX_RANK];   /* bytes; strides[0] is the element size */
	int64_t box[TMAP_MAX_RANK];       /* elements of a box per dimension */
	int64_t estrides[TMAP_MAX_RANK];  /* element strides, 1 .. 8 */
	int64_t offset;       /* where dimension 0's element 0 is, in elements of buf */
	int swizzle;          /* bytes: 0 (none), 32, 64, 128 */
	bool nan_fill;        /* out-of-bounds elements of a load: NaN (else zero) */
	int l2;               /* L2 promotion in bytes: 0, 64, 128, 256 */
	int esize;            /* bytes per element (buf's dtype) */
	/* T.tensormap_im2col (doc/tma-im2col.md): the map's mode, and in the
	 * im2col modes box[0] = channels, box[1] = the pixels of a load
	 * (128 for IM2COL_W128), the other box entries 1 */
	int mode;             /* TMAP_TILED, TMAP_IM2COL, TMAP_IM2COL_W, TMAP_IM2COL_W128 */
	int64_t lower[TMAP_MAX_RANK - 2], upper[TMAP_MAX_RANK - 2]; /* bounding-box corners of dims 1 .. rank-2 (W, H, D);
	                                    * the ::w modes: W only */
	int64_t channels, pixels;         /* channelsPerPixel, pixelsPerColumn */
	/* with dyn (NULL: none), dims= entry dyn_dim is `m * dyn_mult`, m =
	 * dyn the symbolic extent of buf (Buffer.dyn): dims[dyn_dim] is its
	 * bound, and the run time encodes m's value (emu_bind_extents) */
	Var *dyn;
	int dyn_dim;
	int64_t dyn_mult;
};
/* The modes of a tensor map and of the bulk tensor copies through it: the
 * name (mode= of T.tensormap_im2col, and the PTX .load_mode of a load or
 * prefetch), the .load_mode of a store or reduction (NULL: none), and the
 * number of 16-bit im2colInfo operands of a load (-2: rank - 2). */
#define TMAP_MODES(X) \
	X(TILED,        "tile",           "tile",           0) \
	X(IM2COL,       "im2col",         "im2col_no_offs", -2) \
	X(IM2COL_W,     "im2col::w",      NULL,             2) \
	X(IM2COL_W128,  "im2col::w::128", NULL,             2)
enum {
#define TMAP_MODE_ID(id, name, store, ninfo) TMAP_##id,
	TMAP_MODES(TMAP_MODE_ID)
#undef TMAP_MODE_ID
};
struct TmapMode { const char *name, *store; int ninfo; };
extern const struct TmapMode tmap_modes[];
/* The number of im2colInfo operands of a load or prefetch through map t;
 * the largest value of operand k, and its name for messages. */
int tmap_info_count(const TensorMap *t);
int64_t tmap_info_max(const TensorMap *t, int k);
const char *tmap_info_name(const TensorMap *t, int k);
/* The CUtensorMapDataType of a tensor map over dtype dt (CU_TENSOR_MAP_
 * DATA_TYPE_*: 0 U8, 1 U16, 2 U32, 3 I32, 4 U64, 5 I64, 6 F16, 7 F32, 8 F64,
 * 9 BF16), or -1 when TMA cannot move it. */
int tmap_data_type(int dt);
/* The reductions of a bulk tensor copy (red_op= of s2g_reduce, reduce= of
 * copy_async): TMA_RED_<NAME> ids, their names in tma_red_ops
 * (NULL-terminated), and the id of a name (-1: none). The first three
 * combine any element; the rest integers only. */
#define TMA_RED_OPS(X) X(ADD, "add") X(MIN, "min") X(MAX, "max") X(INC, "inc") X(DEC, "dec") \
	X(AND, "and") X(OR, "or") X(XOR, "xor")
enum {
#define TMA_RED_ID(id, name) TMA_RED_##id,
	TMA_RED_OPS(TMA_RED_ID)
#undef TMA_RED_ID
};
extern const char *const tma_red_ops[];
int tma_red_op(const char *name);
/* The swizzle span in bytes (0: none) of CUtensorMapSwizzle value k
 * (0 none, 1 32B, 2 64B, 3 128B), and back (-1: not a span). */
/* The fields tensormap.replace rewrites (ir/tmfield.def). */
enum {
#define TMFIELD(id, name, bits, ord, imm, lo, hi, doc) id,
#include "tmfield.def"
#undef TMFIELD
	TMF_COUNT
};
typedef struct TmField {
	const char *name;
	int bits;
	bool ord, imm;
	int64_t lo, hi;
	const char *doc;
} TmField;
extern const TmField tm_fields[TMF_COUNT];
int tm_field_lookup(const char *name); /* -1: none */
/* The emulator's 128-byte encoding of a tensor map in memory
 * (doc/txir.md, "Tensor maps in memory"): TMENC_* byte offsets. */
enum {
	TMENC_MAGIC = 0,     /* 8 bytes: "txcTMAP1" */
	TMENC_ELEMTYPE = 8,  /* one byte each: elemtype, rank - 1, interleave, swizzle mode, fill mode, L2 promotion mode */
	TMENC_RANK = 9, TMENC_INTERLEAVE = 10, TMENC_SWIZZLE = 11, TMENC_FILL = 12, TMENC_L2 = 13,
	TMENC_ADDR_MEM = 16, /* uint32: which global memory the address is in (the emulator's numbering, 0: none) */
	TMENC_ADDR_OFF = 24, /* int64: the byte offset into it */
	TMENC_DIMS = 32,     /* 5 x uint32 */
	TMENC_STRIDES = 56,  /* 4 x uint64, bytes: the strides of dimensions 1 to 4 */
	TMENC_BOX = 88,      /* 5 x uint16 */
	TMENC_ESTRIDES = 98, /* 5 x uint8 */
	TMENC_BYTES = 128,
};
int tmap_swizzle_bytes(int k);
int tmap_swizzle_mode(int bytes);

struct Func {
	const char *name;
	Stmt *stmt;
	Buffer **params;    /* the buffers the kernel is launched with */
	int nparams;
	Var **scalars;      /* the scalar parameters, in signature order */
	int nscalars;
	/* the launch signature, in order: for parameter i, sig[i] is a
	 * buffer of params (kind 'b'), a scalar of scalars ('s') or a tensor
	 * map of tmaps ('t', after the others), index sig_at[i] */
	char *sig;
	int *sig_at;
	int nsig;
	Buffer **bufs;      /* every buffer of the kernel, parameters included */
	int nbufs;
	int64_t grid[3];
	/* T.cta_id([(m + 15) // 16]): an extent over scalar parameters, NULL
	 * when constant; grid[] then holds its largest value, and the run time
	 * puts this run's there (emu_bind_extents) */
	Expr *grid_dyn[3];
	int64_t cluster[3]; /* the CTAs of a cluster in each dimension (1, 1, 1 without one) */
	bool has_cluster;   /* T.cta_id_in_cluster or T.cluster_id: launched in clusters */
	int64_t threads;    /* per CTA */
	bool device_entry;
	/* T.attr({"tirx.dyn_smem_bytes": N}): the launch asks for at least N
	 * bytes of dynamic shared memory (0: no such statement), at dyn_smem_at */
	int64_t dyn_smem;
	Pos dyn_smem_at;
	TensorMap **tmaps;  /* its tensor maps, in declaration order (sig 't') */
	int ntmaps;
	/* The names its statements use, some more than once, as the
	 * verify_module that made it left them (sema.c, used_names), for
	 * txc-lower's fresh names: nused of them, at func_used(f); used_kept:
	 * listed (not by the verify of txc-lower's output) */
	int used_at, nused;
	bool used_kept;
};

/* A kernel's names (Func's nused), valid until the next verify_module. */
const char *const *func_used(const Func *f);
/* Lists f's names now, where its verify_module did not (used_kept). */
void func_list_used(Func *f);

/* Resolves names and checks the module; returns false after reporting. */
bool verify_module(Module *m, Diag *d);
/* Set by the programs that emit code (txc-cuda): every vector access of
 * T.cuda.copy_bytes and T.ptx.cp_async must be proven aligned and in
 * bounds, or it is an error. The others leave it to the emulator's checks
 * at run time, where the threads that go wrong can be named. */
extern bool prove_accesses;
/* Set by a caller that verifies a module again (txc's lowered kernels):
 * its kernels' Python was written out when they were verified before, and
 * what was added since is free of it (sema.c, desugar_stmt). */
extern bool desugared;
/* After verify_module: what a module-level name means, or NULL. */
Value *module_value(const Module *m, const char *name);

#endif
