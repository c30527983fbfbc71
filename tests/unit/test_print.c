/* The canonical printer: spacing, precedence, literals, fixed point. */
#include "tap.h"

static void canonical(const char *in, const char *want)
{
	char *got = canon(in);
	is_str(got, want, "print: %.*s", (int)strcspn(in, "\n"), in);
	char *again = got ? canon(got) : NULL;
	is_str(again, got, "fixed point: %.*s", (int)strcspn(in, "\n"), in);
}

void test_print(void)
{
	canonical("x=(a+b)*c\n", "x = (a + b) * c\n");
	canonical("x=a+(b+c)\n", "x = a + (b + c)\n");
	canonical("x=(a-b)-c\n", "x = a - b - c\n");
	canonical("x=a-(b-c)\n", "x = a - (b - c)\n");
	canonical("x=a//(b*c)%d\n", "x = a // (b * c) % d\n");
	canonical("x=-a**2\n", "x = -a ** 2\n");
	canonical("x=(-a)**2\n", "x = (-a) ** 2\n");
	canonical("x=a**-b\n", "x = a ** -b\n");
	canonical("x=(a**b)**c\n", "x = (a ** b) ** c\n");
	canonical("x=a**b**c\n", "x = a ** b ** c\n");
	canonical("x=not(a and b)\n", "x = not (a and b)\n");
	canonical("x=(a or b)and c\n", "x = (a or b) and c\n");
	canonical("x=(a<b)==c\n", "x = (a < b) == c\n");
	canonical("x=a&b|c^d\n", "x = a & b | c ^ d\n");
	canonical("x=a<<(b+1)\n", "x = a << b + 1\n");
	canonical("x=(1 if a else 2)+3\n", "x = (1 if a else 2) + 3\n");
	canonical("x=1 if a else 2 if b else 3\n", "x = 1 if a else 2 if b else 3\n");
	canonical("x=(1,)\ny=1,\nz=()\nw=[]\n", "x = (1,)\ny = 1,\nz = ()\nw = []\n");
	canonical("a,b=(1,2),'s'\n", "a, b = (1, 2), \"s\"\n");
	canonical("a,=x\nb,c,=y\n", "a, = x\nb, c = y\n"); /* unpacking one name: not (a,) = x */
	canonical("f(a,b=(1,2))\n", "f(a, b=(1, 2))\n");
	canonical("l=S[(1,2):(3@laneid,4)]\n", "l = S[(1, 2) : (3 @ laneid, 4)]\n");
	canonical("l=S[8:4@laneid]+1@laneid\n", "l = S[8 : 4 @ laneid] + 1 @ laneid\n");
	canonical("y=A[0:8,:,::2,i]\n", "y = A[0:8, :, ::2, i]\n");
	canonical("y=A[i*2:i*2+2]\n", "y = A[i * 2 : i * 2 + 2]\n");
	canonical("y=A[:n+1]\n", "y = A[: n + 1]\n");
	canonical("s='it\"s'\n", "s = \"it\\\"s\"\n");
	canonical("s='\\x01\\n'\n", "s = \"\\x01\\n\"\n");
	canonical("n=0x1F\n", "n = 31\n");
	canonical("f=1.,.5,2.5e-7,1e16,1e15,100.0,0.1\n", "f = 1.0, 0.5, 2.5e-07, 1e+16, 1000000000000000.0, 100.0, 0.1\n");
	canonical("z=(1).real\n", "z = (1).real\n");
	canonical("x=a.b(c)[d].e\n", "x = a.b(c)[d].e\n");
	canonical("x += 1\n", "x += 1\n");
	canonical("if a:\n  pass\nelif b:\n  pass\nelse:\n  if c: pass\n",
	          "if a:\n    pass\nelif b:\n    pass\nelse:\n    if c:\n        pass\n");
	canonical("from tvm.script import tirx as T, tir\nimport tvm\nX=1\n@T.prim_func\ndef f(a:T.handle,b)->None:\n for i in range(3): pass\nY=2\n",
	          "from tvm.script import tirx as T, tir\nimport tvm\n\nX = 1\n\n\n@T.prim_func\ndef f(a: T.handle, b) -> None:\n"
	          "    for i in range(3):\n        pass\n\n\nY = 2\n");
	canonical("# comment\nx = 1  # trailing\n", "x = 1\n");
}
