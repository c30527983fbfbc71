/* NumPy .npy files: a magic string, a version, a header that is a Python
 * dict literal ({'descr': '<f2', 'fortran_order': False, 'shape': (4, 8), })
 * padded with spaces to a multiple of 64 bytes, then the raw array. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

static const char magic[6] = { '\x93', 'N', 'U', 'M', 'P', 'Y' };

const char *npy_descr(int dt)
{
	switch (dt) {
	case DT_BOOL: return "|b1";
	case DT_INT8: return "|i1";
	case DT_UINT8: case DT_FP8E4M3: case DT_FP8E5M2: return "|u1";
	case DT_INT16: return "<i2";
	case DT_UINT16: case DT_BFLOAT16: return "<u2";
	case DT_INT32: return "<i4";
	case DT_UINT32: return "<u4";
	case DT_INT64: return "<i8";
	case DT_UINT64: return "<u8";
	case DT_FLOAT16: return "<f2";
	case DT_FLOAT32: return "<f4";
	case DT_FLOAT64: return "<f8";
	default: return NULL;
	}
}

/* ---- the header --------------------------------------------------------------------------- */

typedef struct Header {
	char descr[16];
	int fortran; /* -1: absent */
	int64_t shape[64];
	int ndim;    /* -1: absent */
} Header;

static void skip(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
		(*p)++;
}

static bool pstring(const char **p, char *out, size_t cap)
{
	char q = **p;
	if (q != '\'' && q != '"')
		return false;
	const char *e = strchr(*p + 1, q);
	if (!e || (size_t)(e - *p - 1) >= cap)
		return false;
	memcpy(out, *p + 1, (size_t)(e - *p - 1));
	out[e - *p - 1] = 0;
	*p = e + 1;
	return true;
}

static bool parse_header(const char *s, Header *h)
{
	h->descr[0] = 0;
	h->fortran = -1;
	h->ndim = -1;
	skip(&s);
	if (*s++ != '{')
		return false;
	for (;;) {
		char key[32];
		skip(&s);
		if (*s == '}')
			break;
		if (!pstring(&s, key, sizeof key))
			return false;
		skip(&s);
		if (*s++ != ':')
			return false;
		skip(&s);
		if (strcmp(key, "descr") == 0) {
			if (!pstring(&s, h->descr, sizeof h->descr))
				return false;
		} else if (strcmp(key, "fortran_order") == 0) {
			if (strncmp(s, "True", 4) == 0)
				h->fortran = 1, s += 4;
			else if (strncmp(s, "False", 5) == 0)
				h->fortran = 0, s += 5;
			else
				return false;
		} else if (strcmp(key, "shape") == 0) {
			if (*s++ != '(')
				return false;
			h->ndim = 0;
			for (;;) {
				skip(&s);
				if (*s == ')')
					break;
				char *end;
				errno = 0;
				long long v = strtoll(s, &end, 10);
				if (end == s || errno || v < 0 || h->ndim == 64)
					return false;
				h->shape[h->ndim++] = v;
				s = end;
				if (*s == 'L')
					s++;
				skip(&s);
				if (*s == ',')
					s++;
				else if (*s != ')')
					return false;
			}
			s++;
		} else {
			return false;
		}
		skip(&s);
		if (*s == ',')
			s++;
		else if (*s != '}')
			return false;
	}
	return h->descr[0] && h->fortran >= 0 && h->ndim >= 0;
}

/* "<f4" and "=f4" are the same on a little-endian machine, as are "|u1"
 * and "<u1". */
static bool same_descr(const char *file, const char *want)
{
	if ((file[0] != '<' && file[0] != '|' && file[0] != '=') || strcmp(file + 1, want + 1) != 0)
		return false;
	return want[0] == '|' || file[0] != '|';
}

static const char *descr_name(const char *d)
{
	for (int dt = 1; dt < DT_COUNT; dt++) {
		const char *x = npy_descr(dt);
		if (x && same_descr(d, x) && dt != DT_BFLOAT16 && dt != DT_FP8E4M3 && dt != DT_FP8E5M2)
			return dtypes[dt].name;
	}
	return "an unsupported dtype";
}

/* ---- reading ------------------------------------------------------------------------------- */

bool npy_read(const char *path, int dtype, const int64_t *shape, int ndim, void *data, size_t bytes, char **err)
{
	const char *want = npy_descr(dtype);
	FILE *f = fopen(path, "rb");
	if (!f) {
		*err = xprintf("cannot read '%s': %s", path, strerror(errno));
		return false;
	}
	unsigned char pre[12];
	char *text = NULL;
	bool ok = false;
	size_t hlen;
	Header h;
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, magic, 6) != 0 || pre[6] < 1 || pre[6] > 3) {
		*err = xprintf("'%s' is not a .npy file (format version 1.0 to 3.0)", path);
		goto out;
	}
	hlen = pre[8] | (size_t)pre[9] << 8;
	if (pre[6] > 1) {
		if (fread(pre + 10, 1, 2, f) != 2) {
			*err = xprintf("'%s' is truncated", path);
			goto out;
		}
		hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	}
	if (hlen > (1u << 20)) {
		*err = xprintf("'%s' has a header of %zu bytes; that is not a .npy file", path, hlen);
		goto out;
	}
	text = calloc(hlen + 1, 1);
	if (!text || fread(text, 1, hlen, f) != hlen || !parse_header(text, &h)) {
		*err = xprintf("'%s' has a malformed .npy header", path);
		goto out;
	}
	if (!want || !same_descr(h.descr, want)) {
		*err = xprintf("'%s' holds '%s' data (%s), but the parameter is %s, stored as '%s'", path, h.descr,
		               descr_name(h.descr), dtypes[dtype].name, want ? want : "?");
		goto out;
	}
	bool same = h.ndim == ndim;
	for (int i = 0; same && i < ndim; i++)
		same = h.shape[i] == shape[i];
	if (!same) {
		*err = xprintf("'%s' has shape %s, but the parameter has shape %s", path, shape_tuple(h.shape, h.ndim),
		               shape_tuple(shape, ndim));
		goto out;
	}
	if (h.fortran) {
		int wide = 0;
		for (int i = 0; i < ndim; i++)
			wide += shape[i] > 1;
		if (wide > 1) {
			*err = xprintf("'%s' is in Fortran order; write it in C order", path);
			goto out;
		}
	}
	size_t got = fread(data, 1, bytes, f);
	if (got != bytes) {
		*err = xprintf("'%s' is truncated: %zu bytes of data where its shape needs %zu", path, got, bytes);
		goto out;
	}
	if (fgetc(f) != EOF) {
		*err = xprintf("'%s' has more data than its shape %s needs", path, shape_tuple(shape, ndim));
		goto out;
	}
	ok = true;
out:
	free(text);
	fclose(f);
	return ok;
}

/* ---- writing ------------------------------------------------------------------------------- */

bool npy_write(const char *path, int dtype, const int64_t *shape, int ndim, const void *data, char **err)
{
	const char *descr = npy_descr(dtype);
	if (!descr) {
		*err = xprintf("cannot write %s data to '%s'", dtypes[dtype].name, path);
		return false;
	}
	int64_t n = 1;
	for (int i = 0; i < ndim; i++)
		if (!mul_ok(n, shape[i], &n) || !mul_ok(n, dtype_bytes(dtype), &(int64_t){ 0 })) {
			*err = xprintf("the array for '%s' is too large", path);
			return false;
		}
	Buf h = { 0 };
	bprintf(&h, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape_tuple(shape, ndim));
	int version = h.n + 11 > 65535 ? 2 : 1;
	size_t pre = version == 1 ? 10 : 12;
	while ((pre + h.n + 1) % 64)
		bputc(&h, ' ');
	bputc(&h, '\n');
	unsigned char head[12];
	memcpy(head, magic, 6);
	head[6] = (unsigned char)version;
	head[7] = 0;
	for (size_t k = 0; k < pre - 8; k++)
		head[8 + k] = (unsigned char)(h.n >> (8 * k));

	size_t bytes = (size_t)n * (size_t)dtype_bytes(dtype);
	Output o;
	bool ok = output_open(&o, path) && output_write(&o, head, pre) && output_write(&o, h.s, h.n) &&
	          output_write(&o, data, bytes);
	if (!output_close(&o, ok))
		*err = o.err;
	return ok;
}
