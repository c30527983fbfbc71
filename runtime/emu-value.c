/* Values of every dtype: wrapping integers, the float encodings (float16,
 * bfloat16, float8 e4m3fn / e5m2, float32, float64) with exact decoding and
 * round-to-nearest-even encoding, the operators with their CUDA meaning,
 * and the seeded random fill of parameters. Floats are carried as the bits
 * of their encoding and computed in double: for +, -, * and / the double
 * result rounded once more is the correctly rounded result of the narrower
 * type (53 >= 2p + 2 for p <= 24), so the arithmetic is exact too. */
#include <pthread.h>
#include <math.h>
#include <string.h>

#include "emu-impl.h"

/* ---- dtypes ---------------------------------------------------------------------- */

int64_t emu_wrap(int64_t v, int dt)
{
	const DType *t = &dtypes[dt];
	if (t->kind == DK_BOOL)
		return v != 0;
	if (t->bits >= 64 || (t->kind != DK_INT && t->kind != DK_UINT))
		return v;
	uint64_t mask = ((uint64_t)1 << t->bits) - 1, u = (uint64_t)v & mask;
	if (t->kind == DK_INT && (u >> (t->bits - 1)))
		u |= ~mask;
	return (int64_t)u;
}

/* ---- float encodings ----------------------------------------------------------- */

typedef struct FFmt {
	int ebits, mbits;
	bool fn;  /* e4m3fn: no infinity, S.1111.111 is NaN */
	bool sat; /* overflow gives the largest finite value (fp8 satfinite) */
	uint64_t nan;
} FFmt;

static const FFmt *ffmt(int dt)
{
	static const FFmt e4m3 = { 4, 3, true, true, 0x7F }, e5m2 = { 5, 2, false, true, 0x7F },
	                  f16 = { 5, 10, false, false, 0x7FFF }, bf16 = { 8, 7, false, false, 0x7FFF },
	                  f32 = { 8, 23, false, false, 0x7FFFFFFF },
	                  f64 = { 11, 52, false, false, 0x7FFFFFFFFFFFFFFF };
	switch (dt) {
	case DT_FP8E4M3: return &e4m3;
	case DT_FP8E5M2: return &e5m2;
	case DT_FLOAT16: return &f16;
	case DT_BFLOAT16: return &bf16;
	case DT_FLOAT32: return &f32;
	default: return &f64;
	}
}

double emu_fdecode(uint64_t bits, int dt)
{
	const FFmt *f = ffmt(dt);
	if (dt == DT_FLOAT64) {
		double d;
		memcpy(&d, &bits, sizeof d);
		return d;
	}
	int E = f->ebits, M = f->mbits, bias = (1 << (E - 1)) - 1;
	uint64_t emask = ((uint64_t)1 << E) - 1, mmask = ((uint64_t)1 << M) - 1;
	bool neg = (bits >> (E + M)) & 1;
	uint64_t e = (bits >> M) & emask, m = bits & mmask;
	double v;
	if (e == emask && !f->fn)
		v = m ? NAN : INFINITY;
	else if (e == emask && f->fn && m == mmask)
		v = NAN;
	else if (e == 0)
		v = ldexp((double)m, 1 - bias - M);
	else
		v = ldexp((double)(m | ((uint64_t)1 << M)), (int)e - bias - M);
	return neg ? -v : v;
}

/* mant * 2^exp, rounded to nearest even into f. */
static uint64_t fround(const FFmt *f, bool neg, uint64_t mant, int exp)
{
	int E = f->ebits, M = f->mbits, bias = (1 << (E - 1)) - 1, emin = 1 - bias;
	uint64_t sbit = (uint64_t)neg << (E + M), mmask = ((uint64_t)1 << M) - 1;
	uint64_t maxfield = f->fn ? ((uint64_t)1 << E) - 1 : ((uint64_t)1 << E) - 2;
	uint64_t maxfinite = f->fn ? (maxfield << M) | (mmask - 1) : (maxfield << M) | mmask;
	if (mant == 0)
		return sbit;
	int n = 64 - __builtin_clzll(mant);
	int e = exp + n - 1;                   /* mant * 2^exp is in [2^e, 2^(e+1)) */
	int q = (e < emin ? emin : e) - M;     /* the weight of the last kept bit */
	int shift = q - exp;
	uint64_t r;
	if (shift <= 0) {
		r = mant << -shift;
	} else if (shift > 64) {
		r = 0;
	} else if (shift == 64) {
		r = mant > ((uint64_t)1 << 63);
	} else {
		uint64_t rem = mant & (((uint64_t)1 << shift) - 1), half = (uint64_t)1 << (shift - 1);
		r = mant >> shift;
		if (rem > half || (rem == half && (r & 1)))
			r++;
	}
	if (r >> (M + 1)) { /* rounding carried into a new bit */
		r >>= 1;
		q++;
	}
	if (r == 0)
		return sbit;
	uint64_t field = (r >> M) ? (uint64_t)(q + M + bias) : 0;
	uint64_t bits = (field << M) | (r & mmask);
	if (field > maxfield || bits > maxfinite)
		return sbit | (f->sat ? maxfinite : (maxfield + 1) << M);
	return sbit | bits;
}

uint64_t emu_fencode(double x, int dt)
{
	const FFmt *f = ffmt(dt);
	if (isnan(x))
		return f->nan;
	uint64_t b;
	memcpy(&b, &x, sizeof b);
	if (dt == DT_FLOAT64)
		return b;
	bool neg = b >> 63;
	int E = f->ebits, M = f->mbits;
	if (isinf(x)) {
		uint64_t mmask = ((uint64_t)1 << M) - 1;
		uint64_t maxfield = f->fn ? ((uint64_t)1 << E) - 1 : ((uint64_t)1 << E) - 2;
		uint64_t v = f->sat ? (f->fn ? (maxfield << M) | (mmask - 1) : (maxfield << M) | mmask)
		                    : (maxfield + 1) << M;
		return ((uint64_t)neg << (E + M)) | v;
	}
	uint64_t field = (b >> 52) & 0x7FF, frac = b & (((uint64_t)1 << 52) - 1);
	if (field)
		frac |= (uint64_t)1 << 52;
	return fround(f, neg, frac, (field ? (int)field : 1) - 1075);
}

static uint64_t fencode_int(int64_t v, bool is_unsigned, int dt)
{
	if (dt == DT_FLOAT64 || dt == DT_FLOAT32) {
		/* C's conversions round once, to nearest even */
		if (dt == DT_FLOAT32) {
			float x = is_unsigned ? (float)(uint64_t)v : (float)v;
			uint32_t u;
			memcpy(&u, &x, sizeof u);
			return u;
		}
		double x = is_unsigned ? (double)(uint64_t)v : (double)v;
		return emu_fencode(x, DT_FLOAT64);
	}
	bool neg = !is_unsigned && v < 0;
	uint64_t mag = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	return fround(ffmt(dt), neg, mag, 0);
}

/* Truncation toward zero, saturating to dt's range; NaN gives 0. */
static int64_t ftoi(double x, int dt)
{
	const DType *t = &dtypes[dt];
	if (t->kind == DK_BOOL)
		return x != 0;
	if (isnan(x))
		return 0;
	if (t->kind == DK_UINT) {
		if (x < 1)
			return 0;
		if (x >= ldexp(1, t->bits))
			return t->bits == 64 ? -1 : (int64_t)(((uint64_t)1 << t->bits) - 1);
		return (int64_t)(uint64_t)x;
	}
	double lim = ldexp(1, t->bits - 1);
	if (x <= -lim)
		return t->bits == 64 ? INT64_MIN : -(int64_t)lim;
	if (x >= lim)
		return t->bits == 64 ? INT64_MAX : (int64_t)lim - 1;
	return (int64_t)x;
}

EVal emu_conv(EVal v, int from, int to)
{
	if (from == to)
		return v;
	int fk = dtypes[from].kind, tk = dtypes[to].kind;
	if (fk == DK_HANDLE || tk == DK_HANDLE)
		return v;
	EVal r = { 0, NULL };
	if (tk == DK_FLOAT) {
		if (fk == DK_FLOAT) {
			r.i = (int64_t)emu_fencode(emu_fdecode((uint64_t)v.i, from), to);
		} else {
			r.i = (int64_t)fencode_int(v.i, dt_unsigned64(from), to);
		}
		return r;
	}
	if (fk == DK_FLOAT)
		r.i = ftoi(emu_fdecode((uint64_t)v.i, from), to);
	else
		r.i = emu_wrap(v.i, to);
	return r;
}

/* ---- operators -------------------------------------------------------------------- */

static EVal ival(int64_t i)
{
	EVal v = { i, NULL };
	return v;
}

static EVal fval(double x, int dt) { return ival((int64_t)emu_fencode(x, dt)); }

const char *emu_binop(int op, int dt, EVal a, EVal b, EVal *r)
{
	if (dt_float(dt)) {
		double x = emu_fdecode((uint64_t)a.i, dt), y = emu_fdecode((uint64_t)b.i, dt);
		switch (op) {
		case OP_ADD: *r = fval(x + y, dt); return NULL;
		case OP_SUB: *r = fval(x - y, dt); return NULL;
		case OP_MUL: *r = fval(x * y, dt); return NULL;
		case OP_DIV: *r = fval(x / y, dt); return NULL;
		default: return "this operator is not defined on floats";
		}
	}
	int bits = dtypes[dt].bits;
	bool uns = dtypes[dt].kind == DK_UINT;
	uint64_t ua = (uint64_t)a.i, ub = (uint64_t)b.i;
	int64_t x = a.i, y = b.i, v = 0;
	switch (op) {
	case OP_ADD: v = (int64_t)(ua + ub); break;
	case OP_SUB: v = (int64_t)(ua - ub); break;
	case OP_MUL: v = (int64_t)(ua * ub); break;
	case OP_FLOORDIV: case OP_MOD:
		if (y == 0)
			return "integer division by zero";
		if (uns) {
			v = (int64_t)(op == OP_MOD ? ua % ub : ua / ub);
		} else if (x == INT64_MIN && y == -1) {
			v = op == OP_MOD ? 0 : INT64_MIN;
		} else {
			int64_t q = x / y, m = x % y;
			if (m != 0 && ((m < 0) != (y < 0))) {
				q--;
				m += y;
			}
			v = op == OP_MOD ? m : q;
		}
		break;
	case OP_POW: {
		if (!uns && y < 0)
			return "negative exponent";
		uint64_t acc = 1, base = ua;
		for (uint64_t e = ub; e; e >>= 1) {
			if (e & 1)
				acc *= base;
			base *= base;
		}
		v = (int64_t)acc;
		break;
	}
	case OP_SHL:
		if (!uns && y < 0)
			return "negative shift count";
		v = ub >= (uint64_t)bits ? 0 : (int64_t)(ua << ub);
		break;
	case OP_SHR:
		if (!uns && y < 0)
			return "negative shift count";
		if (uns)
			v = ub >= (uint64_t)bits ? 0 : (int64_t)(ua >> ub);
		else if (ub >= (uint64_t)bits)
			v = x < 0 ? -1 : 0;
		else
			v = x >= 0 ? x >> ub : ~(~x >> ub);
		break;
	case OP_BITAND: v = x & y; break;
	case OP_BITOR: v = x | y; break;
	case OP_BITXOR: v = x ^ y; break;
	default: return "this operator is not defined on integers";
	}
	*r = ival(emu_wrap(v, dt));
	return NULL;
}

EVal emu_unop(int op, int dt, EVal a)
{
	if (op == OP_POS)
		return a;
	if (dt_float(dt)) /* negation flips the sign bit, NaN included */
		return ival((int64_t)((uint64_t)a.i ^ ((uint64_t)1 << (dtypes[dt].bits - 1))));
	if (op == OP_NEG)
		return ival(emu_wrap((int64_t)((uint64_t)0 - (uint64_t)a.i), dt));
	return ival(emu_wrap(~a.i, dt));
}

bool emu_cmp(int op, int dt, EVal a, EVal b)
{
	int c;
	if (dt_float(dt)) {
		double x = emu_fdecode((uint64_t)a.i, dt), y = emu_fdecode((uint64_t)b.i, dt);
		switch (op) {
		case OP_LT: return x < y;
		case OP_LE: return x <= y;
		case OP_GT: return x > y;
		case OP_GE: return x >= y;
		case OP_EQ: return x == y;
		default: return x != y;
		}
	}
	if (dtypes[dt].kind == DK_HANDLE && a.mem != b.mem)
		c = a.mem < b.mem ? -1 : 1;
	else if (dt_unsigned64(dt))
		c = (uint64_t)a.i < (uint64_t)b.i ? -1 : (uint64_t)a.i > (uint64_t)b.i;
	else
		c = a.i < b.i ? -1 : a.i > b.i;
	switch (op) {
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	case OP_GE: return c >= 0;
	case OP_EQ: return c == 0;
	default: return c != 0;
	}
}

/* fminf/fmaxf: a NaN loses to a number, -0 is below +0. */
EVal emu_minmax(bool max, int dt, EVal a, EVal b)
{
	if (!dt_float(dt)) {
		bool less = emu_cmp(OP_LT, dt, a, b);
		return less != max ? a : b;
	}
	double x = emu_fdecode((uint64_t)a.i, dt), y = emu_fdecode((uint64_t)b.i, dt);
	if (isnan(x))
		return isnan(y) ? ival((int64_t)ffmt(dt)->nan) : b;
	if (isnan(y))
		return a;
	if (x == y && x == 0)
		return (signbit(x) != 0) != max ? a : b;
	return (x < y) != max ? a : b;
}

/* ---- memory ------------------------------------------------------------------------ */

EVal emu_load(const uint8_t *p, int dt)
{
	int n = dtype_bytes(dt);
	uint64_t u = 0;
	for (int k = 0; k < n; k++)
		u |= (uint64_t)p[k] << (8 * k);
	return ival(dt_float(dt) ? (int64_t)u : emu_wrap((int64_t)u, dt));
}

void emu_store(uint8_t *p, int dt, EVal v)
{
	int n = dtype_bytes(dt);
	uint64_t u = (uint64_t)v.i;
	for (int k = 0; k < n; k++)
		p[k] = (uint8_t)(u >> (8 * k));
}

/* ---- parameters -------------------------------------------------------------------- */

uint64_t emu_fnv1a(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	return h;
}

int64_t emu_param_bytes(const Buffer *b)
{
	int64_t n;
	return mul_ok(buffer_storage(b), dtype_bytes(b->dtype), &n) ? n : -1;
}

int emu_param_shape(const Buffer *b, int64_t *shape)
{
	bool rowmajor = !b->layout;
	if (b->layout && !b->layout->swizzled) {
		Layout *d = layout_new();
		layout_default(d, b->shape, b->ndim);
		rowmajor = strcmp(layout_str(layout_canonical(b->layout)), layout_str(layout_canonical(d))) == 0;
	}
	if (rowmajor) {
		memcpy(shape, b->shape, sizeof(int64_t) * (size_t)b->ndim);
		return b->ndim;
	}
	shape[0] = buffer_storage(b);
	return 1;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

static uint64_t draw(uint64_t *s, int dt)
{
	const DType *t = &dtypes[dt];
	uint64_t r = splitmix(s);
	if (t->kind == DK_BOOL)
		return 1;
	if (t->kind != DK_FLOAT) {
		uint64_t mask = t->bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << t->bits) - 1;
		while ((r & mask) == 0)
			r = splitmix(s);
		return r & mask;
	}
	if (t->bits == 8) { /* all normal fp8 values */
		for (;; r = splitmix(s)) {
			uint64_t v = r & 0xFF, e = dt == DT_FP8E4M3 ? (v >> 3) & 15 : (v >> 2) & 31;
			bool special = dt == DT_FP8E4M3 ? (v & 0x7F) == 0x7F : e == 31;
			if (e != 0 && !special)
				return v;
		}
	}
	const FFmt *f = ffmt(dt);
	int bias = (1 << (f->ebits - 1)) - 1;
	uint64_t sign = r & 1, e = (uint64_t)(bias - 8 + (int)((r >> 1) & 15));
	uint64_t m = (r >> 12) & (((uint64_t)1 << f->mbits) - 1);
	return (sign << (f->ebits + f->mbits)) | (e << f->mbits) | m;
}

/* Elements [from, to) of a fill whose generator stood at state s before
 * element `from`. */
typedef struct Fill {
	const Buffer *b;
	uint8_t *p;
	uint64_t s;
	int64_t from, to;
} Fill;

static void *fill_part(void *arg)
{
	Fill *f = arg;
	int es = dtype_bytes(f->b->dtype);
	for (int64_t i = f->from; i < f->to; i++) {
		EVal v = ival((int64_t)draw(&f->s, f->b->dtype));
		emu_store(f->p + i * es, f->b->dtype, v);
	}
	return NULL;
}

/* The generator is splitmix64, whose state after k draws is the seed's
 * plus k times its constant; a float of 16 or more bits takes exactly one
 * draw, so a large buffer of them is filled in parts on several threads,
 * each part starting where the sequence stands, bit for bit the data of
 * one thread (txc-run fills 4 GiB tensors this way). Integers and fp8,
 * whose draws may be rejected and retried, are filled in one part. */
void emu_fill_random(const Buffer *b, void *data, uint64_t seed)
{
	uint64_t s = seed * 0x9E3779B97F4A7C15u ^ emu_fnv1a(b->name, strlen(b->name));
	int64_t n = buffer_storage(b);
	const DType *t = &dtypes[b->dtype];
	enum { PARTS = 16, MIN_PART = (int64_t)1 << 22 };
	int parts = t->kind == DK_FLOAT && t->bits >= 16 && n >= 2 * MIN_PART ? PARTS : 1;
	if (parts > 1 && n / parts < MIN_PART)
		parts = (int)(n / MIN_PART);
	Fill f[PARTS];
	pthread_t th[PARTS];
	bool started[PARTS] = { false };
	for (int k = 0; k < parts; k++) {
		int64_t from = n / parts * k, to = k == parts - 1 ? n : n / parts * (k + 1);
		f[k] = (Fill){ b, data, s + (uint64_t)from * 0x9E3779B97F4A7C15u, from, to };
		started[k] = parts > 1 && pthread_create(&th[k], NULL, fill_part, &f[k]) == 0;
	}
	for (int k = 0; k < parts; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		else
			fill_part(&f[k]);
	}
}
