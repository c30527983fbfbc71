/* The grammar of the txc text: the subset of Python that TVMScript kernels
 * use (doc/txir.md). It builds the syntax tree of ir.h; meaning comes later,
 * in sema.c. */
%define api.prefix {tx}
%define api.pure full
%define api.location.type {const Pos *}
%define parse.error detailed
%define api.token.raw
%locations
%param {Lexer *lx}
%expect 0

%code requires {
#include "ir.h"
#include "lexer.h"
}

%code provides {
int txlex(TXSTYPE *lval, TXLTYPE *loc, Lexer *lx);
}

%code {
#include <string.h>

/* The parser stack stops well before the C stack of the later recursive
 * walks would. */
#define YYMAXDEPTH 3000
#define YYINITDEPTH 200

/* A location on the parser's stack is a pointer to the position of the
 * first token of the symbol (the lexer keeps them while the stack holds
 * them: see stmts): cheaper to copy through the many reductions than a
 * Pos. An empty rule gets the location of the symbol before it with the
 * low bit set, which says that its length is 0. Actions read a location
 * through POS, a token's through TOKEN_POS: never an empty rule's, it is
 * the position itself (a copy, not a Pos built field by field, at each of
 * the nodes the parser makes). */
#define YYLLOC_DEFAULT(Cur, Rhs, N) \
	((Cur) = (N) ? YYRHSLOC(Rhs, 1) : (const Pos *)((uintptr_t)YYRHSLOC(Rhs, 0) | 1))

static inline Pos pos_of(const Pos *loc)
{
	uintptr_t u = (uintptr_t)loc;
	Pos p = *(const Pos *)(u & ~(uintptr_t)1);
	if (u & 1)
		p.len = 0;
	return p;
}

#define POS(loc) pos_of(loc)
#define TOKEN_POS(loc) (*(loc))

static void txerror(const Pos **loc, Lexer *lx, const char *msg)
{
	if (lx->failed)
		return; /* the lexer said why already */
	lx->failed = true;
	if (strcmp(msg, "memory exhausted") == 0)
		msg = "nesting too deep: the expression or block structure exceeds the parser's limit";
	error_at(lx->diag, POS(*loc), "%s", msg);
}

/* Lists are built in a small header: items and count. */
typedef struct List { void **v; int n; } List;

static List *list1(void *x)
{
	/* the header and room for two items in one allocation (the 32 bytes
	 * xalloc gives the header and one): vpush moves the items out when
	 * the third comes, to an array of 4 as it grows one of 2 */
	List *l = xalloc(sizeof *l + 2 * sizeof(void *));
	l->v = (void **)(l + 1);
	l->v[0] = x;
	l->n = 1;
	return l;
}

static List *lpush(List *l, void *x)
{
	if (l->n == 1 && l->v == (void **)(l + 1))
		l->v[l->n++] = x;
	else
		vpush(l->v, l->n, x);
	return l;
}

static Expr *bin(Pos p, int op, Expr *a, Expr *b)
{
	Expr *e = new_expr(E_BIN, p);
	e->op = op;
	e->a = a;
	e->b = b;
	return e;
}

static Expr *un(Pos p, int op, Expr *a)
{
	Expr *e = new_expr(E_UN, p);
	e->op = op;
	e->a = a;
	return e;
}

/* E_OR, E_AND (a and b) or E_NOT (a alone). */
static Expr *logic(int kind, Pos p, Expr *a, Expr *b)
{
	Expr *e = new_expr(kind, p);
	e->a = a;
	e->b = b;
	return e;
}

static Expr *compare(Pos p, int op, Expr *a, Expr *b)
{
	Expr *e = new_expr(E_CMP, p);
	e->op = op;
	e->a = a;
	e->b = b;
	return e;
}

/* `a < b < c`, at the second operator. */
static void chained(Lexer *lx, Pos p)
{
	error_at(lx->diag, p, "chained comparison is not supported; write (a < b) and (b < c)");
	lx->failed = true;
}

/* Every expression tree is at most MAX_EXPR_DEPTH deep, so that the
 * recursive walks of every program (sema, eval, the printer, the passes)
 * stay far inside the C stack: a chain without brackets (`1+1+...`,
 * `a.b.c...`, `x[0][0]...`, `f()()...`) grows the tree one level per term
 * while the parser's own stack stays flat. */
static inline bool deep(Lexer *lx, Expr *e)
{
	int d = expr_child_depth(e);
	if (d < MAX_EXPR_DEPTH) {
		e->depth = d + 1;
		return true;
	}
	e->depth = MAX_EXPR_DEPTH + 1; /* refused (the parse stops): the field is narrow */
	if (!lx->failed)
		error_at(lx->diag, e->pos, "expression too deep: more than %d levels of operators, calls, attributes "
		         "and subscripts; bind parts of it to names", MAX_EXPR_DEPTH);
	lx->failed = true;
	return false;
}

/* Every depth stored is at most MAX_EXPR_DEPTH + 1, and an f-string's
 * field (lex.l) adds one to its expression's. */
_Static_assert(MAX_EXPR_DEPTH + 2 < 1 << EXPR_DEPTH_BITS, "Expr's depth holds every depth stored");

/* In an action: the node just built must not be too deep. */
#define DEEP(e) do { if (!deep(lx, (e))) YYABORT; } while (0)

/* lo:hi:step, each part NULL where it is left out. */
static Expr *slice(Pos p, Expr *lo, Expr *hi, Expr *step)
{
	Expr *e = new_expr(E_SLICE, p);
	e->a = lo;
	e->b = hi;
	e->c = step;
	return e;
}

/* A list of expressions with a comma: a tuple. */
static Expr *tuple(Pos p, List *l, bool paren)
{
	Expr *e = new_expr(E_TUPLE, p);
	if (l) {
		e->args = (Expr **)l->v;
		e->nargs = l->n;
	}
	e->paren = paren;
	return e;
}

/* Arguments of a call: positional first, then keywords. A positional
 * argument is its Expr in the list, a keyword argument (or **x) an Arg
 * with the low bit of its address set (xalloc aligns to 16). */
typedef struct Arg { Expr *value; const char *kw; Pos pos; } Arg;

static void *kwarg(Expr *v, const char *kw, Pos p)
{
	Arg *a = xalloc(sizeof *a);
	a->value = v;
	a->kw = kw;
	a->pos = p;
	return (void *)((uintptr_t)a | 1);
}

static Arg *as_kwarg(void *item)
{
	return (uintptr_t)item & 1 ? (Arg *)((uintptr_t)item & ~(uintptr_t)1) : NULL;
}

static Expr *call(Lexer *lx, Pos p, Expr *fn, List *args)
{
	Expr *e = new_call(p, fn);
	int npos = 0;
	while (args && npos < args->n && !as_kwarg(args->v[npos]))
		npos++;
	if (npos) /* the leading positional arguments in one array */
		expr_set_args(e, (Expr **)args->v, npos);
	for (int i = npos; args && i < args->n; i++) {
		Arg *a = as_kwarg(args->v[i]);
		if (!a) {
			Expr *v = args->v[i];
			bool splat = false;
			for (int k = 0; k < e->nkws; k++)
				splat |= strcmp(e->kws[k].name, KW_SPLAT) == 0;
			error_at(lx->diag, v->pos, "%s", splat ? "positional argument follows keyword argument unpacking"
			                                       : "positional argument follows keyword argument");
			lx->failed = true;
			continue;
		}
		for (int k = 0; k < e->nkws; k++)
			if (strcmp(a->kw, KW_SPLAT) != 0 && strcmp(e->kws[k].name, a->kw) == 0) {
				error_at(lx->diag, a->pos, "keyword argument '%s' repeated", a->kw);
				lx->failed = true;
			}
		call_add_kw(e, a->kw, a->value, a->pos);
	}
	return e;
}

/* A call is reported under its whole callee: `T.ptx.foo` of T.ptx.foo(). */
static Pos callee_pos(Expr *fn)
{
	Expr *e = fn;
	while (e->kind == E_ATTR)
		e = e->a;
	Pos p = e->pos;
	if (p.line == fn->pos.line && fn->pos.off + fn->pos.len > p.off)
		p.len = fn->pos.off + fn->pos.len - p.off;
	return p;
}

static Stmt *expr_stmt(Expr *e)
{
	Stmt *s = new_stmt(S_EXPR, e->pos);
	s->value = e;
	return s;
}

static void set_body(Stmt *s, List *body)
{
	s->body = (Stmt **)body->v;
	s->nbody = body->n;
}

static List *concat(List *a, List *b)
{
	for (int i = 0; i < b->n; i++)
		lpush(a, b->v[i]);
	return a;
}

static Expr *star(Pos p, int op, Expr *a)
{
	Expr *e = new_expr(E_STAR, p);
	e->op = op;
	e->a = a;
	return e;
}

static Expr *comp(Pos p, int kind, Expr *elt, List *clauses)
{
	Expr *e = new_expr(E_COMP, p);
	e->op = kind;
	e->a = elt;
	e->args = (Expr **)clauses->v;
	e->nargs = clauses->n;
	return e;
}

/* Adjacent strings: one string, or one f-string when any piece is one. */
static Expr *join_strings(Pos p, List *l)
{
	bool f = false;
	for (int i = 0; i < l->n; i++)
		f |= ((Expr *)l->v[i])->kind == E_FSTR;
	Buf b = {0};
	bputc(&b, 0);
	b.n = 0;
	if (!f) {
		for (int i = 0; i < l->n; i++)
			bputs(&b, ((Expr *)l->v[i])->str);
		Expr *e = new_expr(E_STR, p);
		e->str = b.s;
		return e;
	}
	Expr *e = new_expr(E_FSTR, p);
	for (int i = 0; i < l->n; i++) {
		Expr *x = l->v[i];
		Expr **v = x->kind == E_FSTR ? x->args : &x;
		int n = x->kind == E_FSTR ? x->nargs : 1;
		for (int k = 0; k < n; k++) {
			Expr *last = e->nargs ? e->args[e->nargs - 1] : NULL;
			if (v[k]->kind == E_STR && !*v[k]->str)
				continue;
			if (v[k]->kind == E_STR && last && last->kind == E_STR) {
				Expr *m = new_expr(E_STR, last->pos);
				m->str = xprintf("%s%s", last->str, v[k]->str);
				e->args[e->nargs - 1] = m;
			} else {
				vpush(e->args, e->nargs, v[k]);
			}
		}
	}
	return e;
}

static int augop(const char *s)
{
	for (int op = 0; op < OP_COUNT; op++)
		if (strcmp(op_spelling[op], s) == 0)
			return op;
	return OP_ADD;
}
}

%union {
	int64_t ival;
	double fval;
	const char *str;
	Expr *expr;
	Stmt *stmt;
	struct List *list;
	int op;
}

%token <str> NAME "name" STRING "string" AUGASSIGN "augmented assignment"
%token <expr> FSTRING "f-string"
%token FEXPR "start of an f-string field"
%token <ival> INT "integer"
%token <fval> FLOAT "float"
%token NEWLINE "end of line" INDENT "indent" DEDENT "dedent"
%token AND "'and'" AS "'as'" DEF "'def'" ELIF "'elif'" ELSE "'else'"
%token FALSE "'False'" FOR "'for'" FROM "'from'" IF "'if'" IMPORT "'import'"
%token IN "'in'" NONE "'None'" NOT "'not'" OR "'or'" PASS "'pass'" TRUE "'True'"
%token RAISE "'raise'" RETURN "'return'" WHILE "'while'" LAMBDA "'lambda'"
%token POW "'**'" FLOORDIV "'//'" SHL "'<<'" SHR "'>>'" LE "'<='" GE "'>='"
%token EQ "'=='" NE "'!='" ARROW "'->'"
%token LEXERROR "invalid token"
/* The one-byte operators and brackets: named tokens (not character
 * literals), so that a token's number is its symbol number in the
 * tables (api.token.raw), with no translation for every token read. In
 * the order of their symbols when they were character literals: a syntax
 * error lists the tokens it expects in this order. */
%token VBAR "'|'" CARET "'^'" AMPER "'&'" PLUS "'+'" MINUS "'-'" STAR "'*'"
%token SLASH "'/'" PERCENT "'%'" AT "'@'" SEMI "';'" ASSIGN "'='" COLON "':'"
%token LPAREN "'('" RPAREN "')'" COMMA "','" DOT "'.'" LESS "'<'" GREATER "'>'"
%token TILDE "'~'" LBRACK "'['" RBRACK "']'" LBRACE "'{'" RBRACE "'}'"

%type <list> stmts stmt_list simple_stmt small_stmts suite elif_part decorators
%type <list> params param_list aliases alias_list exprs_comma args arg_list
%type <list> subscripts strings list_items dict_items comp_for comp_iters lambda_params lambda_names
%type <stmt> small_stmt compound_stmt if_stmt for_stmt while_stmt funcdef import
%type <expr> expr test or_test cond_test and_test bor
%type <expr> exprlist subscript ret_type
%type <expr> item dict_item
%type <op> cmpop
%type <str> dotted
%type <stmt> alias param

/* a if c else b, or, and, then not: `a or b if c else d` is (a or b) if
 * c else d, `a if c else b if d else e` is a if c else (b if d else e),
 * `not a and b` is (not a) and b; a comparison binds tighter than a `not`
 * (see expr). */
%precedence LAMBDA
%right IF
%left OR
%left AND
%precedence NOT

/* The operators below the comparisons, lowest first: ** binds tighter
 * than a unary minus on its left (-a ** b is -(a ** b)), and its right
 * operand may be one (a ** -b); a call, subscript or attribute binds
 * tighter than all of them (-f(x) ** a.b is -(f(x) ** (a.b))). */
%left VBAR
%left CARET
%left AMPER
%left SHL SHR
%left PLUS MINUS
%left STAR SLASH FLOORDIV PERCENT AT
%precedence UNARY
%right POW
%precedence DOT LPAREN LBRACK

%%

module
	: %empty         { lx->module->body = NULL; }
	| stmts          { lx->module->body = (Stmt **)$1->v; lx->module->nbody = $1->n; }
	| FEXPR exprlist { lx->result = $2; }
	;

/* After each statement of a block, with no token read past it, the
 * parser reads no position of a token after the symbol under the block
 * (@0) again: those of the statement are copied into its nodes, and a
 * block's own location (that of its first token) is never read. The
 * lexer writes the next tokens' positions over them. */
stmts
	: stmt_list NEWLINE         { $$ = $1; if (yychar == TXEMPTY) lexer_free_pos(lx, @0); }
	| stmt_list SEMI NEWLINE    { $$ = $1; if (yychar == TXEMPTY) lexer_free_pos(lx, @0); }
	| compound_stmt             { $$ = list1($1); if (yychar == TXEMPTY) lexer_free_pos(lx, @0); }
	| stmts compound_stmt       { $$ = lpush($1, $2); if (yychar == TXEMPTY) lexer_free_pos(lx, @0); }
	;

/* A block's statements so far, with the small statements of its last
 * line: they go straight into the block's list (not a list of the line's
 * own, then appended), two reductions less for every line. */
stmt_list
	: small_stmt                 { $$ = list1($1); }
	| stmts small_stmt           { $$ = lpush($1, $2); }
	| stmt_list SEMI small_stmt  { $$ = lpush($1, $3); }
	;

simple_stmt
	: small_stmts NEWLINE
	| small_stmts SEMI NEWLINE
	;

small_stmts
	: small_stmt                   { $$ = list1($1); }
	| small_stmts SEMI small_stmt  { $$ = lpush($1, $3); }
	;

small_stmt
	: exprlist                  { $$ = expr_stmt($1); }
	| exprlist ASSIGN exprlist  {
		$$ = new_stmt(S_ASSIGN, TOKEN_POS(@2));
		if ($1->kind == E_TUPLE && !$1->paren && $1->nargs > 1) {
			$$->targets = $1->args;
			$$->ntargets = $1->nargs;
		} else {
			vpush($$->targets, $$->ntargets, $1);
		}
		$$->value = $3;
	}
	| exprlist ASSIGN exprlist ASSIGN {
		error_at(lx->diag, TOKEN_POS(@4), "chained assignment is not supported; assign one name at a time");
		lx->failed = true;
		YYABORT;
	}
	| exprlist COLON expr ASSIGN exprlist {
		if ($1->kind != E_NAME) {
			error_at(lx->diag, expr_start($1), "only a name can be annotated: `name: T.int32 = value`");
			lx->failed = true;
			YYABORT;
		}
		$$ = new_stmt(S_ASSIGN, TOKEN_POS(@4));
		vpush($$->targets, $$->ntargets, $1);
		$$->ann = $3;
		$$->value = $5;
	}
	| exprlist COLON expr       {
		if ($1->kind != E_NAME) {
			error_at(lx->diag, expr_start($1), "only a name can be annotated: `name: T.int32`");
			lx->failed = true;
			YYABORT;
		}
		$$ = new_stmt(S_DECL, TOKEN_POS(@2));
		vpush($$->targets, $$->ntargets, $1);
		$$->ann = $3;
	}
	| exprlist AUGASSIGN exprlist {
		$$ = new_stmt(S_AUGASSIGN, TOKEN_POS(@2));
		vpush($$->targets, $$->ntargets, $1);
		$$->op = augop($2);
		$$->value = $3;
	}
	| PASS                      { $$ = new_stmt(S_PASS, TOKEN_POS(@1)); }
	| RETURN                    { $$ = new_stmt(S_RETURN, TOKEN_POS(@1)); }
	| RETURN exprlist           { $$ = new_stmt(S_RETURN, TOKEN_POS(@1)); $$->value = $2; }
	| RAISE                     { $$ = new_stmt(S_RAISE, TOKEN_POS(@1)); }
	| RAISE expr                { $$ = new_stmt(S_RAISE, TOKEN_POS(@1)); $$->value = $2; }
	| import
	;

import
	: FROM dotted IMPORT aliases {
		$$ = new_stmt(S_IMPORT, TOKEN_POS(@1));
		$$->from = true;
		$$->module = $2;
		for (int i = 0; i < $4->n; i++) {
			Stmt *a = $4->v[i];
			Alias al = { a->name, a->module, a->pos };
			$$->aliases = xrealloc($$->aliases, sizeof(Alias) * (size_t)i, sizeof(Alias) * (size_t)(i + 1));
			$$->aliases[i] = al;
			$$->naliases = i + 1;
		}
	}
	| IMPORT dotted             { $$ = new_stmt(S_IMPORT, TOKEN_POS(@1)); $$->module = $2; }
	| IMPORT dotted AS NAME     { $$ = new_stmt(S_IMPORT, TOKEN_POS(@1)); $$->module = $2; $$->name = $4; }
	;

aliases
	: alias_list
	| LPAREN alias_list RPAREN        { $$ = $2; }
	| LPAREN alias_list COMMA RPAREN  { $$ = $2; }
	;

alias_list
	: alias                     { $$ = list1($1); }
	| alias_list COMMA alias    { $$ = lpush($1, $3); }
	;

/* An alias travels in a Stmt: name, and `as` name in module. */
alias
	: NAME                      { $$ = new_stmt(S_PASS, TOKEN_POS(@1)); $$->name = $1; }
	| NAME AS NAME              { $$ = new_stmt(S_PASS, TOKEN_POS(@1)); $$->name = $1; $$->module = $3; }
	;

dotted
	: NAME
	| dotted DOT NAME           { $$ = xprintf("%s.%s", $1, $3); }
	;

compound_stmt
	: if_stmt | for_stmt | while_stmt | funcdef
	;

if_stmt
	: IF test COLON suite elif_part {
		$$ = new_stmt(S_IF, TOKEN_POS(@1));
		$$->value = $2;
		set_body($$, $4);
		if ($5) {
			$$->orelse = (Stmt **)$5->v;
			$$->norelse = $5->n;
		}
	}
	;

elif_part
	: %empty                    { $$ = NULL; }
	| ELSE COLON suite          { $$ = $3; }
	| ELIF test COLON suite elif_part {
		Stmt *s = new_stmt(S_IF, TOKEN_POS(@1));
		s->value = $2;
		s->elif = true;
		set_body(s, $4);
		if ($5) {
			s->orelse = (Stmt **)$5->v;
			s->norelse = $5->n;
		}
		$$ = list1(s);
	}
	;

for_stmt
	: FOR exprlist IN exprlist COLON suite {
		$$ = new_stmt(S_FOR, TOKEN_POS(@1));
		vpush($$->targets, $$->ntargets, $2);
		$$->value = $4;
		set_body($$, $6);
	}
	;

while_stmt
	: WHILE test COLON suite {
		$$ = new_stmt(S_WHILE, TOKEN_POS(@1));
		$$->value = $2;
		set_body($$, $4);
	}
	;

funcdef
	: decorators DEF NAME LPAREN params RPAREN ret_type COLON suite {
		$$ = new_stmt(S_FUNC, TOKEN_POS(@3));
		$$->name = $3;
		$$->decorators = (Expr **)$1->v;
		$$->ndecorators = $1->n;
		for (int i = 0; i < $5->n; i++) {
			Stmt *p = $5->v[i];
			Param pa = { p->name, p->value, p->pos, p->ann };
			$$->params = xrealloc($$->params, sizeof(Param) * (size_t)i, sizeof(Param) * (size_t)(i + 1));
			$$->params[i] = pa;
			$$->nparams = i + 1;
		}
		$$->ret = $7;
		set_body($$, $9);
	}
	| DEF NAME LPAREN params RPAREN ret_type COLON suite {
		$$ = new_stmt(S_FUNC, TOKEN_POS(@2));
		$$->name = $2;
		for (int i = 0; i < $4->n; i++) {
			Stmt *p = $4->v[i];
			Param pa = { p->name, p->value, p->pos, p->ann };
			$$->params = xrealloc($$->params, sizeof(Param) * (size_t)i, sizeof(Param) * (size_t)(i + 1));
			$$->params[i] = pa;
			$$->nparams = i + 1;
		}
		$$->ret = $6;
		set_body($$, $8);
	}
	;

decorators
	: AT test NEWLINE             { $$ = list1($2); }
	| decorators AT test NEWLINE  { $$ = lpush($1, $3); }
	;

ret_type
	: %empty                    { $$ = NULL; }
	| ARROW expr                { $$ = $2; }
	;

params
	: %empty                    { $$ = xalloc(sizeof(List)); }
	| param_list
	| param_list COMMA
	;

param_list
	: param                     { $$ = list1($1); }
	| param_list COMMA param    { $$ = lpush($1, $3); }
	;

/* A parameter travels in a Stmt: name, annotation (value) and default
 * (ann). */
param
	: NAME                      { $$ = new_stmt(S_PASS, TOKEN_POS(@1)); $$->name = $1; }
	| NAME COLON expr           { $$ = new_stmt(S_PASS, TOKEN_POS(@1)); $$->name = $1; $$->value = $3; }
	| NAME ASSIGN expr          { $$ = new_stmt(S_PASS, TOKEN_POS(@1)); $$->name = $1; $$->ann = $3; }
	| NAME COLON expr ASSIGN expr {
		$$ = new_stmt(S_PASS, TOKEN_POS(@1));
		$$->name = $1;
		$$->value = $3;
		$$->ann = $5;
	}
	;

suite
	: simple_stmt
	| NEWLINE INDENT stmts DEDENT  { $$ = $3; }
	;

/* Expressions, loosest binding first. */

exprlist
	: expr
	| exprs_comma               { $$ = tuple($1->n ? ((Expr *)$1->v[0])->pos : POS(@$), $1, false); DEEP($$); }
	| exprs_comma item          { lpush($1, $2); $$ = tuple(((Expr *)$1->v[0])->pos, $1, false); DEEP($$); }
	;

exprs_comma
	: item COMMA                { $$ = list1($1); }
	| exprs_comma item COMMA    { $$ = lpush($1, $2); }
	;

/* An item of a tuple, list, call or subscript: an expression or *x. */
item
	: expr
	| STAR bor                  { $$ = star(TOKEN_POS(@1), 1, $2); DEEP($$); }
	;

/* or, and, not, the comparisons and `a if c else b` in one nonterminal,
 * their binding by the precedence declarations above: an operand is
 * reduced to an expr at once, not through a chain of one rule per level
 * (two unit reductions less for every argument and subscript). A
 * comparison's operands are bor's, so that a second comparison operator
 * is seen at once. */
expr
	: bor
	| expr OR expr              { $$ = logic(E_OR, TOKEN_POS(@2), $1, $3); DEEP($$); }
	| expr AND expr             { $$ = logic(E_AND, TOKEN_POS(@2), $1, $3); DEEP($$); }
	| NOT expr                  { $$ = logic(E_NOT, TOKEN_POS(@1), $2, NULL); DEEP($$); }
	| bor cmpop bor             { $$ = compare(POS(@2), $2, $1, $3); DEEP($$); }
	| bor cmpop bor cmpop       { chained(lx, POS(@4)); YYABORT; }
	| expr IF cond_test ELSE expr %prec IF {
		$$ = new_expr(E_COND, TOKEN_POS(@2));
		$$->a = $3;
		$$->b = $1;
		$$->c = $5;
		DEEP($$);
	}
	| LAMBDA lambda_params COLON expr %prec LAMBDA {
		/* lambda a, b: body: args the parameters (names), a the body */
		$$ = new_expr(E_LAMBDA, TOKEN_POS(@1));
		$$->a = $4;
		for (int i = 0; i < $2->n; i++)
			call_add_arg($$, $2->v[i]);
		DEEP($$);
	}
	;

lambda_params
	: %empty                    { $$ = xalloc(sizeof(List)); }
	| lambda_names
	;

lambda_names
	: NAME                      { $$ = list1(new_name(POS(@1), $1)); }
	| lambda_names COMMA NAME   { $$ = lpush($1, new_name(POS(@3), $3)); }
	;

/* An expression a fixed token follows (`if c:`, `@d` and the end of the
 * line): a level of its own, so that a syntax error after it says
 * "expecting ':'", not also 'and', 'if' and 'or' (expr's own state has
 * no reduction to make there). */
test
	: expr
	;

/* The same without `a if c else b`, for a comprehension's iterable and
 * conditions (`for x in s if c`: the `if` is a condition's). */
or_test
	: bor
	| or_test OR or_test        { $$ = logic(E_OR, TOKEN_POS(@2), $1, $3); DEEP($$); }
	| or_test AND or_test       { $$ = logic(E_AND, TOKEN_POS(@2), $1, $3); DEEP($$); }
	| NOT or_test               { $$ = logic(E_NOT, TOKEN_POS(@1), $2, NULL); DEEP($$); }
	| bor cmpop bor             { $$ = compare(POS(@2), $2, $1, $3); DEEP($$); }
	| bor cmpop bor cmpop       { chained(lx, POS(@4)); YYABORT; }
	;

/* The condition of `a if c else b`: the same, but with `or` a level of
 * its own (as or_test was once), so that a syntax error after it says
 * "expecting 'else' or 'or'" (an and_test is reduced to cond_test before
 * the error is seen). */
cond_test
	: and_test
	| cond_test OR and_test     { $$ = logic(E_OR, TOKEN_POS(@2), $1, $3); DEEP($$); }
	;

and_test
	: bor
	| and_test AND and_test     { $$ = logic(E_AND, TOKEN_POS(@2), $1, $3); DEEP($$); }
	| NOT and_test              { $$ = logic(E_NOT, TOKEN_POS(@1), $2, NULL); DEEP($$); }
	| bor cmpop bor             { $$ = compare(POS(@2), $2, $1, $3); DEEP($$); }
	| bor cmpop bor cmpop       { chained(lx, POS(@4)); YYABORT; }
	;

cmpop
	: LESS { $$ = OP_LT; } | LE { $$ = OP_LE; } | GREATER { $$ = OP_GT; } | GE { $$ = OP_GE; }
	| EQ { $$ = OP_EQ; } | NE { $$ = OP_NE; }
	;

/* The binary and unary operators below the comparisons, one level each
 * by the precedence declarations above (Python's order): an operand is
 * reduced once, not through a chain of one rule per level (eight unit
 * reductions for every name and number: a third of the parser's work). */
bor
	: bor VBAR bor              { $$ = bin(TOKEN_POS(@2), OP_BITOR, $1, $3); DEEP($$); }
	| bor CARET bor             { $$ = bin(TOKEN_POS(@2), OP_BITXOR, $1, $3); DEEP($$); }
	| bor AMPER bor             { $$ = bin(TOKEN_POS(@2), OP_BITAND, $1, $3); DEEP($$); }
	| bor SHL bor               { $$ = bin(TOKEN_POS(@2), OP_SHL, $1, $3); DEEP($$); }
	| bor SHR bor               { $$ = bin(TOKEN_POS(@2), OP_SHR, $1, $3); DEEP($$); }
	| bor PLUS bor              { $$ = bin(TOKEN_POS(@2), OP_ADD, $1, $3); DEEP($$); }
	| bor MINUS bor             { $$ = bin(TOKEN_POS(@2), OP_SUB, $1, $3); DEEP($$); }
	| bor STAR bor              { $$ = bin(TOKEN_POS(@2), OP_MUL, $1, $3); DEEP($$); }
	| bor SLASH bor             { $$ = bin(TOKEN_POS(@2), OP_DIV, $1, $3); DEEP($$); }
	| bor FLOORDIV bor          { $$ = bin(TOKEN_POS(@2), OP_FLOORDIV, $1, $3); DEEP($$); }
	| bor PERCENT bor           { $$ = bin(TOKEN_POS(@2), OP_MOD, $1, $3); DEEP($$); }
	| bor AT bor                { $$ = bin(TOKEN_POS(@2), OP_MATMUL, $1, $3); DEEP($$); }
	| MINUS bor %prec UNARY     { $$ = un(TOKEN_POS(@1), OP_NEG, $2); DEEP($$); }
	| PLUS bor %prec UNARY      { $$ = un(TOKEN_POS(@1), OP_POS, $2); DEEP($$); }
	| TILDE bor %prec UNARY     { $$ = un(TOKEN_POS(@1), OP_INVERT, $2); DEEP($$); }
	| bor POW bor               { $$ = bin(TOKEN_POS(@2), OP_POW, $1, $3); DEEP($$); }
	;

/* The primaries (names, numbers, the atoms below, attributes, calls and
 * subscripts) are bor's own: a unit reduction less for every operand. */
bor
	: NAME                      { $$ = new_name(TOKEN_POS(@1), $1); }
	| INT                       { $$ = new_int(TOKEN_POS(@1), $1); }
	| bor DOT NAME              {
		$$ = new_expr(E_ATTR, TOKEN_POS(@3));
		$$->a = $1;
		$$->str = $3;
		DEEP($$);
	}
	| bor LPAREN args RPAREN    { $$ = call(lx, callee_pos($1), $1, $3); DEEP($$); }
	| bor LPAREN expr comp_for RPAREN {
		$$ = call(lx, callee_pos($1), $1, list1(comp(POS(@3), COMP_GEN, $3, $4)));
		DEEP($$->args[0]);
		DEEP($$);
	}
	| bor LBRACK subscripts RBRACK {
		$$ = new_expr(E_INDEX, expr_start($1));
		$$->a = $1;
		$$->args = (Expr **)$3->v;
		$$->nargs = $3->n;
		DEEP($$);
	}
	;

args
	: %empty                    { $$ = NULL; }
	| arg_list
	| arg_list COMMA
	;

/* An item's two forms spelled out (an expression or *x): one reduction
 * less for every positional argument. */
arg_list
	: expr                      { $$ = list1($1); }
	| STAR bor                  { Expr *e = star(TOKEN_POS(@1), 1, $2); DEEP(e); $$ = list1(e); }
	| NAME ASSIGN expr          { $$ = list1(kwarg($3, $1, TOKEN_POS(@1))); }
	| POW expr                  { $$ = list1(kwarg($2, KW_SPLAT, TOKEN_POS(@1))); }
	| arg_list COMMA expr       { $$ = lpush($1, $3); }
	| arg_list COMMA STAR bor   { Expr *e = star(TOKEN_POS(@3), 1, $4); DEEP(e); $$ = lpush($1, e); }
	| arg_list COMMA NAME ASSIGN expr { $$ = lpush($1, kwarg($5, $3, TOKEN_POS(@3))); }
	| arg_list COMMA POW expr   { $$ = lpush($1, kwarg($4, KW_SPLAT, TOKEN_POS(@3))); }
	;

/* for x in s if c ...: the clauses of a comprehension */
comp_for
	: FOR exprlist IN or_test comp_iters {
		Expr *c = new_expr(E_COMPFOR, TOKEN_POS(@1));
		c->a = $2;
		c->b = $4;
		c->args = (Expr **)$5->v;
		c->nargs = $5->n;
		$5->v = NULL;
		$5->n = 0;
		DEEP(c);
		$$ = list1(c);
	}
	| FOR exprlist IN or_test comp_iters comp_for {
		Expr *c = new_expr(E_COMPFOR, TOKEN_POS(@1));
		c->a = $2;
		c->b = $4;
		c->args = (Expr **)$5->v;
		c->nargs = $5->n;
		DEEP(c);
		$$ = concat(list1(c), $6);
	}
	;

comp_iters
	: %empty                    { $$ = xalloc(sizeof(List)); }
	| comp_iters IF or_test     { $$ = lpush($1, $3); }
	;

subscripts
	: subscript                   { $$ = list1($1); }
	| subscripts COMMA subscript  { $$ = lpush($1, $3); }
	;

/* A slice's parts each a rule of their own: no reduction for a missing
 * part, nor for a bound present. */
subscript
	: expr
	| STAR bor                          { $$ = star(TOKEN_POS(@1), 1, $2); DEEP($$); }
	| expr COLON                        { $$ = slice(expr_start($1), $1, NULL, NULL); DEEP($$); }
	| expr COLON expr                   { $$ = slice(expr_start($1), $1, $3, NULL); DEEP($$); }
	| expr COLON COLON                  { $$ = slice(expr_start($1), $1, NULL, NULL); DEEP($$); }
	| expr COLON COLON expr             { $$ = slice(expr_start($1), $1, NULL, $4); DEEP($$); }
	| expr COLON expr COLON             { $$ = slice(expr_start($1), $1, $3, NULL); DEEP($$); }
	| expr COLON expr COLON expr        { $$ = slice(expr_start($1), $1, $3, $5); DEEP($$); }
	| no_lower COLON                    { $$ = slice(TOKEN_POS(@2), NULL, NULL, NULL); DEEP($$); }
	| no_lower COLON expr               { $$ = slice(TOKEN_POS(@2), NULL, $3, NULL); DEEP($$); }
	| no_lower COLON COLON              { $$ = slice(TOKEN_POS(@2), NULL, NULL, NULL); DEEP($$); }
	| no_lower COLON COLON expr         { $$ = slice(TOKEN_POS(@2), NULL, NULL, $4); DEEP($$); }
	| no_lower COLON expr COLON         { $$ = slice(TOKEN_POS(@2), NULL, $3, NULL); DEEP($$); }
	| no_lower COLON expr COLON expr    { $$ = slice(TOKEN_POS(@2), NULL, $3, $5); DEEP($$); }
	;

/* A slice without a lower bound, reduced before its colon: where the
 * colon is missing (`x[]`), the syntax error says "expecting ':'". */
no_lower
	: %empty
	;

/* The atoms but a name and an integer, bor's too. */
bor
	: FLOAT                           { $$ = new_expr(E_FLOAT, TOKEN_POS(@1)); $$->fval = $1; }
	| strings                         { $$ = join_strings(POS(@$), $1); DEEP($$); }
	| TRUE                            { $$ = new_expr(E_TRUE, TOKEN_POS(@1)); }
	| FALSE                           { $$ = new_expr(E_FALSE, TOKEN_POS(@1)); }
	| NONE                            { $$ = new_expr(E_NONE, TOKEN_POS(@1)); }
	| LPAREN RPAREN                   { $$ = tuple(TOKEN_POS(@1), NULL, true); }
	| LPAREN expr RPAREN              { $$ = $2; }
	| LPAREN exprs_comma RPAREN       { $$ = tuple(TOKEN_POS(@1), $2, true); DEEP($$); }
	| LPAREN exprs_comma item RPAREN  { $$ = tuple(TOKEN_POS(@1), lpush($2, $3), true); DEEP($$); }
	| LPAREN expr comp_for RPAREN     { $$ = comp(TOKEN_POS(@1), COMP_GEN, $2, $3); DEEP($$); }
	| LBRACK expr comp_for RBRACK     { $$ = comp(TOKEN_POS(@1), COMP_LIST, $2, $3); DEEP($$); }
	| LBRACE RBRACE                   { $$ = new_expr(E_DICT, TOKEN_POS(@1)); }
	| LBRACE dict_items RBRACE        {
		$$ = new_expr(E_DICT, TOKEN_POS(@1));
		$$->args = (Expr **)$2->v;
		$$->nargs = $2->n;
		DEEP($$);
	}
	| LBRACE dict_items COMMA RBRACE  {
		$$ = new_expr(E_DICT, TOKEN_POS(@1));
		$$->args = (Expr **)$2->v;
		$$->nargs = $2->n;
		DEEP($$);
	}
	| LBRACE expr COLON expr comp_for RBRACE {
		Expr *p = new_expr(E_PAIR, $2->pos);
		p->a = $2;
		p->b = $4;
		DEEP(p);
		$$ = comp(TOKEN_POS(@1), COMP_DICT, p, $5);
		DEEP($$);
	}
	| LBRACK RBRACK                   { $$ = new_expr(E_LIST, TOKEN_POS(@1)); }
	| LBRACK list_items RBRACK        {
		$$ = new_expr(E_LIST, TOKEN_POS(@1));
		$$->args = (Expr **)$2->v;
		$$->nargs = $2->n;
		DEEP($$);
	}
	| LBRACK list_items COMMA RBRACK  {
		$$ = new_expr(E_LIST, TOKEN_POS(@1));
		$$->args = (Expr **)$2->v;
		$$->nargs = $2->n;
		DEEP($$);
	}
	;

list_items
	: item                      { $$ = list1($1); }
	| list_items COMMA item     { $$ = lpush($1, $3); }
	;

dict_items
	: dict_item                   { $$ = list1($1); }
	| dict_items COMMA dict_item  { $$ = lpush($1, $3); }
	;

dict_item
	: expr COLON expr           { $$ = new_expr(E_PAIR, $1->pos); $$->a = $1; $$->b = $3; DEEP($$); }
	| POW bor                   { $$ = star(TOKEN_POS(@1), 2, $2); DEEP($$); }
	| expr                      {
		error_at(lx->diag, expr_start($1), "sets are not supported in txc programs; a brace makes a dict {key: value}");
		lx->failed = true;
		YYABORT;
	}
	;

strings
	: STRING                    { Expr *e = new_expr(E_STR, TOKEN_POS(@1)); e->str = $1; $$ = list1(e); }
	| FSTRING                   { $$ = list1($1); }
	| strings STRING            { Expr *e = new_expr(E_STR, TOKEN_POS(@2)); e->str = $2; $$ = lpush($1, e); }
	| strings FSTRING           { $$ = lpush($1, $2); }
	;

%%

Module *parse_module(const Src *src, Diag *d)
{
	Lexer lx;
	if (!lexer_open(&lx, src, d))
		die("cannot start the scanner");
	Module *m = xalloc(sizeof *m);
	m->src = src;
	lx.module = m;
	int rc = txparse(&lx);
	lexer_close(&lx);
	if (rc != 0 || lx.failed)
		return NULL;
	if (m->nbody == 0)
		m->file = lx.at.place->file;
	return m;
}

Expr *parse_field(Lexer *outer, int off, int len, int line, int col)
{
	Lexer lx;
	if (!lexer_open_field(&lx, outer, off, len, line, col))
		die("cannot start the scanner");
	int rc = txparse(&lx);
	lexer_close(&lx);
	if (rc != 0 || lx.failed || !lx.result)
		return NULL;
	return lx.result;
}
