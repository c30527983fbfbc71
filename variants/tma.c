/* The tma family: one thread copies a global <-> shared region with bulk
 * tensor copies through a tensor map (doc/txir.md, "TMA"). */
#include "family.h"

const char *pred_single_thread(const Try *t)
{
	if (t->call->es != ES_THREAD)
		return xprintf("%s is issued by one thread: write the copy at thread scope (Tx.copy_async inside "
		               "`if tid == 0:`), not at %s scope", t->va->name, exec_scope_names[t->call->es]);
	return NULL;
}

static const char *check(const Plan *p, const Value *dst)
{
	(void)p, (void)dst;
	return "the tma variant is not implemented yet";
}

const Family family_tma = { NULL, NULL, NULL, check, NULL, NULL };
