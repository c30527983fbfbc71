/* The emulator: runs a verified txc program, before or after lowering, on
 * the CPU. Every thread of every CTA runs the kernel body in lockstep
 * (program order, all active threads per statement, thread order within a
 * statement), with shared memory per CTA, registers per thread, barriers,
 * and each builtin with its PTX meaning. It is the reference that the GPU
 * launcher (txc-run) and CI compare against, so data movement is bit-exact
 * and every problem (out-of-bounds or misaligned access, barrier in
 * divergent code, a builtin not emulated yet) is a diagnostic, never a
 * crash:
 *
 *     FILE:LINE:COL: error: thread (cta 3, thread 17): WHAT
 *
 * Asynchronous copies (T.ptx.cp_async and the cp.async kind of copy_async)
 * are performed when a cp.async.wait_group retires their group; until then
 * their destinations read as 0xAB bytes, so that a missing wait shows.
 * mbarriers keep their state in their own 8 bytes of shared memory; a
 * wait for a phase that has not completed when it runs is an error, since
 * in lockstep no other thread can arrive before it.
 *
 * Lockstep in program order is one legal schedule of a race-free program;
 * races between threads in shared memory are detected with vector clocks
 * (emu-race.c) and reported as errors naming both threads and lines. */
#ifndef TXC_EMU_H
#define TXC_EMU_H

#include "ir.h"

typedef struct EmuOptions {
	bool trace;        /* print each executed statement, per CTA */
	int64_t max_steps; /* statement executions (summed over threads) before
	                    * the run is stopped with an error; <= 0: 10^9 */
	FILE *trace_out;   /* where the trace goes; NULL: stderr */
	const int64_t *scalars; /* the values of f->scalars, the scalar kernel
	                         * parameters (wrapped to their dtypes); NULL
	                         * when the kernel has none */
	bool unchecked_async;   /* no error for an access of shared memory that an
	                         * asynchronous copy still owns: the poison shows */
	uint32_t *tmem_out;     /* NULL, or 128 x 512 words (lane-major) that receive
	                         * the tensor memory of CTA (0, 0, 0): each column
	                         * as it was when a tcgen05.dealloc freed it (the
	                         * last such dealloc); columns never freed keep
	                         * what the caller put there */
	bool *tmem_taken;       /* with tmem_out: set when a dealloc of CTA 0 took a snapshot */
	bool no_race_check;     /* no shared-memory race checking (emu-race.c) */
	int schedule;           /* EMU_SCHED_*: the order of the threads running one statement */
	uint64_t sched_seed;    /* EMU_SCHED_RANDOM's seed */
} EmuOptions;

/* Schedules: lockstep in thread order (the default), each statement's
 * threads in reverse order, or in a random order from a seed (and the
 * two sides of an if in either order). */
enum { EMU_SCHED_LOCKSTEP, EMU_SCHED_REVERSE, EMU_SCHED_RANDOM };
/* "lockstep", "reverse", "random" or "random:SEED" into *sched, *seed;
 * false when it is none of these. */
bool emu_sched_parse(const char *s, int *sched, uint64_t *seed);

/* Runs kernel f of module m (after verify_module) over its whole grid.
 * params[i] is the storage of f->params[i]: emu_param_bytes(f->params[i])
 * bytes, read and written in place. opt may be NULL (the defaults). On an
 * error, reports it through d and returns false; the parameters then hold
 * whatever the run wrote before it stopped. */
bool emu_run(Module *m, Func *f, void **params, Diag *d, const EmuOptions *opt);

/* Fills a parameter buffer with seeded random non-zero data of its dtype:
 * floats are normal numbers (no NaN, infinity, zero or subnormal; 16- to
 * 64-bit floats within 2^-8 .. 2^8 in magnitude), integers are non-zero,
 * bools are true. The bytes depend only on the seed, the buffer's name,
 * dtype and storage size, so the same program gets the same inputs before
 * and after lowering, and two parameters of one run get different data. */
void emu_fill_random(const Buffer *b, void *data, uint64_t seed);

/* Bytes of a parameter's storage: buffer_storage(b) * dtype_bytes(dtype);
 * -1 when that overflows. */
int64_t emu_param_bytes(const Buffer *b);

/* The shape a parameter has in a .npy file: its logical shape when its
 * layout is the default row-major one, else one dimension of its storage.
 * shape needs room for max(b->ndim, 1) entries; returns the number of
 * dimensions. */
int emu_param_shape(const Buffer *b, int64_t *shape);

/* The values of f's scalar parameters (f->scalars) from n texts
 * NAME=INTEGER (decimal, or 0x hex), in out[i] for f->scalars[i]. NULL, or
 * the error: a name that is no scalar parameter, a value that is not an
 * integer of the parameter's dtype, a parameter given twice or not at all. */
const char *emu_scalar_args(const Func *f, char *const *args, int n, int64_t *out);

/* Gives each parameter buffer of symbolic extent (T.match_buffer(h, (m,
 * ...))) its extent for this run: shape[0] becomes m's value, from
 * scalars (f->scalars' values), so that storage sizes, bounds and .npy
 * shapes are the run's. NULL, or the error: a value below 0 or above the
 * bound the static checks used. */
const char *emu_bind_extents(Func *f, const int64_t *scalars);

/* The 64-bit FNV-1a hash of n bytes: the checksum txc-emu prints. */
uint64_t emu_fnv1a(const void *data, size_t n);

#endif
