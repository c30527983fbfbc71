/* The canonical printer: one statement per line, four-space indentation,
 * spaces around binary operators, parentheses only where precedence needs
 * them, double-quoted strings, decimal integers, shortest round-trip floats.
 * Comments are not kept. print(parse(print(parse(x)))) == print(parse(x)). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

enum {
	P_TUPLE, P_LAMBDA, P_COND, P_OR, P_AND, P_NOT, P_CMP, P_BITOR, P_BITXOR,
	P_BITAND, P_SHIFT, P_ADD, P_MUL, P_UNARY, P_POW, P_ATOM,
};

static int binprec(int op)
{
	switch (op) {
	case OP_ADD: case OP_SUB: return P_ADD;
	case OP_MUL: case OP_DIV: case OP_FLOORDIV: case OP_MOD: case OP_MATMUL: return P_MUL;
	case OP_POW: return P_POW;
	case OP_SHL: case OP_SHR: return P_SHIFT;
	case OP_BITAND: return P_BITAND;
	case OP_BITOR: return P_BITOR;
	case OP_BITXOR: return P_BITXOR;
	}
	die("binprec: operator %d", op);
}

static int prec(const Expr *e)
{
	switch (e->kind) {
	case E_TUPLE: return e->nargs == 0 ? P_ATOM : P_TUPLE;
	case E_COND: return P_COND;
	case E_LAMBDA: return P_LAMBDA;
	case E_OR: return P_OR;
	case E_AND: return P_AND;
	case E_NOT: return P_NOT;
	case E_CMP: return P_CMP;
	case E_BIN: return binprec(e->op);
	case E_UN: return P_UNARY;
	default: return P_ATOM;
	}
}

/* Inside the field of an f-string, strings take single quotes. */
static int in_field;

/* The text of a string; in an f-string, braces doubled. */
static void string_text(Buf *b, const char *s, char q, bool braces)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == q || (in_field && c == '"')) {
			bputc(b, '\\');
			bputc(b, c);
			continue;
		}
		if (braces && (c == '{' || c == '}')) {
			bputc(b, c);
			bputc(b, c);
			continue;
		}
		switch (c) {
		case '\\': bputs(b, "\\\\"); break;
		case '\n': bputs(b, "\\n"); break;
		case '\t': bputs(b, "\\t"); break;
		case '\r': bputs(b, "\\r"); break;
		default:
			if (c < 32 || c == 127)
				bprintf(b, "\\x%02x", c);
			else
				bputc(b, c);
		}
	}
}

static void print_string(Buf *b, const char *s)
{
	char q = in_field ? '\'' : '"';
	bputc(b, q);
	string_text(b, s, q, false);
	bputc(b, q);
}

/* The shortest decimal that reads back as the same double, written as
 * Python writes it: fixed notation for exponents from -4 to 15. */
static void print_float(Buf *b, double f)
{
	char s[64];
	if (isinf(f)) {
		bputs(b, f > 0 ? "1e999" : "-1e999");
		return;
	}
	int p = 1;
	for (; p < 17; p++) {
		snprintf(s, sizeof s, "%.*e", p - 1, f);
		if (strtod(s, NULL) == f)
			break;
	}
	snprintf(s, sizeof s, "%.*e", p - 1, f);
	int x = atoi(strchr(s, 'e') + 1);
	if (x >= -4 && x < 16) {
		int decimals = p - 1 - x > 0 ? p - 1 - x : 0;
		snprintf(s, sizeof s, "%.*f", decimals, f);
	} else {
		snprintf(s, sizeof s, "%.*g", p, f);
	}
	bputs(b, s);
	if (!strpbrk(s, ".e"))
		bputs(b, ".0");
}

static void expr(Buf *b, const Expr *e, int min);

static bool simple(const Expr *e)
{
	if (!e)
		return true;
	switch (e->kind) {
	case E_INT: case E_FLOAT: case E_STR: case E_NAME: case E_ATTR:
	case E_TRUE: case E_FALSE: case E_NONE:
		return true;
	case E_UN:
		return e->a->kind == E_INT || e->a->kind == E_FLOAT;
	default:
		return false;
	}
}

/* lo:hi:step; when a part is not simple, the colons get spaces, except
 * next to an omitted part (PEP 8): a[lo + 1 : hi], a[: n + 1]. */
static void slice(Buf *b, const Expr *e)
{
	bool spaced = !(simple(e->a) && simple(e->b) && simple(e->c));
	if (e->a) {
		expr(b, e->a, P_COND);
		if (spaced)
			bputc(b, ' ');
	}
	bputc(b, ':');
	if (e->b) {
		if (spaced)
			bputc(b, ' ');
		expr(b, e->b, P_COND);
	}
	if (e->c) {
		if (spaced && e->b)
			bputc(b, ' ');
		bputc(b, ':');
		if (spaced)
			bputc(b, ' ');
		expr(b, e->c, P_COND);
	}
}

static void items(Buf *b, Expr *const *v, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			bputs(b, ", ");
		expr(b, v[i], P_COND);
	}
}

static void clauses(Buf *b, const Expr *e)
{
	for (int i = 0; i < e->nargs; i++) {
		const Expr *c = e->args[i];
		bputs(b, " for ");
		if (c->a->kind == E_TUPLE && !c->a->paren)
			items(b, c->a->args, c->a->nargs);
		else
			expr(b, c->a, P_COND);
		bputs(b, " in ");
		expr(b, c->b, P_OR);
		for (int k = 0; k < c->nargs; k++) {
			bputs(b, " if ");
			expr(b, c->args[k], P_OR);
		}
	}
}

static void fstring(Buf *b, const Expr *e)
{
	char q = in_field ? '\'' : '"';
	bputc(b, 'f');
	bputc(b, q);
	for (int i = 0; i < e->nargs; i++) {
		const Expr *x = e->args[i];
		if (x->kind == E_STR) {
			string_text(b, x->str, q, true);
			continue;
		}
		Buf f = {0};
		bputc(&f, 0);
		f.n = 0;
		in_field++;
		expr(&f, x->a, P_COND);
		in_field--;
		bputc(b, '{');
		if (f.s[0] == '{')
			bputc(b, ' '); /* not an escaped brace */
		bputs(b, f.s);
		if (f.s[f.n - 1] == '}')
			bputc(b, ' ');
		if (x->op)
			bprintf(b, "!%c", x->op);
		if (x->str)
			bprintf(b, ":%s", x->str);
		bputc(b, '}');
	}
	bputc(b, q);
}

/* " op ": a binary operator between spaces */
static void spaced_op(Buf *b, int op)
{
	bputc(b, ' ');
	bputs(b, op_spelling[op]);
	bputc(b, ' ');
}

static void expr(Buf *b, const Expr *e, int min)
{
	bool paren = prec(e) < min;
	if (paren)
		bputc(b, '(');
	switch (e->kind) {
	case E_INT: { /* the digits by hand: a long kernel prints millions */
		char t[24], *q = t + sizeof t;
		uint64_t u = e->ival < 0 ? -(uint64_t)e->ival : (uint64_t)e->ival;
		*--q = 0;
		do
			*--q = (char)('0' + u % 10);
		while (u /= 10);
		if (e->ival < 0)
			*--q = '-';
		bputs(b, q);
		break;
	}
	case E_FLOAT:
		print_float(b, e->fval);
		break;
	case E_STR:
		print_string(b, e->str);
		break;
	case E_TRUE: bputs(b, "True"); break;
	case E_FALSE: bputs(b, "False"); break;
	case E_NONE: bputs(b, "None"); break;
	case E_NAME:
		bputs(b, e->str);
		break;
	case E_ATTR:
		if (e->a->kind == E_INT || e->a->kind == E_FLOAT) {
			bputc(b, '(');
			expr(b, e->a, P_ATOM);
			bputc(b, ')');
		} else {
			expr(b, e->a, P_ATOM);
		}
		bputc(b, '.');
		bputs(b, e->str);
		break;
	case E_CALL:
		expr(b, e->a, P_ATOM);
		if (e->nargs == 1 && !e->nkws && e->args[0]->kind == E_COMP && e->args[0]->op == COMP_GEN) {
			/* f(x for x in s): the generator's own parentheses */
			expr(b, e->args[0], P_COND);
			break;
		}
		bputc(b, '(');
		items(b, e->args, e->nargs);
		for (int i = 0; i < e->nkws; i++) {
			if (i || e->nargs)
				bputs(b, ", ");
			if (strcmp(e->kws[i].name, KW_SPLAT) == 0)
				bputs(b, "**");
			else {
				bputs(b, e->kws[i].name);
				bputc(b, '=');
			}
			expr(b, e->kws[i].value, P_COND);
		}
		bputc(b, ')');
		break;
	case E_INDEX:
		expr(b, e->a, P_ATOM);
		bputc(b, '[');
		for (int i = 0; i < e->nargs; i++) {
			if (i)
				bputs(b, ", ");
			if (e->args[i]->kind == E_SLICE)
				slice(b, e->args[i]);
			else
				expr(b, e->args[i], P_COND);
		}
		bputc(b, ']');
		break;
	case E_SLICE:
		slice(b, e);
		break;
	case E_TUPLE:
		/* Parenthesized tuples keep their parentheses; bare ones get
		 * them only where precedence needs them. */
		if (!paren && (e->paren || e->nargs == 0))
			bputc(b, '(');
		items(b, e->args, e->nargs);
		if (e->nargs == 1)
			bputc(b, ',');
		if (!paren && (e->paren || e->nargs == 0))
			bputc(b, ')');
		break;
	case E_LIST:
		bputc(b, '[');
		items(b, e->args, e->nargs);
		bputc(b, ']');
		break;
	case E_STAR:
		bputs(b, e->op == 2 ? "**" : "*");
		expr(b, e->a, P_BITOR);
		break;
	case E_DICT:
		bputc(b, '{');
		items(b, e->args, e->nargs);
		bputc(b, '}');
		break;
	case E_PAIR:
		expr(b, e->a, P_COND);
		bputs(b, ": ");
		expr(b, e->b, P_COND);
		break;
	case E_COMP:
		bputc(b, e->op == COMP_LIST ? '[' : e->op == COMP_DICT ? '{' : '(');
		expr(b, e->a, P_COND);
		clauses(b, e);
		bputc(b, e->op == COMP_LIST ? ']' : e->op == COMP_DICT ? '}' : ')');
		break;
	case E_COMPFOR: case E_FIELD:
		die("print: a part of an expression printed alone");
	case E_FSTR:
		fstring(b, e);
		break;
	case E_BIN: {
		int p = binprec(e->op);
		if (e->op == OP_POW) {
			expr(b, e->a, P_ATOM);
			bputs(b, " ** ");
			expr(b, e->b, P_UNARY);
		} else {
			expr(b, e->a, p);
			spaced_op(b, e->op);
			expr(b, e->b, p + 1);
		}
		break;
	}
	case E_UN:
		bputs(b, op_spelling[e->op]);
		expr(b, e->a, P_UNARY);
		break;
	case E_CMP:
		expr(b, e->a, P_BITOR);
		spaced_op(b, e->op);
		expr(b, e->b, P_BITOR);
		break;
	case E_AND:
		expr(b, e->a, P_AND);
		bputs(b, " and ");
		expr(b, e->b, P_NOT);
		break;
	case E_OR:
		expr(b, e->a, P_OR);
		bputs(b, " or ");
		expr(b, e->b, P_AND);
		break;
	case E_NOT:
		bputs(b, "not ");
		expr(b, e->a, P_NOT);
		break;
	case E_COND:
		expr(b, e->b, P_OR);
		bputs(b, " if ");
		expr(b, e->a, P_OR);
		bputs(b, " else ");
		expr(b, e->c, P_COND);
		break;
	case E_LAMBDA:
		bputs(b, "lambda");
		for (int i = 0; i < e->nargs; i++)
			bprintf(b, "%s%s", i ? ", " : " ", e->args[i]->str);
		bputs(b, ": ");
		expr(b, e->a, P_LAMBDA);
		break;
	}
	if (paren)
		bputc(b, ')');
}

void print_expr(Buf *b, const Expr *e)
{
	expr(b, e, P_TUPLE);
}

char *expr_str(const Expr *e)
{
	Buf b = {0};
	bputc(&b, 0);
	b.n = 0;
	print_expr(&b, e);
	return b.s;
}

static void indent(Buf *b, int n)
{
	for (int i = 0; i < n; i++)
		bputs(b, "    ");
}

static void body(Buf *b, Stmt *const *v, int n, int level)
{
	for (int i = 0; i < n; i++)
		print_stmt(b, v[i], level);
}

/* With locations on: the logical line of the next line printed, counted
 * from the last #@ comment, and how far the buffer has been counted. */
static struct {
	bool on;
	const char *file;
	int next;
	size_t counted;
	const char *lastfile; /* the source line of the last statement with one */
	int lastline;
} loc;

static void mark_location(Buf *b, const Stmt *s, int level)
{
	for (; loc.counted < b->n; loc.counted++)
		if (b->s[loc.counted] == '\n')
			loc.next++;
	if (!loc.on)
		return;
	const char *file;
	int line;
	if (s->pos.line <= 0 || !s->pos.place) {
		/* made by a pass (a lowering's second statement): the line of the
		 * statement before it, not the line a reader would count */
		if (!loc.lastfile)
			return;
		file = loc.lastfile;
		line = loc.lastline;
	} else {
		file = pos_name(s->pos);
		line = s->pos.line - (s->kind == S_FUNC ? s->ndecorators : 0);
	}
	loc.lastfile = file;
	loc.lastline = line;
	if (loc.file && strcmp(loc.file, file) == 0 && loc.next == line)
		return;
	indent(b, level);
	bprintf(b, "#@ %s:%d\n", file, line);
	loc.counted = b->n;
	loc.file = file;
	loc.next = line;
}

void print_stmt(Buf *b, const Stmt *s, int level)
{
	mark_location(b, s, level);
	indent(b, level);
	switch (s->kind) {
	case S_EXPR:
		print_expr(b, s->value);
		break;
	case S_ASSIGN:
		if (s->ntargets == 1 && s->targets[0]->kind == E_TUPLE && !s->targets[0]->paren) {
			/* `a, = x` (and `a, b, = x`): unpacking, which parentheses would make
			 * a tuple target */
			for (int i = 0; i < s->targets[0]->nargs; i++) {
				expr(b, s->targets[0]->args[i], P_COND);
				bputs(b, ",");
				if (i + 1 < s->targets[0]->nargs)
					bputc(b, ' ');
			}
		}
		for (int i = 0; i < s->ntargets && s->targets[0]->kind != E_TUPLE; i++) {
			if (i)
				bputs(b, ", ");
			expr(b, s->targets[i], P_COND);
		}
		if (s->ann) {
			bputs(b, ": ");
			print_expr(b, s->ann);
		}
		bputs(b, " = ");
		print_expr(b, s->value);
		break;
	case S_AUGASSIGN:
		expr(b, s->targets[0], P_COND);
		bprintf(b, " %s= ", op_spelling[s->op]);
		print_expr(b, s->value);
		break;
	case S_DECL:
		expr(b, s->targets[0], P_COND);
		bputs(b, ": ");
		print_expr(b, s->ann);
		break;
	case S_PASS:
		bputs(b, "pass");
		break;
	case S_RETURN: case S_RAISE:
		bputs(b, s->kind == S_RETURN ? "return" : "raise");
		if (s->value) {
			bputc(b, ' ');
			print_expr(b, s->value);
		}
		break;
	case S_IMPORT:
		if (s->from) {
			bprintf(b, "from %s import ", s->module);
			for (int i = 0; i < s->naliases; i++) {
				if (i)
					bputs(b, ", ");
				bputs(b, s->aliases[i].name);
				if (s->aliases[i].as)
					bprintf(b, " as %s", s->aliases[i].as);
			}
		} else {
			bprintf(b, "import %s", s->module);
			if (s->name)
				bprintf(b, " as %s", s->name);
		}
		break;
	case S_IF:
		bputs(b, s->elif ? "elif " : "if ");
		print_expr(b, s->value);
		bputs(b, ":\n");
		body(b, s->body, s->nbody, level + 1);
		if (s->norelse == 1 && s->orelse[0]->kind == S_IF && s->orelse[0]->elif) {
			print_stmt(b, s->orelse[0], level); /* elif */
		} else if (s->norelse) {
			indent(b, level);
			bputs(b, "else:\n");
			body(b, s->orelse, s->norelse, level + 1);
		}
		return;
	case S_WHILE:
		bputs(b, "while ");
		print_expr(b, s->value);
		bputs(b, ":\n");
		body(b, s->body, s->nbody, level + 1);
		return;
	case S_FOR:
		bputs(b, "for ");
		print_expr(b, s->targets[0]);
		bputs(b, " in ");
		print_expr(b, s->value);
		bputs(b, ":\n");
		body(b, s->body, s->nbody, level + 1);
		return;
	case S_FUNC:
		for (int i = 0; i < s->ndecorators; i++) {
			bputc(b, '@');
			print_expr(b, s->decorators[i]);
			bputc(b, '\n');
			indent(b, level);
		}
		bprintf(b, "def %s(", s->name);
		for (int i = 0; i < s->nparams; i++) {
			if (i)
				bputs(b, ", ");
			bputs(b, s->params[i].name);
			if (s->params[i].type) {
				bputs(b, ": ");
				expr(b, s->params[i].type, P_COND);
			}
			if (s->params[i].dflt) {
				bputs(b, s->params[i].type ? " = " : "=");
				expr(b, s->params[i].dflt, P_COND);
			}
		}
		bputc(b, ')');
		if (s->ret) {
			bputs(b, " -> ");
			expr(b, s->ret, P_COND);
		}
		bputs(b, ":\n");
		body(b, s->body, s->nbody, level + 1);
		return;
	}
	bputc(b, '\n');
}

void print_module(Buf *b, const Module *m)
{
	bputs(b, "");
	for (int i = 0; i < m->nbody; i++) {
		const Stmt *s = m->body[i];
		if (i > 0) {
			const Stmt *p = m->body[i - 1];
			if (s->kind == S_FUNC || p->kind == S_FUNC)
				bputs(b, "\n\n");
			else if ((s->kind == S_IMPORT) != (p->kind == S_IMPORT))
				bputc(b, '\n');
		}
		print_stmt(b, s, 0);
	}
}

void print_module_locations(Buf *b, const Module *m)
{
	loc.on = true;
	loc.file = NULL;
	loc.next = 1;
	loc.counted = b->n;
	loc.lastfile = NULL;
	loc.lastline = 0;
	print_module(b, m);
	loc.on = false;
	/* no statement to mark: the file still named, so that the next
	 * program's messages (a module without a kernel) name it */
	const char *file = m->file ? m->file : m->src ? m->src->name : NULL;
	if (m->nbody == 0 && file && strcmp(file, "<stdin>") != 0)
		bprintf(b, "#@ %s:1\n", file);
}
