/* util.c: checked arithmetic, strings, whole-file output. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

void test_util(void)
{
	int64_t r;
	ok(mul_ok(1 << 20, 1 << 20, &r) && r == (int64_t)1 << 40, "mul_ok: 2^20 * 2^20");
	ok(!mul_ok(INT64_MAX / 2 + 1, 2, &r), "mul_ok: overflow is refused");
	ok(!add_ok(INT64_MAX, 1, &r), "add_ok: overflow is refused");
	is_str(xprintf("%s-%d", "a", 7), "a-7", "xprintf");
	Buf b = {0};
	for (int i = 0; i < 1000; i++)
		bputc(&b, 'a' + i % 26);
	ok(b.n == 1000 && b.s[999] == 'a' + 999 % 26 && b.s[1000] == 0, "Buf grows and stays terminated");

	/* PtrMap: keys by address (two equal texts are two keys), through growth */
	PtrMap pm = {0};
	int keys[1000];
	char twin1[] = "k", twin2[] = "k";
	ok(ptrmap_get(&pm, keys) == NULL, "PtrMap: empty, absent");
	for (int i = 0; i < 1000; i++)
		ptrmap_put(&pm, &keys[i], &keys[999 - i]);
	int missed = 0;
	for (int i = 0; i < 1000; i++)
		missed += ptrmap_get(&pm, &keys[i]) != &keys[999 - i];
	is_int(missed, 0, "PtrMap: 1000 keys found after growing");
	ptrmap_put(&pm, &keys[5], NULL);
	ptrmap_put(&pm, twin1, twin1);
	ptrmap_put(&pm, twin2, twin2);
	ok(pm.n == 1002 && ptrmap_get(&pm, &keys[5]) == NULL && ptrmap_get(&pm, twin1) == twin1 &&
	   ptrmap_get(&pm, twin2) == twin2, "PtrMap: a put replaces; equal texts at two addresses are two keys");

	char dir[] = "/tmp/txc-unit.XXXXXX";
	ok(mkdtemp(dir) != NULL, "a scratch directory");
	char *path = xprintf("%s/out.tx", dir);
	ok(write_file("t", path, "abc\n", 4), "write_file writes");
	Src s;
	ok(read_file("t", path, &s) && s.len == 4 && strcmp(s.text, "abc\n") == 0, "read_file reads it back");
	char *bad = xprintf("%s/missing/out.tx", dir);
	FILE *saved = stderr;
	stderr = fopen("/dev/null", "w");
	ok(!write_file("t", bad, "x", 1), "write_file into a missing directory fails");
	ok(!read_file("t", bad, &s), "read_file of a missing file fails");
	fclose(stderr);
	stderr = saved;
	struct stat st;
	ok(stat(bad, &st) != 0, "and leaves no file behind");
	remove(path);
	rmdir(dir);
}
