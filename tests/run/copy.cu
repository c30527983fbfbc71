// copy.cu: the CUDA side of copy.tx, for tests/run.t (nvcc -arch=sm_90a
// -cubin). The elements are float16, moved as 16-bit words. `copy` copies
// each CTA's 128 rows of A to B, one row per thread; `copy_half` is wrong on
// purpose: it copies only the first 64 of the 128 columns of each row.

extern "C" __global__ void copy(const unsigned short *A, unsigned short *B)
{
	int row = blockIdx.x * 128 + threadIdx.x;
	for (int k = 0; k < 128; k++)
		B[row * 128 + k] = A[row * 128 + k];
}

extern "C" __global__ void copy_half(const unsigned short *A, unsigned short *B)
{
	int row = blockIdx.x * 128 + threadIdx.x;
	for (int k = 0; k < 64; k++)
		B[row * 128 + k] = A[row * 128 + k];
}
