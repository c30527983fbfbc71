/* NumPy .npy files: the inputs and outputs of txc-emu and txc-run.
 *
 * Files are written in format version 1.0 (2.0 when the header would not
 * fit), C order, little-endian; versions 1.0 to 3.0 are read. The dtype
 * descriptors are NumPy's (`|b1`, `|i1`, `|u1`, `<i2`, `<u2`, `<i4`, `<u4`,
 * `<i8`, `<u8`, `<f2`, `<f4`, `<f8`). NumPy has no bfloat16 or float8: a
 * bfloat16 array is stored as `<u2` and a float8 (e4m3fn, e5m2) array as
 * `|u1`, holding the raw bits (view them with ml_dtypes, or shift a
 * bfloat16's bits left by 16 to get a float32). */
#ifndef TXC_NPY_H
#define TXC_NPY_H

#include "ir.h"

/* The descriptor of a dtype in a .npy header ("<f2", "|u1", ...); NULL for
 * a dtype with no array form (handle). */
const char *npy_descr(int dtype);

/* Reads an array of `dtype` and `shape` (ndim dimensions) into data,
 * which has `bytes` bytes; the file's dtype and shape must match exactly.
 * On failure returns false and sets *err to a message (which lives until
 * exit) naming the file and what differs. */
bool npy_read(const char *path, int dtype, const int64_t *shape, int ndim, void *data, size_t bytes, char **err);

/* Writes data (the product of shape elements of dtype) to path, atomically:
 * a failure leaves no partial file. */
bool npy_write(const char *path, int dtype, const int64_t *shape, int ndim, const void *data, char **err);

#endif
