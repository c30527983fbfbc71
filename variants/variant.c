/* The variants of the tile ops (ir/variant.def), their families
 * (ir/family.def) and completions (ir/completion.def), and TVM's names of
 * variants (ir/tvm_variant.def). */
#include <string.h>

#include "family.h"

const Variant variants[VA_COUNT] = {
#define VARIANT(id, op, name, prio, family, moves, widths, access, done, preds) \
	[id] = { name, op, prio, family, moves, widths, access, done, preds },
#include "variant.def"
#undef VARIANT
};

const char *const family_names[FAM_COUNT] = {
#define FAMILY(id, name, hooks) [id] = name,
#include "family.def"
#undef FAMILY
};

const Family *const families[FAM_COUNT] = {
#define FAMILY(id, name, hooks) [id] = &hooks,
#include "family.def"
#undef FAMILY
};

const Completion completions[DONE_COUNT] = {
#define COMPLETION(id, name, how, emulated) [id] = { name, how, emulated },
#include "completion.def"
#undef COMPLETION
};

const char *const memory_class_names[MC_COUNT] = {
	[MC_GLOBAL] = "global", [MC_SHARED] = "shared", [MC_LOCAL] = "local", [MC_TMEM] = "tmem",
};

int memory_class(int sc)
{
	int f = scopes[sc].flags;
	return f & SCF_GLOBAL ? MC_GLOBAL : f & SCF_SHARED ? MC_SHARED : f & SCF_THREAD ? MC_LOCAL : MC_TMEM;
}

bool variant_moves(const Variant *v, int src, int dst)
{
	return v->moves & (1u << (memory_class(src) * MC_COUNT + memory_class(dst)));
}

int variant_done(const Variant *v, int dst)
{
	return (int)(v->done >> (4 * memory_class(dst)) & 15u);
}

bool variant_width(const Variant *v, int64_t bits)
{
	for (int k = 0, b = 8; k < 6; k++, b *= 2)
		if (b == bits)
			return v->widths & (1u << k);
	return false;
}

const char *variant_widths(const Variant *v)
{
	Buf b = {0};
	bputs(&b, "");
	for (int k = 5; k >= 0; k--)
		if (v->widths & (1u << k))
			bprintf(&b, "%s%d", b.n ? " " : "", 8 << k);
	return b.s;
}

const char *variant_moves_str(const Variant *v)
{
	Buf b = {0};
	bputs(&b, "");
	for (int s = 0; s < MC_COUNT; s++)
		for (int d = 0; d < MC_COUNT; d++)
			if (v->moves & (1u << (s * MC_COUNT + d)))
				bprintf(&b, "%s%s -> %s", b.n ? ", " : "", memory_class_names[s], memory_class_names[d]);
	return b.s;
}

int variant_for(int op, int src, int dst, bool mbar)
{
	int best = -1;
	for (int i = 0; i < VA_COUNT; i++) {
		const Variant *v = &variants[i];
		if (v->op != op || !variant_moves(v, src, dst) || (variant_done(v, dst) == DONE_MBAR_TX) != mbar)
			continue;
		if (best < 0 || v->priority > variants[best].priority ||
		    (v->priority == variants[best].priority && strcmp(v->name, variants[best].name) < 0))
			best = i;
	}
	return best;
}

int variant_lookup(int op, const char *name)
{
	for (int i = 0; i < VA_COUNT; i++)
		if (variants[i].op == op && (variants[i].name == name || /* the passes write the table's own string */
		                             (variants[i].name[0] == name[0] && strcmp(variants[i].name, name) == 0)))
			return i;
	return -1;
}

const TvmVariant tvm_variants[] = {
#define TVM_VARIANT(name, op, va, bytes, why) { name, op, va, bytes, why },
#include "tvm_variant.def"
#undef TVM_VARIANT
	{ 0 },
};

const TvmVariant *tvm_variant_lookup(int op, const char *name)
{
	for (const TvmVariant *t = tvm_variants; t->name; t++)
		if (t->op == op && strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

void print_variants(Buf *b)
{
	bputs(b, "| op | variant | priority | family | moves | access widths (bits) | completion |\n"
	         "|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < VA_COUNT; i++) {
		const Variant *v = &variants[i];
		bprintf(b, "| `%s` | `%s` | %d | %s | %s | %s | ", intrins[v->op].path + 2, v->name, v->priority,
		        family_names[v->family], v->moves == MV_ANY ? "any memories" : variant_moves_str(v),
		        v->widths ? variant_widths(v) : v->access < 0 && v->family != FAM_FALLBACK ? "whole boxes" : "one element");
		if (!v->done)
			bputs(b, completions[DONE_NONE].name);
		bool any = false;
		for (int mc = 0; mc < MC_COUNT; mc++) {
			int d = (int)(v->done >> (4 * mc) & 15u);
			if (d)
				bprintf(b, "%sinto %s: %s (%s)", any ? "; " : "", memory_class_names[mc], completions[d].name,
				        completions[d].how);
			any |= d != 0;
		}
		bputs(b, " |\n");
	}
}
