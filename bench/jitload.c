/* bench/jitload PTX CUBIN [N]: how long the CUDA driver takes to load a
 * kernel: cuModuleLoadData of the cubin, and of the PTX (the driver's JIT
 * compiles it; run with CUDA_CACHE_DISABLE=1 so that every load compiles),
 * the median of N loads each (default 20), in milliseconds, after one
 * context is made. Loads libcuda.so.1 with dlopen; builds with any C
 * compiler and the CUDA Toolkit's cuda.h: bench/jit-time.sh. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static CUresult (*init)(unsigned), (*devget)(CUdevice *, int), (*ctxcreate)(CUcontext *, unsigned, CUdevice),
	(*load)(CUmodule *, const void *), (*unload)(CUmodule);

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	if (!p) {
		fprintf(stderr, "jitload: libcuda.so.1 has no %s\n", name);
		exit(3);
	}
	return p;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "jitload: cannot read %s\n", path);
		exit(1);
	}
	s[n] = 0;
	fclose(f);
	return s;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* the median ms of n loads of image */
static double timed(const char *what, const void *image, int n)
{
	double *t = malloc(sizeof *t * (size_t)n);
	for (int i = 0; i < n; i++) {
		CUmodule m;
		double t0 = now();
		CUresult r = load(&m, image);
		t[i] = now() - t0;
		if (r != CUDA_SUCCESS) {
			fprintf(stderr, "jitload: cuModuleLoadData of the %s: error %d\n", what, (int)r);
			exit(1);
		}
		unload(m);
	}
	qsort(t, (size_t)n, sizeof *t, cmp);
	double m = t[n / 2];
	free(t);
	return m;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: jitload PTX CUBIN [N]\n");
		return 2;
	}
	int n = argc > 3 ? atoi(argv[3]) : 20;
	if (n < 1)
		n = 1;
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "jitload: no GPU: %s\n", dlerror());
		return 3;
	}
	init = sym(h, "cuInit");
	devget = sym(h, "cuDeviceGet");
	ctxcreate = sym(h, "cuCtxCreate_v2");
	load = sym(h, "cuModuleLoadData");
	unload = sym(h, "cuModuleUnload");
	CUdevice d;
	CUcontext c;
	if (init(0) != CUDA_SUCCESS || devget(&d, 0) != CUDA_SUCCESS || ctxcreate(&c, 0, d) != CUDA_SUCCESS) {
		fprintf(stderr, "jitload: no GPU: cannot make a context\n");
		return 3;
	}
	char *ptx = slurp(argv[1]), *cubin = slurp(argv[2]);
	printf("load cubin %.2f ms, load PTX (driver JIT) %.2f ms (median of %d)\n", timed("cubin", cubin, n),
	       timed("PTX", ptx, n), n);
	return 0;
}
