/* The variant families (ir/family.def): the hooks each family's file
 * defines, the planning steps the families share, and the toolkit their
 * lowerings use. A variant is a row of ir/variant.def; what it plans,
 * checks and emits is its family's (variants/NAME.c). The passes loop
 * over the table and call these hooks. */
#ifndef TXC_FAMILY_H
#define TXC_FAMILY_H

#include "ir.h"

typedef struct Lower Lower;

typedef struct Family {
	/* txc-align: both operands as layouts over one iteration space, into p
	 * (src, dst, src_base, dst_base); false with *why when they cannot be.
	 * NULL: the family plans nothing (fallback). */
	bool (*align)(Plan *p, const Variant *va, const Value *dst, const Value *src, const char **why);
	/* txc-vectorize: sets p->vec to the widest legal access, or says why
	 * none is (threads: the scope's). */
	const char *(*vectorize)(Plan *p, const Variant *va, const Value *dst, const Value *src, int64_t threads);
	/* txc-partition: sets p->threads and p->outer, or says why not. */
	const char *(*partition)(Plan *p, const Value *dst, int64_t threads);
	/* dispatch's plan predicate: NULL when plan p is complete and covers
	 * the region. */
	const char *(*check)(const Plan *p, const Value *dst);
	/* txc-lower: NULL when p, as written (perhaps by hand), is true of the
	 * operands; else which claim is false. */
	const char *(*prove)(const Plan *p, const Variant *va, const Value *dst, const Value *src, int64_t threads);
	/* txc-lower: replaces the op by per-thread code (op_replace); negative
	 * after an error. */
	int (*lower)(Lower *L, OpSite *o, const Variant *va, const Plan *p);
} Family;

/* txc-lower's Tx.prefetch(A[region]): TMA prefetches of the region's
 * boxes (variants/tma.c); negative after an error. */
int tma_lower_prefetch(Lower *L, OpSite *o);

#define FAMILY(id, name, hooks) extern const Family hooks;
#include "family.def"
#undef FAMILY
extern const Family *const families[FAM_COUNT];

/* ---- dispatch.c: the predicates ---------------------------------------------- */

/* The target the variants are chosen for (TG_*): txc-dispatch's and
 * txc-lower's --target, the driver's --arch; TG_ANY (the default): any,
 * every instruction allowed. A variant whose instruction the target lacks
 * declines (stmatrix before sm_90), where the IR itself is read for any
 * target. */
extern int variant_target;

/* What a predicate is asked about: one candidate variant for one op. */
typedef struct Try {
	OpSite *site;
	Expr *call;
	const Value *dst, *src;
	Plan *plan;       /* this variant's plan, or NULL */
	const Variant *va;
} Try;
/* pred_NAME for each row of ir/pred.def: NULL when it holds, else why. */
#define PRED(name, doc) const char *pred_##name(const Try *t);
#include "pred.def"
#undef PRED

/* Whether the op runs at a scope the variant runs at (its exec_scope and
 * single_thread predicates): the planning passes plan no other variant. */
bool variant_scope_ok(OpSite *o, const Variant *va);

/* ---- align.c, vector.c, prove.c: the planning of layout pairs ---------------- */

/* Aligns dst and src into p (src, dst, src_base, dst_base): each region
 * sliced out of its buffer's layout, a symbolic start moved into the base;
 * the two sides split to common extents; for global <-> shared (sort) the
 * iters ordered by the global side's strides, outermost first; iters that
 * continue each other on both sides fused. False with why when they cannot. */
bool plan_align(Plan *p, const Value *dst, const Value *src, bool sort, bool dst_is_global, const char **why);
/* For a register plan whose layouts do not refine (12 registers per thread
 * against rows of 64): both regions in row-major order, each side's
 * contiguous iters fused, split from the innermost where both extents
 * divide by a common factor, as far as they do; the iters outside stay
 * each side's own, a function of the element's place in the row-major
 * order. False with why when the regions cannot be sliced. */
bool plan_align_inner(Plan *p, const Value *dst, const Value *src, const char **why);
/* The layout of region r sliced out of its buffer's (by the buffer's
 * dimensions, or fewer where the layout does not split along them), its
 * logical shape the region's: a symbolic start moved into *base (the
 * storage offset it adds, before any swizzle), a constant one into the
 * offsets. NULL with why when it cannot be sliced. */
Layout *region_layout(const Value *r, Expr **base, const char **why);
/* How many iters, from the innermost, the two layouts of a plan pair
 * (equal extents): all of them once aligned; for plan_align_inner's, the
 * inner part split in common. */
int plan_paired(const Plan *p);
/* NULL when vec elements per access is legal for p's layouts (reg: the
 * register side of a register plan, else NULL), with threads threads over
 * elements elements; else why not. A vector runs along iters the two
 * layouts pair (plan_paired); a thread that holds one element takes
 * vec 1. */
const char *plan_vec_why(const Plan *p, const Layout *reg, int64_t vec, int64_t threads, int64_t elements,
                         int64_t grain);
/* What every vector of a copy between dst and src must divide: where a
 * buffer of symbolic extent m ends, m x the elements of a row (a multiple
 * of those times m's known divisor); 0 when neither side has one. */
int64_t plan_grain(const Value *dst, const Value *src);
/* The same for one buffer (0: its extent is constant). cp.async does
 * without it: its source size stops a vector at the end (lower_emit_loop),
 * the rest zero-filled. */
int64_t buffer_grain(const Buffer *b);
/* Sets p->vec to the widest of the variant's widths (whole elements; then
 * one element when its narrowest width is 8 bits) that plan_vec_why
 * allows, or says why none is. */
const char *plan_widest(Plan *p, const Variant *va, const Layout *reg, int elem_bits, int64_t threads,
                        int64_t elements, int64_t grain);
/* NULL when plan p of variant va, as written, is true of the operands:
 * aligned again from the buffers (sort as plan_align's), its layouts reach
 * what the buffers' layouts reach from the same starts, pairing the same
 * elements (their iters may be ordered, split and fused otherwise), with
 * the buffers' swizzles; its vec is an access width of the variant that
 * plan_vec_why allows (registers: a register plan; a variant with no access
 * widths, tma, has no vec to prove). Facts about iters and divisibility,
 * no enumeration. */
const char *plan_prove_pair(const Plan *p, const Variant *va, const Value *dst, const Value *src, bool sort,
                            bool registers, int64_t threads);
/* Whether the iter inner continues the iter outer (one run on one axis). */
bool iter_fuses(const Iter *outer, const Iter *inner);
/* NULL when a complete plan covers the region: outer x threads x vec
 * elements, or outer x vec per thread (per_thread, a register plan); else
 * why not. */
const char *plan_covers(const Plan *p, int64_t elements, bool per_thread);
/* The register side of a register plan (the local operand's layout). */
const Layout *plan_registers(const Plan *p, const Value *dst);

/* ---- lowering.c: the toolkit of the lowerings (txc-lower) ---------------------- */

struct Lower {
	Diag *d;
	Func *func;
	Stmt *fstmt;
	const char *tid;    /* the name bound to T.thread_id */
	Map names;          /* every name the kernel uses, as long as a pointer or longer */
	/* the shorter ones, each as its bytes in one integer used as the key
	 * (lowering.c) */
	PtrMap short_names;
	unsigned names_gen; /* counts the changes of names (lower_take) */
	/* lower_fresh's last answers: base (its address and text), the name,
	 * and names_gen then */
	struct Fresh { const char *key, *text, *name; unsigned gen; } fresh[8];
	unsigned nfresh;    /* answers kept so far: the next replaces fresh[nfresh % 8] */
	bool verify;        /* --verify: check every access of every copy */
	int verified;
	int64_t accesses;
	/* statements to place before the kernel's T.device_entry() once its
	 * ops are lowered (the tma family's tensor maps) */
	Stmt **pre;
	int npre;
	/* nodes every op of the kernel shares (lowering.c, "shared nodes"):
	 * the thread index within a scope of g threads, the callees */
	struct { int64_t g; Expr *e; } index[4];
	struct { const char *path; Expr *e; } callee[4];
	struct Kept { int64_t n; Expr *e; } range[2], size[2]; /* range(n); an access's size operand */
};
/* A name no statement of the kernel uses; lowered loops are siblings, so
 * the same fresh name serves every op. take() marks one as used. */
const char *lower_fresh(Lower *L, const char *base);
void lower_take(Lower *L, const char *s);
/* Prepares L for kernel f (its statement fs): collects its names and binds
 * the thread index. */
void lower_begin(Lower *L, Stmt *fs);
/* An error at the op: "cannot lower OP: why"; returns -1. */
int lower_fail(Lower *L, OpSite *o, const char *why);
/* The name by which the lowered code indexes the calling thread's
 * registers of root by storage offset: root's own name when it is one
 * plain dimension; else a fresh name, with *assign its binding
 * `NAME = ROOT.local()` to place first (NULL when none is needed). */
const char *lower_registers(Lower *L, OpSite *o, Buffer *root, Stmt **assign);
/* for var in range(n): body */
Stmt *lower_loop(const char *var, int64_t n, Stmt *body);
/* The index of the thread within the op's scope. */
Expr *lower_scope_index(Lower *L, int es);
/* The value of thread axis `axis` for the current thread, and how many
 * values it takes in the kernel. */
Expr *lower_axis_value(Lower *L, int axis, int64_t *count);
/* sum over iters [lo, hi) of layout l of (x // inner) % extent * stride on
 * the memory axis, inner running over the iters after each one in the range. */
Expr *lower_digits(const Layout *l, int lo, int hi, Expr *x);
/* acc + lower_digits(l, lo, hi, x) as ex_add makes it (the same tree),
 * each digit added to acc in turn: the digits' own sum is not made and
 * taken apart again. */
Expr *lower_digits_onto(Expr *acc, const Layout *l, int lo, int hi, Expr *x);
/* base + the layout's offset: lower_address's start, to which
 * lower_address(l, base, sum) adds sum before the swizzle (ex_swizzle). */
Expr *lower_start(const Layout *l, Expr *base);
/* base + the layout's offset + sum, through the layout's swizzle. */
Expr *lower_address(const Layout *l, Expr *base, Expr *sum);
/* for f in range(outer): dst_ptr = ..., src_ptr = ..., one access of the
 * variant (va->access) of `bytes` bytes; or the body alone when outer is 1.
 * Replaces the op. */
Expr *lower_inside(const Buffer *b, Expr *addr);
int lower_emit_loop(Lower *L, OpSite *o, const Variant *va, int64_t outer, const char *f, const Buffer *db, Expr *da,
                    const Buffer *sb, Expr *sa, int64_t bytes);
/* --verify: enumerates every access of the lowered copy (addresses da and
 * sa of loop variable f) and compares them with the layouts; false after
 * an error. reg: a register plan. */
bool lower_verify(Lower *L, OpSite *o, const Plan *p, bool reg, const Value *dst, const Value *src, Expr *da,
                  Expr *sa, const char *f);
/* The same for a copy that only the threads for which guard holds make
 * (NULL: every thread). */
bool lower_verify_when(Lower *L, OpSite *o, const Plan *p, bool reg, const Value *dst, const Value *src, Expr *da,
                       Expr *sa, const char *f, const Expr *guard);

#endif
