/* Private to the checker (sema.c, eval.c): scopes of names and the helpers
 * both files use. */
#ifndef TXC_SEMA_H
#define TXC_SEMA_H

#include "ir.h"


typedef struct Sym {
	const char *name;
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

typedef struct Sema {
	Module *m;
	Diag *d;
	Env *env;
	Env *builtins;    /* the outermost block: T, Tx, the layout names, axes */
	Func *func;       /* the kernel being checked */
	bool in_device;  /* after T.device_entry() */
	Buffer **bufs;   /* every buffer of the kernel, for the final checks */
	int nbufs;
	Var *launch[IN_COUNT]; /* the launch ids declared, by intrinsic */
	int64_t launch_ext[IN_COUNT];
	Pos launch_pos[IN_COUNT];
} Sema;

/* The value that says: an error was reported already. */
extern Value verr;
#define IS_ERR(v) ((v) == &verr)

/* names */
Sym *lookup(Sema *S, const char *name);
void define(Sema *S, const char *name, Value *v, Pos pos);
void push_env(Sema *S, bool module);
void pop_env(Sema *S);

/* eval.c: compile-time values; scalar.c: runtime scalars and regions */
Value *fail(Sema *S, Pos p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
Value *eval(Sema *S, Expr *e);
Value *eval_const(Sema *S, Expr *e, const char *what);
bool eval_int(Sema *S, Expr *e, const char *what, int64_t *out);
int eval_dtype(Sema *S, Expr *e);
bool eval_shape(Sema *S, Expr *e, int64_t **shape, int *ndim);
int scalar(Sema *S, Expr *e);
int unify(Sema *S, Pos p, const char *op, int a, int b);
const char *dtype_str(int dt);
Value *region(Sema *S, Expr *e);

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
Kw *kwarg(Args *a, const char *name);
const char *fn_name(Expr *call);
void check_access(Sema *S, Expr *call, int k, int64_t bytes, Expr *src_size, Expr *pred);

/* ptx.c: a call of T.ptx.<chain>(...), T.ptx["..."](...) or a TVM alias
 * (ptx.def) rewritten in place into the txc builtin it means; a call of
 * anything else is left alone. False after an error. */
bool ptx_rewrite(Sema *S, Expr *call);

/* buffers.c: buffers and launch ids */
Buffer *new_buffer(const char *name, Pos pos, Expr *call);
bool set_layout(Sema *S, Buffer *b, Kw *kw);
Buffer *make_buffer(Sema *S, const char *name, Pos pos, Expr *call, int id);
Buffer *make_view(Sema *S, const char *name, Pos pos, Expr *call, Buffer *base);
Value *launch(Sema *S, Expr *call, int id, Stmt *s);

#endif
