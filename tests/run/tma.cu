// tma.cu: the CUDA side of tma.tx, for tests/run.t (nvcc -arch=sm_90a
// -cubin): the kernel takes tma.tx's buffers, then its two tensor maps by
// value, as txc-run passes them. Thread 0 loads rows 32..63 of A through
// A_map (one 64 x 32 box, 128-byte swizzle) into shared memory, completing
// on an mbarrier, then stores the tile through A_map at rows 0..31, and
// prefetches B_map's first box to L2 (which changes no data). So A's rows
// 0..31 become rows 32..63, as tests/run.t's reference says, and a map
// that the driver encoded from the wrong address or passed in the wrong
// place shows as mismatches or a fault. The PTX forms are ptx.md's.
#include <cuda.h>

extern "C" __global__ void tma(unsigned short *A, float *B, const __grid_constant__ CUtensorMap A_map,
                               const __grid_constant__ CUtensorMap B_map)
{
	__shared__ __align__(1024) unsigned short S[32 * 64];
	__shared__ __align__(8) unsigned long long bar;
	unsigned s = (unsigned)__cvta_generic_to_shared(S), b = (unsigned)__cvta_generic_to_shared(&bar);
	(void)A, (void)B;
	if (threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(32 * 64 * 2) : "memory");
		asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
		             " [%0], [%1, {%2, %3}], [%4];"
		             ::"r"(s), "l"(&A_map), "r"(0), "r"(32), "r"(b) : "memory");
	}
	unsigned done = 0;
	while (!done)
		asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
		             : "=r"(done) : "r"(b) : "memory");
	if (threadIdx.x == 0) {
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
		asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
		             ::"l"(&A_map), "r"(0), "r"(0), "r"(s) : "memory");
		asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];"
		             ::"l"(&B_map), "r"(0), "r"(0), "r"(0) : "memory");
		asm volatile("cp.async.bulk.commit_group;" ::: "memory");
		asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
	}
}
