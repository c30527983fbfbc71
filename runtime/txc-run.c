/* txc-run: runs one kernel of a txc program on the GPU from a cubin. Every
 * parameter starts with seeded random data; the result is compared bit for
 * bit, element by element, with the emulator run on the source program from
 * the same data. --time measures the kernel against cuMemcpyDtoD. The CUDA
 * driver is loaded with dlopen, so txc-run builds and starts on a machine
 * without a GPU, and says so with exit status 3. See doc/txc-run.md. */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<cuda.h>)
#define HAVE_CUDA_H 1
#endif
#endif
#ifdef HAVE_CUDA_H
#include <cuda.h>
#else
/* Without the CUDA Toolkit (CI): the driver types and constants txc-run
 * uses, as cuda.h defines them on 64-bit machines. */
typedef int CUresult;
typedef int CUdevice;
typedef int CUfunction_attribute;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
#define CUDA_SUCCESS 0
#define CUDA_ERROR_DEVICE_UNAVAILABLE 46
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_NOT_FOUND 500
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH 11
#define CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT 12
#define CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH 13
#define CU_EVENT_DEFAULT 0
/* cuLaunchKernelEx (CUDA 12.0 on) with its one attribute txc uses. */
#define CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION 4
typedef int CUlaunchAttributeID;
typedef union CUlaunchAttributeValue_union {
	char pad[64];
	struct {
		unsigned int x, y, z;
	} clusterDim;
} CUlaunchAttributeValue;
typedef struct CUlaunchAttribute_st {
	CUlaunchAttributeID id;
	char pad[8 - sizeof(CUlaunchAttributeID)];
	CUlaunchAttributeValue value;
} CUlaunchAttribute;
typedef struct CUlaunchConfig_st {
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute *attrs;
	unsigned int numAttrs;
} CUlaunchConfig;
/* TMA tensor maps (CUDA 12.0 on). 12.x headers align the struct to 64 bytes,
 * which is what cuTensorMapEncodeTiled requires of its address; 13.0's to
 * 128. */
typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;
typedef struct CUtensorMap_st {
	_Alignas(64) cuuint64_t opaque[16];
} CUtensorMap;
typedef enum CUtensorMapDataType_enum { CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0 } CUtensorMapDataType;
typedef enum CUtensorMapInterleave_enum { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 } CUtensorMapInterleave;
typedef enum CUtensorMapSwizzle_enum { CU_TENSOR_MAP_SWIZZLE_NONE = 0 } CUtensorMapSwizzle;
typedef enum CUtensorMapL2promotion_enum { CU_TENSOR_MAP_L2_PROMOTION_NONE = 0 } CUtensorMapL2promotion;
typedef enum CUtensorMapFloatOOBfill_enum {
	CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0,
	CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
} CUtensorMapFloatOOBfill;
#endif

#include "ir.h"
#include "emu.h"
#include "npy.h"

#define PROG "txc-run"
#define EXIT_NO_GPU 3
#define MAX_SHOWN 10       /* mismatches listed after a FAIL line */
#define WARMUP 5           /* launches before timing */

/* ---- the driver API, loaded at run time -------------------------------- */

/* Each entry point: the symbol (the _v2 name where cuda.h maps the plain
 * one to it), an older symbol of the same signature to fall back on, the
 * parameters. */
#define CU_API(X) \
	X(cuInit, NULL, (unsigned int)) \
	X(cuDeviceGetCount, NULL, (int *)) \
	X(cuDeviceGet, NULL, (CUdevice *, int)) \
	X(cuCtxCreate_v2, NULL, (CUcontext *, unsigned int, CUdevice)) \
	X(cuCtxDestroy_v2, NULL, (CUcontext)) \
	X(cuCtxSynchronize, NULL, (void)) \
	X(cuModuleLoadData, NULL, (CUmodule *, const void *)) \
	X(cuModuleUnload, NULL, (CUmodule)) \
	X(cuModuleGetFunction, NULL, (CUfunction *, CUmodule, const char *)) \
	X(cuFuncSetAttribute, NULL, (CUfunction, CUfunction_attribute, int)) \
	X(cuFuncGetAttribute, NULL, (int *, CUfunction_attribute, CUfunction)) \
	X(cuMemAlloc_v2, NULL, (CUdeviceptr *, size_t)) \
	X(cuMemFree_v2, NULL, (CUdeviceptr)) \
	X(cuMemcpyHtoD_v2, NULL, (CUdeviceptr, const void *, size_t)) \
	X(cuMemcpyDtoH_v2, NULL, (void *, CUdeviceptr, size_t)) \
	X(cuMemcpyDtoD_v2, NULL, (CUdeviceptr, CUdeviceptr, size_t)) \
	X(cuMemsetD8_v2, NULL, (CUdeviceptr, unsigned char, size_t)) \
	X(cuLaunchKernel, NULL, (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, \
	                         unsigned int, unsigned int, unsigned int, CUstream, void **, void **)) \
	X(cuLaunchKernelEx, NULL, (const CUlaunchConfig *, CUfunction, void **, void **)) \
	X(cuEventCreate, NULL, (CUevent *, unsigned int)) \
	X(cuEventRecord, NULL, (CUevent, CUstream)) \
	X(cuEventSynchronize, NULL, (CUevent)) \
	X(cuEventElapsedTime_v2, "cuEventElapsedTime", (float *, CUevent, CUevent)) \
	X(cuEventDestroy_v2, "cuEventDestroy", (CUevent)) \
	X(cuGetErrorName, NULL, (CUresult, const char **)) \
	X(cuGetErrorString, NULL, (CUresult, const char **)) \
	X(cuTensorMapEncodeTiled, NULL, (CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *, \
	                                 const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, \
	                                 CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion, \
	                                 CUtensorMapFloatOOBfill)) \
	X(cuTensorMapEncodeIm2col, NULL, (CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *, \
	                                  const cuuint64_t *, const int *, const int *, cuuint32_t, cuuint32_t, \
	                                  const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle, \
	                                  CUtensorMapL2promotion, CUtensorMapFloatOOBfill))

typedef struct CuApi {
#define FIELD(name, alt, params) CUresult (*name) params;
	CU_API(FIELD)
#undef FIELD
} CuApi;

static const struct { const char *name, *alt; size_t off; } cu_syms[] = {
#define SYM(name, alt, params) { #name, alt, offsetof(CuApi, name) },
	CU_API(SYM)
#undef SYM
};

static CuApi cu;
/* cuTensorMapEncodeIm2colWide (drivers of CUDA 12.8 on, for sm_100 maps):
 * looked up apart, so that older drivers still run everything else; its
 * mode is CUtensorMapIm2ColWideMode (0 W, 1 W128). */
static CUresult (*cu_encode_im2col_wide)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                         const cuuint64_t *, int, int, cuuint32_t, cuuint32_t, const cuuint32_t *,
                                         CUtensorMapInterleave, int, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                         CUtensorMapFloatOOBfill);

/* One kernel parameter: its buffer and its data on the host and the GPU. */
typedef struct Arg {
	Buffer *b;
	int64_t numel;      /* logical elements */
	int64_t nstore;     /* elements of storage */
	size_t esize, bytes;
	unsigned char *init, *ref, *got;
	CUdeviceptr dev;
	const char *in, *out; /* --in and --out files */
	int expect;           /* --expect: the buffer whose initial data this one must end with, or -1 */
} Arg;

/* What the GPU holds, released by gpu_close on every way out. */
static struct {
	bool open;
	CUcontext ctx;
	CUmodule mod;
	CUevent ev[2];
	CUdeviceptr scratch;
	Arg *args;
	int nargs;
	CUtensorMap *maps;  /* the kernel's tensor maps, encoded (aligned_alloc) */
} gpu;

static void gpu_close(void)
{
	if (!gpu.open)
		return;
	for (int i = 0; i < gpu.nargs; i++)
		if (gpu.args[i].dev)
			cu.cuMemFree_v2(gpu.args[i].dev);
	if (gpu.scratch)
		cu.cuMemFree_v2(gpu.scratch);
	for (int i = 0; i < 2; i++)
		if (gpu.ev[i])
			cu.cuEventDestroy_v2(gpu.ev[i]);
	if (gpu.mod)
		cu.cuModuleUnload(gpu.mod);
	cu.cuCtxDestroy_v2(gpu.ctx);
	free(gpu.maps);
	memset(&gpu, 0, sizeof gpu);
}

/* Every way out. The driver stays loaded: unloading libcuda before exit can
 * run its exit handlers from unmapped code. */
static _Noreturn void fail(int status)
{
	gpu_close();
	exit(status);
}

static void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, PROG ": error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *cu_error(CUresult r)
{
	const char *name = NULL, *str = NULL;
	if (!cu.cuGetErrorName || cu.cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
		name = "unknown error";
	if (!cu.cuGetErrorString || cu.cuGetErrorString(r, &str) != CUDA_SUCCESS || !str)
		str = "no description";
	return xprintf("%s (%d): %s", name, (int)r, str);
}

/* A failed driver call: its name, the error's name and text; exit 1. */
static void cu_check(CUresult r, const char *call)
{
	if (r == CUDA_SUCCESS)
		return;
	error("%s: %s", call, cu_error(r));
	fail(1);
}
#define CU(fn, args) cu_check(cu.fn args, #fn)

static _Noreturn void no_gpu(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void no_gpu(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, PROG ": no GPU: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fail(EXIT_NO_GPU);
}

/* Loads the driver and makes a context on device 0; no driver, no device
 * or a driver that cannot start is exit status 3. */
static void gpu_open(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		no_gpu("cannot load the CUDA driver: %s", dlerror());
	for (size_t i = 0; i < sizeof cu_syms / sizeof cu_syms[0]; i++) {
		void *p = dlsym(lib, cu_syms[i].name);
		if (!p && cu_syms[i].alt)
			p = dlsym(lib, cu_syms[i].alt);
		if (!p)
			no_gpu("libcuda.so.1 has no %s (a driver too old?)", cu_syms[i].name);
		memcpy((char *)&cu + cu_syms[i].off, &p, sizeof p);
	}
	void *w = dlsym(lib, "cuTensorMapEncodeIm2colWide");
	memcpy(&cu_encode_im2col_wide, &w, sizeof w);
	CUresult r = cu.cuInit(0);
	if (r != CUDA_SUCCESS)
		no_gpu("cuInit: %s", cu_error(r));
	int n = 0;
	r = cu.cuDeviceGetCount(&n);
	if (r != CUDA_SUCCESS)
		no_gpu("cuDeviceGetCount: %s", cu_error(r));
	if (n == 0)
		no_gpu("the driver sees no CUDA device");
	CUdevice dev;
	r = cu.cuDeviceGet(&dev, 0);
	if (r == CUDA_SUCCESS)
		r = cu.cuCtxCreate_v2(&gpu.ctx, 0, dev);
	if (r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_INVALID_DEVICE || r == CUDA_ERROR_DEVICE_UNAVAILABLE)
		no_gpu("device 0: %s", cu_error(r));
	cu_check(r, "cuCtxCreate_v2");
	gpu.open = true;
}

/* ---- the program ------------------------------------------------------- */

/* The program, verified, or exit 1 after its errors. */
static Module *load_program(const char *file)
{
	Module *m = load_module(PROG, file, TG_ANY, true);
	if (!m)
		fail(1);
	return m;
}

static Func *kernel_of(const Module *m, const char *name)
{
	Func *f = find_kernel(PROG, m, name);
	if (!f)
		fail(1);
	return f;
}

static char *buffer_type(const Buffer *b)
{
	Buf s = {0};
	bprintf(&s, "%s (", dtypes[b->dtype].name);
	for (int d = 0; d < b->ndim; d++)
		bprintf(&s, "%s%" PRId64, d ? ", " : "", b->shape[d]);
	bputs(&s, b->ndim == 1 ? ",)" : ")");
	return s.s;
}

/* The reference kernel must take the same buffers as the one compiled. */
static bool same_signature(const Func *f, const Func *g)
{
	if (f->nparams != g->nparams) {
		error("kernel '%s' takes %d buffers, but the reference takes %d", f->name, f->nparams, g->nparams);
		return false;
	}
	for (int i = 0; i < f->nparams; i++) {
		const Buffer *a = f->params[i], *b = g->params[i];
		bool same = a->dtype == b->dtype && a->ndim == b->ndim && buffer_storage(a) == buffer_storage(b);
		for (int d = 0; same && d < a->ndim; d++)
			same = a->shape[d] == b->shape[d];
		if (!same) {
			error("kernel '%s': buffer %d '%s' is %s, but the reference's '%s' is %s", f->name, i + 1,
			      a->name, buffer_type(a), b->name, buffer_type(b));
			return false;
		}
	}
	if (f->nscalars != g->nscalars) {
		error("kernel '%s' takes %d scalars, but the reference takes %d", f->name, f->nscalars, g->nscalars);
		return false;
	}
	for (int i = 0; i < f->nscalars; i++) {
		const Var *a = f->scalars[i], *b = g->scalars[i];
		if (strcmp(a->name, b->name) || a->dtype != b->dtype) {
			error("kernel '%s': scalar %d '%s' is %s, but the reference's '%s' is %s", f->name, i + 1, a->name,
			      dtypes[a->dtype].name, b->name, dtypes[b->dtype].name);
			return false;
		}
	}
	return true;
}

/* ---- TMA --------------------------------------------------------------- */

/* The file of a place in a program: the `#@ FILE:LINE` comment's, or its own. */
static const char *pos_file(Pos p)
{
	return p.place && pos_name(p) ? pos_name(p) : "<stdin>";
}

/* A Tx.copy_async of body that goes through the tma variant: dispatch=
 * names a variant of the tma family, or the variant table picks one for its
 * memories and mbar= (variant_for, as the emulator and the passes do); NULL
 * when there is none. */
static const Expr *tma_copy(const Module *m, Stmt **body, int n)
{
	for (int i = 0; i < n; i++) {
		const Stmt *s = body[i];
		const Expr *e = s->value, *hit = NULL;
		if (s->kind == S_IF) {
			hit = tma_copy(m, s->body, s->nbody);
			if (!hit)
				hit = tma_copy(m, s->orelse, s->norelse);
		} else if (s->kind == S_FOR || s->kind == S_WHILE)
			hit = tma_copy(m, s->body, s->nbody);
		else if (s->kind == S_EXPR && e->kind == E_CALL && e->intrin == IN_COPY_ASYNC && e->nargs == 2) {
			const Kw *d = call_kw(e, "dispatch");
			int v = -1;
			if (d) {
				const Value *nv = d->value->kind == E_NAME ? module_value(m, d->value->str) : NULL;
				const char *name = d->value->kind == E_STR ? d->value->str : nv && nv->kind == V_STR ? nv->s : NULL;
				v = name ? variant_lookup(IN_COPY_ASYNC, name) : -1;
				/* TVM's names (tma_auto, tma_explicit): the variant the memories and mbar= call for */
				const TvmVariant *tv = name && v < 0 ? tvm_variant_lookup(IN_COPY_ASYNC, name) : NULL;
				if (tv && !tv->why && e->args[0]->val && e->args[0]->val->buffer && e->args[1]->val &&
				    e->args[1]->val->buffer)
					v = variant_for(IN_COPY_ASYNC, e->args[1]->val->buffer->scope, e->args[0]->val->buffer->scope,
					                call_kw(e, "mbar") != NULL);
			} else if (e->args[0]->val && e->args[0]->val->buffer && e->args[1]->val && e->args[1]->val->buffer) {
				v = variant_for(IN_COPY_ASYNC, e->args[1]->val->buffer->scope, e->args[0]->val->buffer->scope,
				                call_kw(e, "mbar") != NULL);
			}
			if (v >= 0 && variants[v].family == FAM_TMA)
				hit = e;
		}
		if (hit)
			return hit;
	}
	return NULL;
}

/* The enum values of cuTensorMapEncodeTiled's L2 promotion (CU_TENSOR_MAP_
 * L2_PROMOTION_*: none, 64, 128, 256 bytes) for a promotion of `bytes`. */
static int l2_promotion(int bytes)
{
	switch (bytes) {
	case 64: return 1;
	case 128: return 2;
	case 256: return 3;
	default: return 0;
	}
}

/* Encodes tensor map t over the device copy of its buffer a into *out, as
 * doc/txc-run.md ("Tensor maps") says; exit 1 when the driver refuses it. */
static void encode_tmap(const Func *f, const TensorMap *t, const Arg *a, CUtensorMap *out)
{
	cuuint64_t dims[TMAP_MAX_RANK], strides[TMAP_MAX_RANK];
	cuuint32_t box[TMAP_MAX_RANK], estrides[TMAP_MAX_RANK];
	for (int i = 0; i < t->rank; i++) {
		dims[i] = (cuuint64_t)t->dims[i];
		box[i] = (cuuint32_t)t->box[i];
		estrides[i] = (cuuint32_t)t->estrides[i];
		if (i)
			strides[i - 1] = (cuuint64_t)t->strides[i];
	}
	void *addr = (void *)(uintptr_t)(a->dev + (CUdeviceptr)t->offset * (CUdeviceptr)t->esize);
	CUtensorMapDataType dt = (CUtensorMapDataType)tmap_data_type(t->buf->dtype);
	CUtensorMapSwizzle sw = (CUtensorMapSwizzle)tmap_swizzle_mode(t->swizzle);
	CUtensorMapL2promotion l2 = (CUtensorMapL2promotion)l2_promotion(t->l2);
	CUtensorMapFloatOOBfill fill = t->nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
	                                           : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
	int lower[TMAP_MAX_RANK - 2], upper[TMAP_MAX_RANK - 2];
	for (int i = 0; i < t->rank - 2; i++) {
		lower[i] = (int)t->lower[i];
		upper[i] = (int)t->upper[i];
	}
	const char *fn = "cuTensorMapEncodeTiled";
	CUresult r;
	switch (t->mode) {
	case TMAP_TILED:
		r = cu.cuTensorMapEncodeTiled(out, dt, (cuuint32_t)t->rank, addr, dims, strides, box, estrides,
		                              CU_TENSOR_MAP_INTERLEAVE_NONE, sw, l2, fill);
		break;
	case TMAP_IM2COL:
		fn = "cuTensorMapEncodeIm2col";
		r = cu.cuTensorMapEncodeIm2col(out, dt, (cuuint32_t)t->rank, addr, dims, strides, lower, upper,
		                               (cuuint32_t)t->channels, (cuuint32_t)t->pixels, estrides,
		                               CU_TENSOR_MAP_INTERLEAVE_NONE, sw, l2, fill);
		break;
	default:
		fn = "cuTensorMapEncodeIm2colWide";
		if (!cu_encode_im2col_wide) {
			error("%s:%d: kernel '%s': tensor map '%s' needs cuTensorMapEncodeIm2colWide, which this driver lacks",
			      pos_file(t->pos), t->pos.line, f->name, t->name);
			fail(1);
		}
		/* pixels_per_column is ignored in W128 mode: the map's 128 is passed */
		r = cu_encode_im2col_wide(out, dt, (cuuint32_t)t->rank, addr, dims, strides, lower[0], upper[0],
		                          (cuuint32_t)t->channels, (cuuint32_t)t->pixels, estrides,
		                          CU_TENSOR_MAP_INTERLEAVE_NONE, t->mode == TMAP_IM2COL_W128, sw, l2, fill);
		break;
	}
	if (r != CUDA_SUCCESS) {
		error("%s:%d: kernel '%s': cannot encode tensor map '%s' over buffer '%s': %s: %s",
		      pos_file(t->pos), t->pos.line, f->name, t->name,
		      a->b->name, fn, cu_error(r));
		fail(1);
	}
}

/* The storage element that holds logical element `flat` (row-major). */
static bool elem_offset(const Arg *a, int64_t flat, int64_t *off)
{
	int64_t out[AX_COUNT];
	if (!a->b->layout) {
		*off = flat;
		return true;
	}
	if (!layout_apply(a->b->layout, flat, out) || out[AX_M] < 0 || out[AX_M] >= a->nstore)
		return false;
	*off = out[AX_M];
	return true;
}

static void logical_index(Buf *s, const Buffer *b, int64_t flat)
{
	int64_t idx[64];
	for (int d = b->ndim - 1; d >= 0; d--) {
		idx[d] = flat % b->shape[d];
		flat /= b->shape[d];
	}
	bprintf(s, "%s[", b->name);
	for (int d = 0; d < b->ndim; d++)
		bprintf(s, "%s%" PRId64, d ? ", " : "", idx[d]);
	bputc(s, ']');
}

static bool size_args(Func *f, Arg *args)
{
	for (int i = 0; i < f->nparams; i++) {
		Arg *a = &args[i];
		Buffer *b = f->params[i];
		int64_t n = 1, bytes = emu_param_bytes(b);
		for (int d = 0; d < b->ndim; d++)
			if (!mul_ok(n, b->shape[d], &n))
				n = -1;
		a->b = b;
		a->numel = n;
		a->nstore = buffer_storage(b);
		a->esize = (size_t)dtype_bytes(b->dtype);
		bool empty = b->dyn && n == 0; /* m = 0 this run */
		if (b->ndim > 64 || (n <= 0 && !empty) || (a->nstore <= 0 && !empty) || bytes < 0 || (!bytes && !empty) ||
		    bytes > ((int64_t)1 << 40)) {
			error("buffer '%s' of kernel '%s' (%s) has no storage txc-run can allocate", b->name, f->name,
			      buffer_type(b));
			return false;
		}
		a->bytes = (size_t)bytes;
	}
	return true;
}

/* --in and --out: a .npy file of the buffer's storage, with the shape that
 * txc-emu uses (emu_param_shape: the logical shape for a row-major buffer,
 * else one dimension of storage). */
static bool read_input(Arg *a)
{
	char *err = NULL;
	int64_t shape[64];
	int nd = emu_param_shape(a->b, shape);
	if (!npy_read(a->in, a->b->dtype, shape, nd, a->init, a->bytes, &err)) {
		error("--in %s=%s: %s", a->b->name, a->in, err ? err : "cannot read it");
		return false;
	}
	return true;
}

static bool write_output(const Arg *a)
{
	char *err = NULL;
	int64_t shape[64];
	int nd = emu_param_shape(a->b, shape);
	if (!npy_write(a->out, a->b->dtype, shape, nd, a->got, &err)) {
		error("--out %s=%s: %s", a->b->name, a->out, err ? err : "cannot write it");
		return false;
	}
	return true;
}

/* ---- comparing --------------------------------------------------------- */

/* A small IEEE-style float: sign, ebits of exponent, mbits of mantissa.
 * `ieee`: the top exponent means infinity and NaN; otherwise (e4m3fn) only
 * all ones is NaN. */
static double minifloat(uint64_t bits, int ebits, int mbits, bool ieee)
{
	int bias = (1 << (ebits - 1)) - 1;
	uint64_t man = bits & ((1u << mbits) - 1);
	int exp = (int)((bits >> mbits) & ((1u << ebits) - 1));
	double sign = (bits >> (ebits + mbits)) & 1 ? -1.0 : 1.0;
	if (ieee && exp == (1 << ebits) - 1)
		return man ? NAN : sign * INFINITY;
	if (!ieee && exp == (1 << ebits) - 1 && man == (1u << mbits) - 1)
		return NAN;
	if (exp == 0)
		return sign * ldexp((double)man, 1 - bias - mbits);
	return sign * ldexp((double)(man | (1u << mbits)), exp - bias - mbits);
}

/* "0x3c00 (1)": the bits and the value of one element. */
static void print_elem(Buf *s, int dtype, const unsigned char *p)
{
	int n = dtype_bytes(dtype);
	uint64_t bits = 0;
	for (int i = n - 1; i >= 0; i--) /* the host is little-endian, as the GPU */
		bits = bits << 8 | p[i];
	bprintf(s, "0x%0*" PRIx64 " (", 2 * n, bits);
	int kind = dtypes[dtype].kind;
	if (kind == DK_INT)
		bprintf(s, "%" PRId64, (int64_t)(bits << (64 - 8 * n)) >> (64 - 8 * n));
	else if (kind != DK_FLOAT)
		bprintf(s, "%" PRIu64, bits);
	else {
		double v;
		float f32;
		uint32_t u32 = (uint32_t)bits;
		switch (dtype) {
		case DT_FP8E4M3: v = minifloat(bits, 4, 3, false); break;
		case DT_FP8E5M2: v = minifloat(bits, 5, 2, true); break;
		case DT_FLOAT16: v = minifloat(bits, 5, 10, true); break;
		case DT_BFLOAT16: u32 <<= 16; /* fall through */
		case DT_FLOAT32: memcpy(&f32, &u32, 4); v = f32; break;
		default: memcpy(&v, &bits, 8); break;
		}
		bprintf(s, "%.9g", v);
	}
	bputc(s, ')');
}

static void show_mismatch(Buf *s, const Arg *a, int64_t flat, int64_t off)
{
	bputs(s, "  ");
	if (flat >= 0)
		logical_index(s, a->b, flat);
	else
		bprintf(s, "%s storage[%" PRId64 "] (no logical element)", a->b->name, off);
	bputs(s, ": got ");
	print_elem(s, a->b->dtype, a->got + off * a->esize);
	bputs(s, " want ");
	print_elem(s, a->b->dtype, a->ref + off * a->esize);
	bputc(s, '\n');
}

/* Counts the elements of a where the GPU and the reference differ in any
 * bit, and lists the first ones in `shown`. Storage that no logical element
 * maps to (a layout with holes) must keep its initial data on both sides. */
static int64_t compare(const Arg *a, Buf *shown, int *nshown)
{
	int64_t bad = 0;
	if (memcmp(a->got, a->ref, a->bytes) == 0) /* the common case, fast at 4 GiB */
		return 0;
	for (int64_t k = 0; k < a->numel; k++) {
		int64_t off;
		if (!elem_offset(a, k, &off))
			die("element %" PRId64 " of '%s' has no storage", k, a->b->name);
		if (memcmp(a->got + off * a->esize, a->ref + off * a->esize, a->esize) == 0)
			continue;
		if (bad++, *nshown < MAX_SHOWN) {
			(*nshown)++;
			show_mismatch(shown, a, k, off);
		}
	}
	if (!a->b->layout || memcmp(a->got, a->ref, a->bytes) == 0)
		return bad;
	bool *mapped = xalloc((size_t)a->nstore);
	for (int64_t k = 0, off; k < a->numel; k++)
		if (elem_offset(a, k, &off))
			mapped[off] = true;
	for (int64_t off = 0; off < a->nstore; off++) {
		if (mapped[off] || memcmp(a->got + off * a->esize, a->ref + off * a->esize, a->esize) == 0)
			continue;
		if (bad++, *nshown < MAX_SHOWN) {
			(*nshown)++;
			show_mismatch(shown, a, -1, off);
		}
	}
	return bad;
}

/* The buffer parameter called `name`, for option `opt` NAME=VALUE; exits 1
 * naming the kernel's buffers when there is none. */
static int find_arg(const Func *f, const Arg *args, const char *name, const char *opt, const char *n, const char *v)
{
	Buf names = { 0 };
	for (int i = 0; i < f->nparams; i++) {
		if (strcmp(args[i].b->name, name) == 0)
			return i;
		bprintf(&names, "%s%s", i ? ", " : "", args[i].b->name);
	}
	error("%s %s=%s: kernel '%s' has no buffer '%s' (its buffers: %s)", opt, n, v, f->name, name,
	      names.n ? names.s : "none");
	fail(1);
}

/* --expect DST=SRC: the reference of DST is SRC's initial data, element by
 * element (through each one's layout; holes keep DST's own data). */
static void expected_copy(Arg *dst, const Arg *src)
{
	for (int64_t k = 0; k < dst->numel; k++) {
		int64_t d, s;
		if (!elem_offset(dst, k, &d) || !elem_offset(src, k, &s))
			die("element %" PRId64 " of '%s' or '%s' has no storage", k, dst->b->name, src->b->name);
		memcpy(dst->ref + d * dst->esize, src->init + s * src->esize, dst->esize);
	}
}

/* Buffers whose storage holds the same elements in the same places. */
static bool same_storage(const Buffer *a, const Buffer *b)
{
	if (a->dtype != b->dtype || a->ndim != b->ndim || !!a->layout != !!b->layout)
		return false;
	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != b->shape[d])
			return false;
	return !a->layout || strcmp(layout_str(layout_canonical(a->layout)), layout_str(layout_canonical(b->layout))) == 0;
}

/* ---- timing ------------------------------------------------------------ */

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

static double median(float *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmp_float);
	return n % 2 ? t[n / 2] : 0.5 * ((double)t[n / 2 - 1] + t[n / 2]);
}

typedef struct Launch {
	CUfunction fn;
	unsigned grid[3], threads, smem;
	unsigned cluster[3]; /* 0: not launched in clusters */
	void **params;
} Launch;

/* A kernel declared in clusters is launched with cuLaunchKernelEx and the
 * program's cluster shape as its CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
 * (the same as the __cluster_dims__ compiled into it); others with
 * cuLaunchKernel. */
static void launch(const Launch *l)
{
	if (!l->grid[0] || !l->grid[1] || !l->grid[2]) /* a run-time grid extent of 0: no CTA runs */
		return;
	if (!l->cluster[0]) {
		CU(cuLaunchKernel, (l->fn, l->grid[0], l->grid[1], l->grid[2], l->threads, 1, 1, l->smem, NULL,
		                    l->params, NULL));
		return;
	}
	CUlaunchAttribute attr;
	memset(&attr, 0, sizeof attr);
	attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
	attr.value.clusterDim.x = l->cluster[0];
	attr.value.clusterDim.y = l->cluster[1];
	attr.value.clusterDim.z = l->cluster[2];
	CUlaunchConfig cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.gridDimX = l->grid[0];
	cfg.gridDimY = l->grid[1];
	cfg.gridDimZ = l->grid[2];
	cfg.blockDimX = l->threads;
	cfg.blockDimY = 1;
	cfg.blockDimZ = 1;
	cfg.sharedMemBytes = l->smem;
	cfg.hStream = NULL;
	cfg.attrs = &attr;
	cfg.numAttrs = 1;
	CU(cuLaunchKernelEx, (&cfg, l->fn, l->params, NULL));
}

/* One timed repetition: the kernel (copy NULL) or a device-to-device copy,
 * between two events on the default stream. */
static float timed(const Launch *l, const CUdeviceptr *copy, size_t bytes)
{
	float ms = 0;
	CU(cuEventRecord, (gpu.ev[0], NULL));
	if (copy)
		CU(cuMemcpyDtoD_v2, (copy[0], copy[1], bytes));
	else
		launch(l);
	CU(cuEventRecord, (gpu.ev[1], NULL));
	CU(cuEventSynchronize, (gpu.ev[1]));
	CU(cuEventElapsedTime_v2, (&ms, gpu.ev[0], gpu.ev[1]));
	return ms;
}

/* The kernel's launches and cuMemcpyDtoD of the largest buffer's bytes, N
 * of each, taken in turns (kernel, copy, kernel, copy, ...) so that clocks
 * and temperature drift alike for both; the medians are compared. */
static void time_kernel(const Launch *l, const char *name, Arg *args, int nargs, int reps)
{
	size_t total = 0;
	const Arg *big = &args[0]; /* args has one zeroed entry when nargs is 0 */
	for (int i = 0; i < nargs; i++) {
		total += args[i].bytes;
		if (args[i].bytes > big->bytes)
			big = &args[i];
	}
	float *t = xalloc(sizeof *t * (size_t)reps), *tc = xalloc(sizeof *tc * (size_t)reps);
	CU(cuEventCreate, (&gpu.ev[0], CU_EVENT_DEFAULT));
	CU(cuEventCreate, (&gpu.ev[1], CU_EVENT_DEFAULT));
	CUdeviceptr copy[2] = { 0, big->dev };
	bool copies = nargs && big->bytes; /* (no byte: buffers of symbolic extent 0) */
	if (copies) {
		CU(cuMemAlloc_v2, (&gpu.scratch, big->bytes));
		copy[0] = gpu.scratch;
		CU(cuMemsetD8_v2, (gpu.scratch, 0, big->bytes));
	}
	for (int i = 0; i < WARMUP; i++) {
		launch(l);
		if (copies)
			CU(cuMemcpyDtoD_v2, (copy[0], copy[1], big->bytes));
	}
	CU(cuCtxSynchronize, ());
	for (int i = 0; i < reps; i++) {
		t[i] = timed(l, NULL, 0);
		if (copies)
			tc[i] = timed(NULL, copy, big->bytes);
	}
	CU(cuCtxSynchronize, ());
	double us = 1e3 * median(t, reps);
	if (!copies) {
		printf("time kernel %s: median %.*f us over %d launches\n", name, us < 10 ? 2 : 1, us, reps);
		return;
	}
	double copy_us = 1e3 * median(tc, reps);
	double bw = us > 0 ? (double)total / us * 1e-3 : 0;                    /* GB/s */
	double copy_bw = copy_us > 0 ? 2.0 * (double)big->bytes / copy_us * 1e-3 : 0;
	printf("time kernel %s: median %.*f us over %d launches, %.0f GB/s; cuMemcpyDtoD %.0f GB/s; ratio %.3f\n",
	       name, us < 10 ? 2 : 1, us, reps, bw, copy_bw, copy_bw > 0 ? bw / copy_bw : 0);
}

/* ---- the command line -------------------------------------------------- */

/* --in NAME=FILE, --out NAME=FILE, --expect DST=SRC (file: SRC's name) */
typedef struct Pair { const char *name, *file; char kind; } Pair;

/* --in, --out, --expect, --arg and --time are taken out of argv before
 * cli_parse: the first four may be repeated, and --time has an optional count. */
static int take_options(Cli *c, int argc, char **argv, Pair **pairs, int *npairs, int *reps, char ***scalars,
                        int *nscalars)
{
	int n = 1;
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			while (i < argc)
				argv[n++] = argv[i++];
			break;
		}
		bool in = strncmp(a, "--in", 4) == 0 && (a[4] == 0 || a[4] == '=');
		bool out = strncmp(a, "--out", 5) == 0 && (a[5] == 0 || a[5] == '=');
		bool exp = strncmp(a, "--expect", 8) == 0 && (a[8] == 0 || a[8] == '=');
		if (strncmp(a, "--arg", 5) == 0 && (a[5] == 0 || a[5] == '=')) {
			char *v = a[5] ? a + 6 : i + 1 < argc ? argv[++i] : NULL;
			if (!v)
				cli_usage_error(c, "option '--arg' needs a value (NAME=INTEGER)");
			vpush(*scalars, *nscalars, v);
			continue;
		}
		if (in || out || exp) {
			const char *opt = in ? "--in" : out ? "--out" : "--expect";
			const char *form = exp ? "DST=SRC" : "NAME=FILE.npy";
			char *eq = strchr(a, '=');
			const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v)
				cli_usage_error(c, "option '%s' needs a value (%s)", opt, form);
			const char *sep = strchr(v, '=');
			if (!sep || sep == v || !sep[1])
				cli_usage_error(c, "option '%s' needs %s, not '%s'", opt, form, v);
			Pair p = { xstrndup(v, (size_t)(sep - v)), sep + 1, in ? 'i' : out ? 'o' : 'e' };
			vpush(*pairs, *npairs, p);
			continue;
		}
		if (strncmp(a, "--time", 6) == 0 && (a[6] == 0 || a[6] == '=')) {
			const char *v = a[6] == '=' ? a + 7 : NULL;
			if (!v && i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9')
				v = argv[++i];
			*reps = 50;
			if (v) {
				char *end;
				errno = 0;
				long r = strtol(v, &end, 10);
				if (errno || end == v || *end || r < 1 || r > 100000)
					cli_usage_error(c, "--time takes a count of launches from 1 to 100000, not '%s'", v);
				*reps = (int)r;
			}
			continue;
		}
		argv[n++] = a;
	}
	argv[n] = NULL;
	return n;
}

int main(int argc, char **argv)
{
	const char *cubin = NULL, *kernel = NULL, *ref_file = NULL, *seed_arg = NULL, *unused = NULL, *sched_s = NULL;
	bool no_check = false, unused_flag = false, no_race = false;
	Opt opts[] = {
		{ "--cubin", "FILE", "the compiled kernel: a cubin (or fatbin, or PTX) holding extern \"C\" NAME", &cubin, NULL },
		{ "--kernel", "NAME", "the kernel of FILE to run (default: the first)", &kernel, NULL },
		{ "--ref", "FILE", "the source program whose emulation is the reference (default: FILE itself)", &ref_file, NULL },
		{ "--seed", "N", "seed of the random initial data of every buffer (default 1)", &seed_arg, NULL },
		{ "--in", "NAME=FILE", "initial data of buffer NAME from a .npy file (repeatable)", &unused, NULL },
		{ "--out", "NAME=FILE", "write buffer NAME after the GPU run to a .npy file (repeatable)", &unused, NULL },
		{ "--arg", "NAME=INTEGER", "the value of scalar kernel parameter NAME (`n: T.int32` in the signature), "
		  "for the GPU and the reference; each one is needed (repeatable)", &unused, NULL },
		{ "--expect", "DST=SRC", "check instead against the copy DST = SRC: DST must end with SRC's initial data "
		  "and every other buffer with its own; no emulator (repeatable; for copies too large to emulate)",
		  &unused, NULL },
		{ "--no-check", NULL, "skip the reference: run the kernel without checking it", NULL, &no_check },
		{ "--no-race-check", NULL, "the reference emulator run does not check shared memory for races", NULL,
		  &no_race },
		{ "--schedule", "ORDER", "the reference emulator run's thread order: lockstep (default), reverse or "
		  "random[:SEED] (txc-emu --help)", &sched_s, NULL },
		{ "--time", NULL, "then time N launches (--time N or --time=N; default 50) against cuMemcpyDtoD",
		  NULL, &unused_flag },
		{ 0 },
	};
	Cli c = { .prog = PROG, .opts = opts,
	          .summary = "Runs a kernel of the txc program FILE on the GPU from its --cubin, with seeded\n"
	                     "random data in every buffer, and checks every element of every buffer, bit for\n"
	                     "bit, against the emulator run on the source program: one PASS or FAIL line.\n"
	                     "A mismatch exits 1. No usable GPU or driver exits 3 ('txc-run: no GPU: ...')." };
	Pair *pairs = NULL;
	int npairs = 0, reps = 0, nscalar_args = 0;
	char **scalar_args = NULL;
	argc = take_options(&c, argc, argv, &pairs, &npairs, &reps, &scalar_args, &nscalar_args);
	cli_parse(&c, argc, argv);
	if (c.output)
		cli_usage_error(&c, "txc-run writes no program; --out NAME=FILE.npy writes a buffer");
	if (!cubin)
		cli_usage_error(&c, "no --cubin FILE: the compiled kernel to run");
	uint64_t seed = 1;
	if (seed_arg) {
		char *end;
		errno = 0;
		seed = strtoull(seed_arg, &end, 0);
		if (errno || end == seed_arg || *end || seed_arg[0] < '0' || seed_arg[0] > '9')
			cli_usage_error(&c, "--seed takes a non-negative integer, not '%s'", seed_arg);
	}
	const char *file = c.input ? c.input : "<stdin>";
	int sched = EMU_SCHED_LOCKSTEP;
	uint64_t sched_seed = 1;
	if (sched_s && !emu_sched_parse(sched_s, &sched, &sched_seed))
		cli_usage_error(&c, "--schedule takes lockstep, reverse, random or random:SEED, not '%s'", sched_s);

	/* everything that needs no GPU first, so bad input fails without one */
	Src image;
	Module *m = load_program(c.input);
	Func *f = kernel_of(m, kernel);
	Module *rm = m;
	Func *rf = f;
	/* A source program's TMA copies become tensor maps, kernel parameters,
	 * only in the lowered IR: the cubin's kernel takes them, so the launch
	 * must come from the lowered IR. */
	const Expr *tma = f->ntmaps ? NULL : tma_copy(m, f->stmt->body, f->stmt->nbody);
	if (tma) {
		error("%s:%d: kernel '%s' copies with TMA: run txc-run on its lowered IR (txc --emit=ir) with --ref the source",
		      pos_file(tma->pos), tma->pos.line, f->name);
		fail(1);
	}
	if (ref_file && !no_check) {
		rm = load_program(ref_file);
		rf = kernel_of(rm, f->name);
		if (!same_signature(f, rf))
			fail(1);
	}
	/* scalar parameters: --arg, for the kernel and its reference */
	int64_t *scalars = xalloc(sizeof(int64_t) * (size_t)(f->nscalars + 1));
	int64_t *ref_scalars = xalloc(sizeof(int64_t) * (size_t)(rf->nscalars + 1));
	const char *why = emu_scalar_args(f, scalar_args, nscalar_args, scalars);
	if (!why && rf != f)
		why = emu_scalar_args(rf, scalar_args, nscalar_args, ref_scalars);
	if (rf == f)
		ref_scalars = scalars;
	if (!why) /* buffers of symbolic extent: this run's */
		why = emu_bind_extents(f, scalars);
	if (!why && rf != f)
		why = emu_bind_extents(rf, ref_scalars);
	if (why)
		cli_usage_error(&c, "%s", why);
	Launch l = { .threads = (unsigned)f->threads };
	int64_t smem = smem_bytes(f);
	for (int d = 0; d < 3; d++) {
		if (f->grid[d] < !f->grid_dyn[d] || f->grid[d] > (d == 0 ? INT32_MAX : 65535)) {
			error("kernel '%s': grid dimension %d is %" PRId64 ", more than CUDA launches", f->name, d,
			      f->grid[d]);
			fail(1);
		}
		l.grid[d] = (unsigned)f->grid[d];
	}
	if (smem > INT32_MAX) {
		error("kernel '%s' needs %" PRId64 " bytes of shared memory", f->name, smem);
		fail(1);
	}
	l.smem = (unsigned)smem;
	if (!read_file(PROG, cubin, &image))
		fail(1);
	const unsigned char *h = (const unsigned char *)image.text;
	if (image.len == 0) {
		error("'%s' is empty", cubin);
		fail(1);
	}
	bool elf = image.len >= 4 && memcmp(h, "\x7f" "ELF", 4) == 0;
	bool fatbin = image.len >= 4 && h[0] == 0x50 && h[1] == 0xed && h[2] == 0x55 && h[3] == 0xba;
	bool ptx = image.len >= 2 && (memcmp(h, "//", 2) == 0 || (image.len >= 8 && memcmp(h, ".version", 8) == 0));
	if (!elf && !fatbin && !ptx) {
		error("'%s' is not a cubin: it is neither an ELF file, a fatbin nor PTX text", cubin);
		fail(1);
	}

	Arg *args = xalloc(sizeof *args * (size_t)(f->nparams ? f->nparams : 1));
	if (!size_args(f, args))
		fail(1);
	int nexpect = 0;
	for (int i = 0; i < f->nparams; i++)
		args[i].expect = -1;
	for (int k = 0; k < npairs; k++) {
		const char *opt = pairs[k].kind == 'o' ? "--out" : pairs[k].kind == 'i' ? "--in" : "--expect";
		int at = find_arg(f, args, pairs[k].name, opt, pairs[k].name, pairs[k].file);
		Arg *a = &args[at];
		if (pairs[k].kind == 'o')
			a->out = pairs[k].file;
		else if (pairs[k].kind == 'i')
			a->in = pairs[k].file;
		else {
			int from = find_arg(f, args, pairs[k].file, opt, pairs[k].name, pairs[k].file);
			if (a->expect >= 0) {
				error("--expect %s=...: given twice for '%s'", a->b->name, a->b->name);
				fail(2);
			}
			if (!same_storage(a->b, args[from].b)) {
				error("--expect %s=%s: '%s' is %s and '%s' is %s; a copy's result is compared storage for storage, "
				      "so they need the same dtype, shape and layout", pairs[k].name, pairs[k].file, a->b->name,
				      buffer_type(a->b), args[from].b->name, buffer_type(args[from].b));
				fail(1);
			}
			a->expect = from;
			nexpect++;
		}
	}
	if (nexpect && (no_check || ref_file))
		cli_usage_error(&c, "--expect is the reference: it cannot go with %s", no_check ? "--no-check" : "--ref");
	/* the --in files are read (and refused) before the GPU is looked for;
	 * the random data, seconds for 4 GiB, is made once there is one */
	for (int i = 0; i < f->nparams; i++) {
		Arg *a = &args[i];
		a->init = xalloc(a->bytes);
		if (a->in && !read_input(a))
			fail(1);
	}

	gpu_open();
	for (int i = 0; i < f->nparams; i++) {
		args[i].got = xalloc(args[i].bytes);
		if (!args[i].in)
			emu_fill_random(args[i].b, args[i].init, seed + (uint64_t)i);
	}
	gpu.args = args;
	gpu.nargs = f->nparams;
	CUresult r = cu.cuModuleLoadData(&gpu.mod, image.text);
	if (r != CUDA_SUCCESS) {
		error("cannot load '%s': cuModuleLoadData: %s", cubin, cu_error(r));
		fail(1);
	}
	r = cu.cuModuleGetFunction(&l.fn, gpu.mod, cuda_name(f->name));
	if (r == CUDA_ERROR_NOT_FOUND) {
		error("'%s' has no kernel '%s' (an extern \"C\" __global__ function of that name)", cubin, cuda_name(f->name));
		fail(1);
	}
	cu_check(r, "cuModuleGetFunction");
	if (smem > 48 * 1024)
		CU(cuFuncSetAttribute, (l.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem));
	/* Thread-block clusters: txc-cuda compiles the cluster shape into the
	 * kernel (__cluster_dims__), and a kernel with a compile-time cluster
	 * size is launched in clusters of that size (CUDA C++ Programming
	 * Guide, "Thread Block Clusters"); launch() also names the shape
	 * (cuLaunchKernelEx, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION), so that
	 * the launch says what the program declares. The cubin must say so
	 * too: a kernel compiled without it is refused here. */
	if (f->has_cluster) {
		for (int d = 0; d < 3; d++)
			l.cluster[d] = (unsigned)f->cluster[d];
		static const CUfunction_attribute dims[3] = { CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
		                                              CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
		                                              CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH };
		int got[3];
		for (int d = 0; d < 3; d++)
			CU(cuFuncGetAttribute, (&got[d], dims[d], l.fn));
		if (got[0] != f->cluster[0] || got[1] != f->cluster[1] || got[2] != f->cluster[2]) {
			error("kernel '%s' in '%s' launches in clusters of (%d, %d, %d) CTAs, but the program declares (%" PRId64
			      ", %" PRId64 ", %" PRId64 "): compile the cubin from this program", f->name, cubin, got[0], got[1],
			      got[2], f->cluster[0], f->cluster[1], f->cluster[2]);
			fail(1);
		}
	}

	if (nexpect) {
		/* --expect DST=SRC: DST must end holding SRC's initial data, every
		 * other buffer its own; no emulator */
		for (int i = 0; i < f->nparams; i++) {
			Arg *a = &args[i], *from = a->expect >= 0 ? &args[a->expect] : NULL;
			if (!from || (!a->b->layout && !from->b->layout)) {
				a->ref = from ? from->init : a->init; /* read only: no copy of 4 GiB */
				continue;
			}
			a->ref = xalloc(a->bytes);
			memcpy(a->ref, a->init, a->bytes);
			expected_copy(a, from);
		}
	} else if (!no_check) {
		void **ref = xalloc(sizeof *ref * (size_t)(f->nparams ? f->nparams : 1));
		for (int i = 0; i < f->nparams; i++) {
			args[i].ref = xalloc(args[i].bytes);
			memcpy(args[i].ref, args[i].init, args[i].bytes);
			ref[i] = args[i].ref;
		}
		Diag d;
		diag_init(&d, stderr);
		EmuOptions eo = { .scalars = ref_scalars, .no_race_check = no_race, .schedule = sched,
		                  .sched_seed = sched_seed };
		if (!emu_run(rm, rf, ref, &d, &eo)) {
			error("the emulator failed on kernel '%s' of '%s'", rf->name, ref_file ? ref_file : file);
			fail(1);
		}
	}

	for (int i = 0; i < f->nparams; i++) { /* (a buffer of symbolic extent may have no byte this run) */
		CU(cuMemAlloc_v2, (&args[i].dev, args[i].bytes ? args[i].bytes : 1));
		if (args[i].bytes)
			CU(cuMemcpyHtoD_v2, (args[i].dev, args[i].init, args[i].bytes));
	}
	/* the tensor maps, over the buffers' device addresses */
	if (f->ntmaps) {
		size_t al = _Alignof(CUtensorMap), n = sizeof(CUtensorMap) * (size_t)f->ntmaps;
		gpu.maps = aligned_alloc(al, (n + al - 1) / al * al);
		if (!gpu.maps)
			die("out of memory");
		memset(gpu.maps, 0, n);
	}
	for (int k = 0; k < f->ntmaps; k++) {
		const TensorMap *t = f->tmaps[k];
		int i = 0;
		while (i < f->nparams && f->params[i] != t->buf)
			i++;
		if (i == f->nparams)
			die("tensor map '%s' is over '%s', no buffer parameter of '%s'", t->name, t->buf->name, f->name);
		encode_tmap(f, t, &args[i], &gpu.maps[k]);
	}
	/* in the signature's order: a buffer's device pointer, a scalar's value
	 * (an int64_t cell whose first bytes, on a little-endian host, are the
	 * value at the parameter's width), a tensor map's 128 bytes (passed by
	 * value: the driver copies the struct the pointer points at) */
	void **params = xalloc(sizeof *params * (size_t)(f->nsig ? f->nsig : 1));
	for (int i = 0; i < f->nsig; i++)
		params[i] = f->sig[i] == 'b'   ? (void *)&args[f->sig_at[i]].dev
		            : f->sig[i] == 't' ? (void *)&gpu.maps[f->sig_at[i]]
		                               : (void *)&scalars[f->sig_at[i]];
	l.params = params;
	launch(&l);
	CU(cuCtxSynchronize, ());
	for (int i = 0; i < f->nparams; i++)
		if (args[i].bytes)
			CU(cuMemcpyDtoH_v2, (args[i].got, args[i].dev, args[i].bytes));

	int status = 0;
	if (no_check) {
		printf("RAN kernel %s: %d buffer%s, not checked (--no-check)\n", f->name, f->nparams,
		       f->nparams == 1 ? "" : "s");
	} else {
		Buf shown = {0}, line = {0};
		int nshown = 0;
		int64_t checked = 0;
		for (int i = 0; i < f->nparams; i++) {
			int64_t bad = compare(&args[i], &shown, &nshown);
			checked += args[i].numel;
			if (bad)
				bprintf(&line, "%s%" PRId64 " mismatches in %s", line.n ? ", " : "", bad, args[i].b->name);
		}
		if (line.n) {
			printf("FAIL kernel %s: %s\n%s", f->name, line.s, shown.s ? shown.s : "");
			status = 1;
		} else {
			printf("PASS kernel %s: %d buffer%s, %" PRId64 " elements checked%s\n", f->name, f->nparams,
			       f->nparams == 1 ? "" : "s", checked, nexpect ? " against --expect" : "");
		}
	}
	fflush(stdout);
	for (int i = 0; i < f->nparams; i++)
		if (args[i].out && !write_output(&args[i]))
			fail(1);
	if (reps)
		time_kernel(&l, f->name, args, f->nparams, reps);
	fflush(stdout);
	fail(status);
}
