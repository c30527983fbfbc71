/* The state shared by the lexer (lex.l) and the parser (parse.y). */
#ifndef TXC_LEXER_H
#define TXC_LEXER_H

#define MAX_BRACKETS 200
#define MAX_INDENT 100
#define MAX_EXPR_DEPTH 1000

typedef struct Lexer {
	const Src *src;
	Diag *diag;
	void *scanner;
	void *buffer;
	char *text;               /* the text the scanner reads (lexer_open) */
	struct NameTable *names;  /* the names read (name()); NULL in a field */
	/* Where the next match starts: the text, the line as the user numbers
	 * it (logical()), column, byte offset and the file of the last
	 * #@ FILE:LINE comment; its length is 0. */
	Pos at;
	int line;                 /* the physical line of the next match */
	int depth;                /* open brackets */
	Pos open[MAX_BRACKETS];   /* where they opened */
	int indent[MAX_INDENT];   /* widths of the open blocks */
	int nindent;
	/* Tokens given before scanning on: `queued` of queued_token (INDENT,
	 * DEDENTs or an f-string field's FEXPR), at next_pos. */
	int queued, queued_token;
	bool at_eof;
	Pos next_pos;
	int last;                 /* the last token returned */
	bool failed;              /* an error was reported */
	int dir_line, dir_phys;   /* the last #@ FILE:LINE comment: LINE, its line */
	Module *module;           /* the parser's result */
	/* a sub-lexer over one replacement field of an f-string: it starts
	 * inside a bracket and gives the parser FEXPR first */
	bool sub;
	Expr *result;
	/* The positions of the tokens read, which the parser's location stack
	 * points into: from the arena, a chunk at a time (new_pos), written
	 * over after each statement (lexer_free_pos). */
	Pos *pos_chunk;           /* the newest chunk */
	Pos *pos_next, *pos_end;  /* its free part */
} Lexer;

bool lexer_open(Lexer *lx, const Src *src, Diag *d);
void lexer_close(Lexer *lx);
bool lexer_open_field(Lexer *lx, const Lexer *outer, int off, int len, int line, int col);
/* The parser reads no position after `last` (a location, see parse.y)
 * again, nor the next token's: the lexer may write over them. */
void lexer_free_pos(Lexer *lx, const Pos *last);
/* The expression of an f-string's field: the len bytes of the source at
 * byte off, physical line `line`, column col; NULL after an error. */
Expr *parse_field(Lexer *outer, int off, int len, int line, int col);

#endif
