#include "ir.h"
bool verify_module(Module *m, Diag *d) { (void)m; (void)d; return true; }
