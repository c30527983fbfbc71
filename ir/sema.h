/* Private to the checker (sema.c, eval.c): scopes of names and the helpers
 * both files use. */
#ifndef TXC_SEMA_H
#define TXC_SEMA_H

#include "ir.h"


typedef struct Sym {
	const char *name;
	unsigned hash;     /* str_hash(name): compared before the name, and no rehash when the table grows */
	Value *val;
	Pos pos;
	struct Sym *next;
} Sym;

/* A block of names: the module, a function, the body of a loop or branch. */
typedef struct Env {
	struct Env *up;
	Sym **tab;
	int cap, n;
	bool module;
} Env;

/* eval.c's memo of namespace members (T.cuda, T.cuda.copy_bytes, Tx.cta):
 * by the namespace's path, its execution scope and the member's name. */
typedef struct MemberMemo {
	struct MemberSlot {
		const char *ns;   /* the namespace Value's s: its pointer, never changed once made */
		int64_t scope;    /* its i (the execution scope + 1, or 0) */
		const char *name;
		unsigned hash;
		Value *v;         /* member()'s answer; NULL: an empty slot */
	} *slots;
	int n, cap;
} MemberMemo;

typedef struct Sema {
	Module *m;
	Diag *d;
	Env *env;
	Env *builtins;    /* the outermost block: T, Tx, the layout names, axes */
	Func *func;       /* the kernel being checked */
	int partial;      /* > 0: in an operand only some threads evaluate (the right of and/or, a branch of x if c else y) */
	bool in_device;  /* after T.device_entry() */
	int dead;        /* > 0: in the body of a loop whose range is provably empty (it never runs) */
	bool oob_ok;     /* a copy_async with oob_fill=: its global region may hang past the tensor's edge */
	/* the conditions of the ifs around the statement (their bodies):
	 * txc-lower's guard `if addr < m * row:` of an access to a buffer of
	 * symbolic extent m proves it inside (calls.c's check_access) */
	Expr *guards[16];
	int nguards;
	Buffer **bufs;   /* every buffer of the kernel, for the final checks */
	int nbufs;
	/* T.Buffer parameters of symbolic extent, whose bound the T.assume
	 * statements that open the body give (dyn_bound) */
	Buffer **pending;
	int npending;
	Var *launch[IN_COUNT]; /* the launch ids declared, by intrinsic */
	int64_t launch_ext[IN_COUNT];
	Pos launch_pos[IN_COUNT];
	int nviews;      /* views bound to fresh names (_view0, ...) */
	int64_t launch_dims[IN_COUNT][3]; /* a grid launch id's extents, 1 beyond those given */
	int launch_ndim[IN_COUNT];
	Pos launch_list[IN_COUNT];        /* where its extents are written */
	int64_t cta_group;   /* of the kernel's first tcgen05 instruction that has one; 0: none yet */
	Pos cta_group_at;
	const char *cta_group_how; /* " (the default)" when the keyword is absent */
	MemberMemo members;
	struct NsChain *ns_chains; /* eval.c's memo of attribute chains over namespaces; NULL until used */
	bool opaque_bound; /* an import bound a name of a module txc does not know (V_OPAQUE; only imports make them) */
	struct MutLoop *loops; /* the loops around the statement that assumed ranges of mutable variables */
	Var **muts;        /* the mutable variables given a range so far (mut_forget) */
	int nmuts;
	Expr **ctrl;       /* the conditions of the ifs and whiles around the statement */
	int nctrl;
	struct MutAssign *assigns; /* the kernel's assignments of mutable variables (mut_uniform) */
	int nassigns;
	int tmem_ops;      /* the kernel's statements that call_stmt checked as tcgen05 alloc, dealloc,
	                    * relinquish_alloc_permit, ld or st (check_tmem_allocs judges no others) */
} Sema;

/* The value that says: an error was reported already. */
extern Value verr;
#define IS_ERR(v) ((v) == &verr)

/* names */
Sym *lookup(Sema *S, const char *name);
/* Name e, bound by s (found by its text): from now on e has s's copy of
 * the text, so that the next lookups compare addresses. A name the
 * lowering builds is not the lexer's copy (T of its callees, range): each
 * read of it compared the bytes. */
static inline void name_found(Expr *e, const Sym *s) { e->str = s->name; }
/* Whether integer literal k holds what scalar() writes into it (its
 * value, the weak integer dtype): checking it again writes nothing new. */
static inline bool literal_done(const Expr *k)
{
	return k->kind == E_INT && k->dtype == DT_WEAK_INT && k->val && k->val->kind == V_INT && k->val->i == k->ival;
}
Sym *env_find(Env *e, const char *name);
/* env_find with the name's str_hash already computed: a walk over several
 * blocks hashes the name once. */
Sym *env_find_hashed(const Env *e, const char *name, unsigned hash);
void define(Sema *S, const char *name, Value *v, Pos pos);
void push_env(Sema *S, bool module);
void pop_env(Sema *S);

/* eval.c: compile-time values; scalar.c: runtime scalars and regions */
Value *fail(Sema *S, Pos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
Value *eval(Sema *S, Expr *e);
Value *eval_name(Sema *S, Expr *e); /* (sema.c) eval of a name (E_NAME), without eval's frame */
/* Whether fn, a callee's value, is a builtin whose calls eval leaves to
 * the threads (NULL): no Python builtin over constants, no layout maker,
 * not T.meta_var (which tvm_call rewrites). */
bool runtime_builtin(const Value *fn);
/* eval of binary node e whose operands eval gives as a and b, constants
 * (not V_VAR). */
Value *eval_arith(Sema *S, Expr *e, Value *a, Value *b);
Value *eval_const(Sema *S, Expr *e, const char *what);
bool eval_int(Sema *S, Expr *e, const char *what, int64_t *out);
int eval_dtype(Sema *S, Expr *e);
bool eval_shape(Sema *S, Expr *e, int64_t **shape, int *ndim);
int scalar(Sema *S, Expr *e);
/* scalar() of a name or attribute chain e whose value v eval has just
 * given: the same answer, without looking the name up again. */
int scalar_named(Sema *S, Expr *e, Value *v);
/* scalar() of a call whose callee, a chain of names, eval has just given
 * as the builtin fn (V_FUNC, not T.meta_var): the same answer, as
 * ptx_rewrite and tvm_call leave such a call as it is, without evaluating
 * the callee again. */
int scalar_builtin(Sema *S, Expr *e, Value *fn, Buffer **base); /* base: T.pointer_offset(B, e)'s B */
int unify(Sema *S, Pos p, const char *op, int a, int b);
const char *dtype_str(int dt);
Value *region(Sema *S, Expr *e);

/* pyconst.c: Python's subset over constants */
void bind_name(Sema *S, const char *name, Value *v, Pos pos); /* (sema.c) in the innermost block, unchecked */
Value *eval_items(Sema *S, Expr **args, int n, bool list);
Value *eval_dict(Sema *S, Expr *e);
Value *eval_comp(Sema *S, Expr *e);
Value *eval_fstr(Sema *S, Expr *e);
Value *index_const(Sema *S, Expr *e, Value *a);
Value *py_call(Sema *S, Expr *e, int id);
bool is_py_builtin(int id);
int value_equal(const Value *a, const Value *b);
Value *opaque_use(Sema *S, Expr *e, const Value *v);
Expr *value_expr(Sema *S, Value *v, Pos p, bool subscript);
bool expand_call(Sema *S, Expr *call);
bool desugar(Sema *S, Expr **slot);
int t_division_in_place(Sema *S, Expr *e); /* T.ceildiv/floordiv/floormod outside a desugared kernel */

/* helper.c: module-level Python helper functions */
void helper_def(Sema *S, Stmt *s);                      /* a def without a decorator: its name bound */
Value *helper_lambda(Sema *S, Expr *e);                 /* `lambda a, b: body`: a helper returning body */
bool expr_reads(const Expr *e, const char *name);       /* whether e reads name (operands and keywords) */
/* TVM's @T.inline functions in a kernel (inline.c): the def remembered
 * (it becomes pass); a statement call replaced at (*v)[i] by the body,
 * 1, 0 when not one, -1 after an error */
bool inline_is_def(Sema *S, Stmt *s);
void inline_def(Sema *S, Stmt *s);
int inline_call(Sema *S, Stmt ***v, int *n, int i);
bool helper_desugar(Sema *S, Expr **slot, Value *fn);  /* a call in a kernel: *slot its expression */
Value *helper_eval(Sema *S, Expr *call, Value *fn);    /* a call's value */
/* Python's binding of a call's arguments to the parameters of def (a
 * helper's or an @T.inline function's): the expression given for each
 * parameter, NULL where none was (its default is the caller's to take);
 * NULL after reporting Python's error (too many, an unknown or repeated
 * keyword; a * argument: not supported yet). */
Expr **py_bind_args(Sema *S, const Stmt *def, const Expr *call);
/* `a, b = x, y` in a kernel, a value not a constant: one assignment a
 * name (*out, the count; 0: not such a statement; -1: an error) */
int unpack_split(Sema *S, Stmt *s, Stmt ***out);

/* sema.c: statements */
Var *new_var(const char *name, Pos pos, int dt);
/* Whether a value of dtype vt may be stored into dtype dt unconverted:
 * the same dtype, or a literal of a kind that fits. */
bool fits(int vt, int dt);
bool assign1(Sema *S, Stmt *s);  /* false after an error, the names unbound */

/* vars.c: variables and annotated assignments */
extern Expr prescan_fixed;  /* prescan's mark of a parameter or loop variable */
/* A name bound in the kernel's blocks (not at module level), or NULL. */
Sym *kernel_lookup(Sema *S, const char *name);
/* kernel_lookup of a name whose str_hash h is known */
Sym *kernel_lookup_hashed(const Sema *S, const char *name, unsigned h);
void prescan(const Stmt *f); /* a kernel: its parameters are fixed, its body's names scanned */
Value *scalar_var(Expr *t, Expr *value, int dt, bool mut);
int literal_dtype(Expr *value, int dt);
void reassign(Sema *S, Stmt *s, Expr *t, Var *var, Expr *value, int op);
void bound_once(Sema *S, Expr *t, Sym *old);
bool annotated(Sema *S, Stmt *s);
/* What is known of mutable variables' values as sema walks a kernel in
 * order (vars.c). A variable, its range before a block (lo, hi) and the
 * range a branch left or a loop assumed [blo, bhi) (empty: none). */
/* v's range [lo, hi); [blo, bhi): the range a loop assumed for it, or the
 * other branch's of an if; a wrapping counter's loop (wrap) checks at the
 * end of its body that v is back in [hlo, hhi), its range at every trip. */
typedef struct MutRange { Var *v; int64_t lo, hi, blo, bhi, hlo, hhi; bool wrap; } MutRange;
typedef struct MutLoop { MutRange *m; int n; Pos at; struct MutLoop *up; } MutLoop;
/* The mutable variables that a or b assign, declared before them: *out,
 * with their ranges now; the count. */
int mut_before(Sema *S, Stmt **a, int na, Stmt **b, int nb, MutRange **out);
/* After an if: each variable's range joined with [blo, bhi). */
void mut_join(MutRange *m, int n);
/* Around a loop's body (trips: at most that many, -1: not known). */
MutLoop *mut_loop_enter(Sema *S, Stmt *s, int64_t trips);
/* At the end of the loop's body, before its narrowings are undone: a
 * wrapping counter is back in its range (else an error). */
void mut_loop_back(Sema *S, MutLoop *L);
void mut_loop_leave(Sema *S, MutLoop *L);
/* `t = value` or `t op= value` (op >= 0) of mutable var; value NULL: `t: dtype`. */
void mut_set(Sema *S, Var *var, Expr *t, Expr *value, int op);
/* At a kernel's end: nothing known of its mutable variables. */
void mut_forget(Sema *S);
/* Entering the body of an if or while on c (ctrl, for mut_uniform). */
void ctrl_push(Sema *S, Expr *c);
/* At a kernel's end: which mutable variables may differ between threads
 * (Var.varying: assigned a value that may, or under a condition that may). */
void mut_uniform(Sema *S);

/* calls.c: calls of builtins */
/* tcgen05.ld/st take 6 operands and up to 128 registers */
#define MAX_OPERANDS 136

typedef struct Args {
	Expr *call;
	const Intrin *in;
	int id;
	Value *pos[MAX_OPERANDS];
	int npos;
} Args;
bool check_args(Sema *S, Expr *call, int id, Args *a);
/* triton.c: NVMMASharedLayout(...) or TensorMemoryLayout(...) (id), its
 * arguments checked by check_args: a V_TLAYOUT, or &verr after an error. */
Value *triton_layout_value(Sema *S, Expr *call, int id);
Kw *kwarg(Args *a, const char *name);
const char *fn_name(Expr *call);
void check_access(Sema *S, Expr *call, int k, int64_t bytes, Expr *src_size, Expr *pred);
/* The same for a span of bytes that need only be align-byte aligned (a
 * bulk copy's: 16). */
void check_span(Sema *S, Expr *call, int k, int64_t bytes, int64_t align);
/* The buffer an address operand names (NULL with *why). */
Buffer *address_buffer(Sema *S, Expr *x, const char **why);
/* The rules an operand's value obeys beyond its kind (sizes, shapes,
 * ranges, one cta_group per kernel), after check_args accepted the call. */
void check_operands(Sema *S, Expr *call, int id, Args *a);
bool l2_prefetch_size(int64_t n); /* cp.async's .L2::64B, 128B, 256B */

/* ptx.c: a call of T.ptx.<chain>(...), T.ptx["..."](...) or a TVM alias
 * (ptx.def) rewritten in place into the txc builtin it means; a call of
 * anything else is left alone. False after an error. *fn: the value of
 * the callee, a name or a chain of attributes left as it was, when it
 * was evaluated (what eval(S, call->a) gives again), else NULL. */
bool ptx_rewrite(Sema *S, Expr *call, Value **fn);

/* pool.c: TVM's T.SMEMPool() and MBarrier(pool, n), rewritten into txc's text */
bool pool_new(Sema *S, Expr *call);               /* T.SMEMPool() -> T.alloc_buffer(...) */
void pool_made(Buffer *b);                        /* b is that buffer */
int pool_alloc(Sema *S, Expr *call, int64_t *depth, int64_t *phase, bool *tma); /* pool.alloc, MBarrier -> T.decl_buffer: 1, 0, -1 */
int pool_stmt(Sema *S, Stmt *s);                  /* commit, init, wait, arrive: 1 rewritten, 0, -1 */
void pool_check(Sema *S, Func *f);                /* pools never committed */

/* tmap.c: T.tensormap, checked against the driver's and TMA's rules */
TensorMap *make_tensormap(Sema *S, const char *name, Pos pos, Expr *call, int id);
/* A reduction keyword (red_op=, reduce=) names one of tma_red_ops. */
void check_red_op(Sema *S, const Kw *kw);
/* cta_mask= of a multicast TMA load (the builtin's or copy_async's):
 * sm_90a, a declared cluster, a 16-bit mask of its CTA ranks. */
void check_cta_mask(Sema *S, const Kw *kw);

/* buffers.c: buffers and launch ids */
Buffer *new_buffer(const char *name, Pos pos, Expr *call);
bool set_layout(Sema *S, Buffer *b, Kw *kw);
/* A buffer's shape, whose outermost extent may be a scalar parameter
 * (Buffer.dyn); then dyn_bound gives shape[0] the parameter's bound. */
bool buffer_shape(Sema *S, Buffer *b, Expr *e);
Var *shape_param(Sema *S, const Expr *e); /* the scalar parameter name e names, or NULL */
bool dyn_bound(Sema *S, Buffer *b, const char *how);
Buffer *make_buffer(Sema *S, const char *name, Pos pos, Expr *call, int id);
Buffer *make_view(Sema *S, const char *name, Pos pos, Expr *call, Buffer *base);
Value *launch(Sema *S, Expr *call, int id, Stmt *s);

/* tvm.c: TVM's spellings, rewritten in place into txc's or refused (tvm.def) */
const char *tvm_refused_name(const char *path); /* why T.NAME is refused, or NULL */
int tvm_tile_kw(Sema *S, Expr *call, Kw *kw, int id); /* its kind, 0 after an error, -1: not one */
bool tvm_is_tile_kw(const char *name);
bool tvm_tile_aliases(Sema *S, Expr *call);
int tvm_host_tensormap(Sema *S, Stmt ***body, int *n, int i); /* TVM's encoded tensor map, as T.tensormap */      /* TVM's names of txc's tile keywords, renamed */           /* a tile-op keyword txc honours */
bool tvm_is_method(const char *name);            /* buf.NAME(...) rewritten by tvm_call or tvm_local */
Value *tvm_member(Sema *S, Expr *e, Buffer *b);  /* an unknown buf.NAME: the error */
Value *tvm_refused_member(Sema *S, Expr *e);     /* &verr after refusing a TVM member .NAME, else NULL */
int tvm_call(Sema *S, Expr *e);                  /* 1 rewritten, 0 not one, -1 after an error */
int tvm_data_address(Sema *S, Expr *x);          /* X.data as an address -> X: 1, 0 not one, -1 error */
void tvm_first_element(Expr *x, Buffer *b);      /* name -> name[0, ..., 0] */
void tvm_scalar(Expr *e, int id);                /* T.shared_scalar(dt) -> T.alloc_buffer((1,), dt, ...) */
void tvm_scalar_element(Expr *e);                /* name -> name[0] */
void tvm_tc_frag(Expr *e);                       /* T.alloc_tcgen05_ldst_frag -> T.alloc_buffer(..., layout=) */
bool tvm_local(Sema *S, Expr *call, Buffer *base); /* X.local(...) -> X.view(...) */
int tvm_tcgen05_ldst_kw(Sema *S, Expr *e);     /* T.ptx.tcgen05.ld(taddr, regs..., shape=...) -> positional */
Value *tvm_layout_apply(Sema *S, Expr *e);       /* L.apply(i)["m"], or NULL */
bool tvm_is_view_chain(const Expr *e);
int tvm_allocated_addr(Sema *S, Expr *e);        /* tmem.allocated_addr[0] -> its address: 1, 0, -1 */
bool tvm_view_chain(Sema *S, Expr *value);
/* A view passed directly to a call (Tx.copy(D, X.permute(1, 0)), X.view(...)[...]): each
 * such operand bound to a fresh name first; the assignments (at most max) go to out and the
 * operands name them. Returns how many. */
int tvm_inplace_views(Sema *S, Stmt *s, Stmt **out, int max);       /* X.sub[...], X.permute(...), chains -> root.view(..., layout=) */
int tvm_view_dtype(Sema *S, Expr *call);         /* X.view("uint32") -> T.decl_buffer over X's storage: 1, 0, -1 */

/* The message for TVM's statement form T.ptx.elect_sync(d, p, membermask). */
#define elect_sync_form "T.ptx.elect_sync(d, p, membermask), TVM's form with outputs, is not supported: txc's " \
	"T.ptx.elect_sync() is a boolean over the active threads, as in `if T.ptx.elect_sync():`"
/* tmem.c: the tensor-memory allocation rules of a whole kernel */
void check_tmem_allocs(Sema *S, Func *f);

#endif
