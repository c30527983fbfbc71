/* A small TAP producer for the C unit tests: each check prints one
 * "ok N - name" or "not ok N - name" line; main prints the plan. */
#ifndef TXC_TAP_H
#define TXC_TAP_H

#include <stdio.h>
#include <string.h>

#include "ir.h"

extern int tap_n, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) tap_is_int((long long)(got), (long long)(want), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)

void tap_ok(int cond, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void tap_is_int(long long got, long long want, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void tap_is_str(const char *got, const char *want, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Helpers over the library: parse a string; the diagnostics go to a
 * string that the test can inspect. */
Module *parse_str(const char *text, char **diags);
bool verify_str(const char *text, char **diags);
Module *verified(const char *text, char **diags); /* NULL if it does not verify */
/* The shard of l is exactly the (extent, stride, axis) rows of want. */
bool iters_are(const Layout *l, const int64_t (*want)[3], int n);
char *canon(const char *text); /* print(parse(text)), or NULL */

/* The test groups, one per file. */
void test_lex(void);
void test_print(void);
void test_eval(void);
void test_layout(void);
void test_algebra(void);
void test_arith(void);
void test_sema(void);
void test_util(void);

#endif
