/* The passes and backends as functions, for the driver's in-process chain
 * (driver/txc.c). Each program's file defines its function beside its
 * main; built with -DTXC_CHAIN (the Makefile's $(BUILD)/chain/ objects,
 * linked into txc) the main is left out. A pass takes a verified Module
 * and changes it in place; run alone, ir/cli.c's run_pass reads, verifies
 * and prints around the same function. */
#ifndef TXC_CHAIN_H
#define TXC_CHAIN_H

#include "ir.h"

bool txc_align(Module *m, Diag *d);
bool txc_vectorize(Module *m, Diag *d);
bool txc_partition(Module *m, Diag *d);
bool txc_dispatch(Module *m, Diag *d, bool explain);
/* The target txc_dispatch and txc_lower choose variants for (TG_ANY:
 * any); the programs' --target (variants/family.h). */
extern int variant_target;
bool txc_lower(Module *m, Diag *d);
/* The backends: the text of a lowered, verified Module (verified with
 * prove_accesses set, as the programs read it) for target tg (arch its
 * name) appended to out; false after reporting errors (to stderr, like
 * the programs: find_kernel's message names m's source). `from` is the
 * source the text's first line names: the program's input file, or for
 * "<stdin>" the file of the location comments (#@) it read. */
bool txc_cuda_emit(Module *m, int tg, const char *arch, const char *from, Diag *d, Buf *out);
bool txc_ptx_emit(Module *m, int tg, const char *arch, const char *from, Diag *d, Buf *out);

#endif
