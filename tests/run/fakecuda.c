/* fakecuda.c: a stand-in for libcuda.so.1 that runs on the CPU, so that
 * tests/run.t checks the host side of txc-run (initial data, launch
 * configuration, comparison, .npy files, the timing line, errors) on a
 * machine without a GPU. Built by the test as $TMP/fake/libcuda.so.1 and
 * found through LD_LIBRARY_PATH.
 *
 * Its "cubin" is a text file: the line "\177ELF fake", then one line
 * "NAME MODE" per kernel. MODE says what a launch does with parameters 0
 * and 1: copy (all of 0 into 1), half (the first half of the bytes), none
 * (nothing), fault (nothing, and the next synchronization fails as an
 * illegal address would), or params:KINDS (nothing, but the launch logs its
 * parameters, one line each, read as KINDS says: b a device pointer, s a
 * 32-bit scalar, t a 128-byte tensor map). Launches and attributes are
 * logged, one line each, to $FAKECUDA_LOG; FAKECUDA_NODEVICE=1 makes cuInit
 * fail as it does on a machine without a GPU.
 *
 * cuTensorMapEncodeTiled logs every argument it gets, one "encode" line a
 * call, and writes into the map its call number and the global address,
 * which a params: launch logs back; it refuses a map address that is not
 * 64-byte aligned, and FAKECUDA_ENCODE_FAIL=N makes its N-th call (from 1)
 * fail with CUDA_ERROR_INVALID_VALUE. cuTensorMapEncodeIm2col and
 * cuTensorMapEncodeIm2colWide do the same with their own arguments (one
 * "encode" line each, the "im2col" or "im2col_wide" fields after the
 * strides), counting calls with cuTensorMapEncodeTiled. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum { OK = 0, INVALID_VALUE = 1, NO_DEVICE = 100, INVALID_IMAGE = 200, NOT_FOUND = 500,
       ILLEGAL_ADDRESS = 700 };

static const struct { int code; const char *name, *text; } errors[] = {
	{ OK, "CUDA_SUCCESS", "no error" },
	{ INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
	{ INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
	{ NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered" },
};

typedef struct Kernel { char name[64], mode[16]; } Kernel;
typedef struct Mod { Kernel k[16]; int n; } Mod;
typedef struct Alloc { void *p; size_t n; } Alloc;

static Alloc allocs[64];
static CUresult sticky; /* an error that every later call returns */

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void logf_(const char *fmt, ...)
{
	const char *path = getenv("FAKECUDA_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (!f)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static size_t alloc_size(CUdeviceptr d)
{
	for (int i = 0; i < 64; i++)
		if (allocs[i].p && (uintptr_t)allocs[i].p == d)
			return allocs[i].n;
	return 0;
}

CUresult cuGetErrorName(CUresult r, const char **s)
{
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].code == r)
			return *s = errors[i].name, OK;
	return INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult r, const char **s)
{
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].code == r)
			return *s = errors[i].text, OK;
	return INVALID_VALUE;
}

CUresult cuInit(unsigned flags) { return flags ? INVALID_VALUE : getenv("FAKECUDA_NODEVICE") ? NO_DEVICE : OK; }
CUresult cuDeviceGetCount(int *n) { return *n = 1, OK; }
CUresult cuDeviceGet(int *d, int i) { return *d = i, i == 0 ? OK : INVALID_VALUE; }
CUresult cuCtxCreate_v2(void **ctx, unsigned flags, int dev) { (void)flags, (void)dev; return *ctx = allocs, OK; }
CUresult cuCtxSynchronize(void) { return sticky; }

CUresult cuCtxDestroy_v2(void *ctx)
{
	(void)ctx;
	for (int i = 0; i < 64; i++) {
		free(allocs[i].p);
		allocs[i].p = NULL;
	}
	return OK;
}

CUresult cuModuleLoadData(void **mod, const void *image)
{
	static const char magic[] = "\177ELF fake\n";
	const char *s = image;
	if (strncmp(s, magic, sizeof magic - 1) != 0)
		return INVALID_IMAGE;
	Mod *m = calloc(1, sizeof *m);
	if (!m)
		return INVALID_VALUE;
	s += sizeof magic - 1;
	while (m->n < 16 && sscanf(s, "%63s %15s", m->k[m->n].name, m->k[m->n].mode) == 2) {
		m->n++;
		s = strchr(s, '\n');
		if (!s)
			break;
		s++;
	}
	*mod = m;
	return OK;
}

CUresult cuModuleUnload(void *mod) { free(mod); return OK; }

CUresult cuModuleGetFunction(void **fn, void *mod, const char *name)
{
	Mod *m = mod;
	for (int i = 0; i < m->n; i++)
		if (strcmp(m->k[i].name, name) == 0)
			return *fn = &m->k[i], OK;
	return NOT_FOUND;
}

CUresult cuFuncSetAttribute(void *fn, int attr, int value)
{
	logf_("attr %s %d %d", ((Kernel *)fn)->name, attr, value);
	return OK;
}

/* The cluster shape compiled into every kernel: FAKECUDA_CLUSTER=X,Y,Z
 * (none: 0, 0, 0, a kernel without __cluster_dims__). */
CUresult cuFuncGetAttribute(int *v, int attr, void *fn)
{
	(void)fn;
	int d[3] = { 0, 0, 0 };
	const char *c = getenv("FAKECUDA_CLUSTER");
	if (c && sscanf(c, "%d,%d,%d", &d[0], &d[1], &d[2]) != 3)
		return INVALID_VALUE;
	if (attr < 11 || attr > 13)
		return INVALID_VALUE;
	*v = d[attr - 11];
	return OK;
}

CUresult cuMemAlloc_v2(CUdeviceptr *d, size_t n)
{
	for (int i = 0; i < 64; i++)
		if (!allocs[i].p) {
			if (!(allocs[i].p = malloc(n ? n : 1)))
				return INVALID_VALUE;
			allocs[i].n = n;
			*d = (uintptr_t)allocs[i].p;
			return OK;
		}
	return INVALID_VALUE;
}

CUresult cuMemFree_v2(CUdeviceptr d)
{
	for (int i = 0; i < 64; i++)
		if (allocs[i].p && (uintptr_t)allocs[i].p == d) {
			free(allocs[i].p);
			allocs[i].p = NULL;
			return OK;
		}
	return INVALID_VALUE;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n)
{
	if (sticky || alloc_size(d) < n)
		return sticky ? sticky : INVALID_VALUE;
	memcpy((void *)(uintptr_t)d, h, n);
	return OK;
}

CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n)
{
	if (sticky || alloc_size(d) < n)
		return sticky ? sticky : INVALID_VALUE;
	memcpy(h, (void *)(uintptr_t)d, n);
	return OK;
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n)
{
	if (sticky || alloc_size(d) < n || alloc_size(s) < n)
		return sticky ? sticky : INVALID_VALUE;
	logf_("memcpyDtoD %zu", n);
	memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
	return OK;
}

CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n)
{
	if (sticky || alloc_size(d) < n)
		return sticky ? sticky : INVALID_VALUE;
	memset((void *)(uintptr_t)d, v, n);
	return OK;
}

CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, void *stream, void **params, void **extra)
{
	Kernel *k = fn;
	(void)stream, (void)extra;
	if (sticky)
		return sticky;
	logf_("launch %s grid %u %u %u block %u %u %u smem %u", k->name, gx, gy, gz, bx, by, bz, smem);
	if (strcmp(k->mode, "fault") == 0) {
		sticky = ILLEGAL_ADDRESS;
		return OK;
	}
	if (strcmp(k->mode, "none") == 0)
		return OK;
	if (strncmp(k->mode, "params:", 7) == 0) {
		for (int i = 0; k->mode[7 + i]; i++) {
			const char *p = params[i];
			CUdeviceptr d;
			uint64_t map[16];
			int32_t v;
			switch (k->mode[7 + i]) {
			case 'b': memcpy(&d, p, sizeof d); logf_("param %d b 0x%llx", i, d); break;
			case 's': memcpy(&v, p, sizeof v); logf_("param %d s %d", i, (int)v); break;
			case 't':
				memcpy(map, p, sizeof map);
				logf_("param %d t map %llu addr 0x%llx", i, (unsigned long long)map[0], (unsigned long long)map[1]);
				break;
			default: return INVALID_VALUE;
			}
		}
		return OK;
	}
	CUdeviceptr src = *(CUdeviceptr *)params[0], dst = *(CUdeviceptr *)params[1];
	size_t n = alloc_size(src) < alloc_size(dst) ? alloc_size(src) : alloc_size(dst);
	if (strcmp(k->mode, "half") == 0)
		n /= 2;
	memcpy((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
	return OK;
}

/* cuLaunchKernelEx: logs the cluster shape of its
 * CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (4) attribute, then launches as
 * cuLaunchKernel. The structs as cuda.h lays them out on 64-bit machines. */
typedef struct {
	int id;
	char pad[4];
	union {
		char pad[64];
		struct { unsigned x, y, z; } cluster;
	} value;
} FakeLaunchAttr;
typedef struct {
	unsigned gx, gy, gz, bx, by, bz, smem;
	void *stream;
	FakeLaunchAttr *attrs;
	unsigned nattrs;
} FakeLaunchConfig;

CUresult cuLaunchKernelEx(const FakeLaunchConfig *c, void *fn, void **params, void **extra)
{
	if (sticky)
		return sticky;
	for (unsigned i = 0; i < c->nattrs; i++) {
		if (c->attrs[i].id != 4)
			return INVALID_VALUE;
		logf_("launchex %s cluster %u %u %u", ((Kernel *)fn)->name, c->attrs[i].value.cluster.x,
		      c->attrs[i].value.cluster.y, c->attrs[i].value.cluster.z);
	}
	return cuLaunchKernel(fn, c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->smem, c->stream, params, extra);
}

CUresult cuEventCreate(void **ev, unsigned flags)
{
	(void)flags;
	return (*ev = calloc(1, sizeof(double))) ? OK : INVALID_VALUE;
}

CUresult cuEventRecord(void *ev, void *stream)
{
	struct timespec t;
	(void)stream;
	clock_gettime(CLOCK_MONOTONIC, &t);
	*(double *)ev = (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
	return sticky;
}

CUresult cuEventSynchronize(void *ev) { (void)ev; return sticky; }

CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b)
{
	*ms = (float)(1e3 * (*(double *)b - *(double *)a));
	return sticky;
}

CUresult cuEventDestroy_v2(void *ev) { free(ev); return OK; }

static unsigned long long encode_calls;

/* The start of an encode line: call, dtype, rank, address, dims, strides. */
static int encode_head(char *line, size_t size, int dtype, uint32_t rank, void *addr, const uint64_t *dims,
                       const uint64_t *strides)
{
	int n = snprintf(line, size, "encode %llu dtype %d rank %u addr 0x%llx dims", encode_calls, dtype, rank,
	                 (unsigned long long)(uintptr_t)addr);
	for (uint32_t i = 0; i < rank; i++)
		n += snprintf(line + n, size - n, " %llu", (unsigned long long)dims[i]);
	n += snprintf(line + n, size - n, " strides");
	for (uint32_t i = 0; i + 1 < rank; i++)
		n += snprintf(line + n, size - n, " %llu", (unsigned long long)strides[i]);
	return n;
}

/* Logs the line; the map gets the call number and the address, unless
 * FAKECUDA_ENCODE_FAIL names this call. */
static CUresult encode_end(const char *line, void *map, void *addr)
{
	logf_("%s", line);
	const char *f = getenv("FAKECUDA_ENCODE_FAIL");
	if (f && strtoull(f, NULL, 10) == encode_calls)
		return INVALID_VALUE;
	uint64_t words[16] = { encode_calls, (uint64_t)(uintptr_t)addr };
	memcpy(map, words, sizeof words);
	return OK;
}

/* cuTensorMapEncodeTiled: every argument into the log, in the order of the
 * signature, lists innermost dimension first. */
CUresult cuTensorMapEncodeTiled(void *map, int dtype, uint32_t rank, void *addr, const uint64_t *dims,
                                const uint64_t *strides, const uint32_t *box, const uint32_t *estrides,
                                int interleave, int swizzle, int l2, int fill)
{
	char line[1024];
	encode_calls++;
	if ((uintptr_t)map % 64 || rank < 1 || rank > 5)
		return INVALID_VALUE;
	int n = encode_head(line, sizeof line, dtype, rank, addr, dims, strides);
	n += snprintf(line + n, sizeof line - n, " box");
	for (uint32_t i = 0; i < rank; i++)
		n += snprintf(line + n, sizeof line - n, " %u", box[i]);
	n += snprintf(line + n, sizeof line - n, " estrides");
	for (uint32_t i = 0; i < rank; i++)
		n += snprintf(line + n, sizeof line - n, " %u", estrides[i]);
	snprintf(line + n, sizeof line - n, " interleave %d swizzle %d l2 %d fill %d", interleave, swizzle, l2, fill);
	return encode_end(line, map, addr);
}

/* cuTensorMapEncodeIm2col: the same, with the rank - 2 corners of each
 * side, channels and pixels in place of the box. */
CUresult cuTensorMapEncodeIm2col(void *map, int dtype, uint32_t rank, void *addr, const uint64_t *dims,
                                 const uint64_t *strides, const int *lower, const int *upper, uint32_t channels,
                                 uint32_t pixels, const uint32_t *estrides, int interleave, int swizzle, int l2,
                                 int fill)
{
	char line[1024];
	encode_calls++;
	if ((uintptr_t)map % 64 || rank < 3 || rank > 5)
		return INVALID_VALUE;
	int n = encode_head(line, sizeof line, dtype, rank, addr, dims, strides);
	n += snprintf(line + n, sizeof line - n, " im2col lower");
	for (uint32_t i = 0; i + 2 < rank; i++)
		n += snprintf(line + n, sizeof line - n, " %d", lower[i]);
	n += snprintf(line + n, sizeof line - n, " upper");
	for (uint32_t i = 0; i + 2 < rank; i++)
		n += snprintf(line + n, sizeof line - n, " %d", upper[i]);
	n += snprintf(line + n, sizeof line - n, " channels %u pixels %u estrides", channels, pixels);
	for (uint32_t i = 0; i < rank; i++)
		n += snprintf(line + n, sizeof line - n, " %u", estrides[i]);
	snprintf(line + n, sizeof line - n, " interleave %d swizzle %d l2 %d fill %d", interleave, swizzle, l2, fill);
	return encode_end(line, map, addr);
}

/* cuTensorMapEncodeIm2colWide: one corner of W per side, and the mode. */
CUresult cuTensorMapEncodeIm2colWide(void *map, int dtype, uint32_t rank, void *addr, const uint64_t *dims,
                                     const uint64_t *strides, int lower, int upper, uint32_t channels,
                                     uint32_t pixels, const uint32_t *estrides, int interleave, int mode,
                                     int swizzle, int l2, int fill)
{
	char line[1024];
	encode_calls++;
	if ((uintptr_t)map % 64 || rank < 3 || rank > 5)
		return INVALID_VALUE;
	int n = encode_head(line, sizeof line, dtype, rank, addr, dims, strides);
	n += snprintf(line + n, sizeof line - n, " im2col_wide lower %d upper %d channels %u pixels %u estrides", lower,
	              upper, channels, pixels);
	for (uint32_t i = 0; i < rank; i++)
		n += snprintf(line + n, sizeof line - n, " %u", estrides[i]);
	snprintf(line + n, sizeof line - n, " interleave %d mode %d swizzle %d l2 %d fill %d", interleave, mode, swizzle,
	         l2, fill);
	return encode_end(line, map, addr);
}
