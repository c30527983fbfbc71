/* The lexer, seen through what the parser makes of its tokens. */
#include "tap.h"

static void parses(const char *text, const char *name)
{
	char *d;
	ok(parse_str(text, &d) != NULL, "parses: %s", name);
}

static void fails(const char *text, const char *want, const char *name)
{
	char *d;
	Module *m = parse_str(text, &d);
	ok(!m && strstr(d, want), "rejects %s with \"%s\"", name, want);
	if (m || !strstr(d, want))
		printf("#   got: %s\n", d);
}

void test_lex(void)
{
	Module *m = parse_str("", NULL);
	ok(m && m->nbody == 0, "empty text: no statements");
	m = parse_str("# only a comment\n\n   \n", NULL);
	ok(m && m->nbody == 0, "comments and blank lines: no statements");
	m = parse_str("x = 1", NULL);
	ok(m && m->nbody == 1, "last line without a newline");
	m = parse_str("x = 1\r\ny = 2\r\n", NULL);
	ok(m && m->nbody == 2, "CRLF line ends");
	m = parse_str("x = (1,\n  2,\n\n 3)\ny = 4\n", NULL);
	ok(m && m->nbody == 2, "newlines inside brackets join lines");
	m = parse_str("x = 1 + \\\n  2\n", NULL);
	ok(m && m->nbody == 1, "backslash joins lines");
	m = parse_str("a = 1; b = 2;\n", NULL);
	ok(m && m->nbody == 2, "';' separates statements");
	m = parse_str("if a:\n    if b:\n        pass\n  # odd comment\nc = 1\n", NULL);
	ok(m && m->nbody == 2, "a comment line does not change indentation");
	m = parse_str("x = 0x1F + 0b101 + 1_000\n", NULL);
	ok(m && m->body[0]->value->a->a->ival == 31, "hex literal 0x1F is 31");
	ok(m && m->body[0]->value->a->b->ival == 5, "binary literal 0b101 is 5");
	ok(m && m->body[0]->value->b->ival == 1000, "1_000 is 1000");
	m = parse_str("x = 9223372036854775807\n", NULL);
	ok(m && m->body[0]->value->ival == INT64_MAX, "the largest int64 literal");
	fails("x = 9223372036854775808\n", "does not fit in 64 bits", "2^63");
	m = parse_str("x = 'a\\tb\\x41\\\\'\n", NULL);
	is_str(m ? m->body[0]->value->str : NULL, "a\tbA\\", "escapes \\t, \\x41 and \\\\");
	m = parse_str("x = \"ab\" 'cd'\n", NULL);
	is_str(m ? m->body[0]->value->str : NULL, "abcd", "adjacent strings concatenate");
	m = parse_str("x = \"\"\"a\n\"b\"\n\"\"\"\n", NULL);
	is_str(m ? m->body[0]->value->str : NULL, "a\n\"b\"\n", "triple-quoted string with quotes and newlines");
	parses("def f(a,\n      b):\n    pass\n", "parameters over two lines");
	parses("@T.prim_func\ndef f():\n    pass\n", "decorated function");
	parses("for i in range(4): x = i\n", "one-line for");

	fails("x = 1\n\tpass\n", "tab in indentation", "a tab");
	fails("if a:\n    x = 1\n  y = 2\n", "unindent does not match", "a dedent to no level");
	fails("  x = 1\n", "unexpected indent", "an indented first line");
	fails("x = \"abc\n", "unterminated string literal", "an open string");
	fails("x = 1 ? 2\n", "unexpected character '?'", "a '?'");
	fails("x = 1.2.3\n", "invalid number literal", "1.2.3");
	fails("x = 007\n", "leading zeros", "007");
	fails("x = 'a\\qb'\n", "unknown escape sequence", "\\q");
	fails("break\n", "'break' is not supported", "break");
	fails("x = (1,\n", "'(' was never closed", "an open bracket at the end");
	fails("x = caf\xc3\xa9\n", "non-ASCII character", "a non-ASCII name");
	fails("x = 1\n\x01\n", "stray byte 0x01", "a control byte");
	fails("x = '\xff'\n", "invalid UTF-8 byte 0xFF", "broken UTF-8");
	fails("x = a < b < c\n", "chained comparison", "a chained comparison");
	fails("x = y = 1\n", "chained assignment", "a chained assignment");
	fails("f(a=1, 2)\n", "positional argument follows keyword argument", "positional after keyword");
	fails("f(a=1, a=2)\n", "keyword argument 'a' repeated", "a repeated keyword");

	/* positions: line and column of the token in error */
	char *d;
	parse_str("x = 1\ny = (2 +\n     )\n", &d);
	ok(strstr(d, "t.tx:3:6: error:") != NULL, "an error inside brackets is at its own line and column");
	parse_str("if a:\n    b = 1\n        c = 2\n", &d);
	ok(strstr(d, "t.tx:3:9: error: syntax error, unexpected indent") != NULL, "an indent error points at the token");
	ok(strstr(d, "            c = 2\n            ^\n") != NULL, "the caret sits under the token");
}
