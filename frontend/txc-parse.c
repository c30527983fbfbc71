/* txc-parse: reads a txc program, checks it, prints its canonical IR. */
#include "ir.h"

int main(int argc, char **argv)
{
	const char *target = NULL;
	bool no_verify = false, list = false, tvm = false, ptx = false, plans = false, vars = false, tc = false;
	Opt opts[] = {
		{ "--target", "ARCH", "reject intrinsics that ARCH lacks (sm_80, sm_90, sm_90a, sm_100a)", &target, NULL },
		{ "--no-verify", NULL, "print the syntax tree without checking names, dtypes and layouts", NULL, &no_verify },
		{ "--intrinsics", NULL, "print the table of builtins (ir/intrin.def) as Markdown and exit", NULL, &list },
		{ "--tvm", NULL, "print the table of TVM's spellings txc honours or refuses (ir/tvm.def) as Markdown and exit", NULL, &tvm },
		{ "--ptx", NULL, "print the table of the PTX dialect (ir/ptx.def) as Markdown and exit", NULL, &ptx },
		{ "--variants", NULL, "print the table of copy variants (ir/variant.def) as Markdown and exit", NULL, &vars },
		{ "--plans", NULL, "print the table of a plan's fields (ir/plan.def) as Markdown and exit", NULL, &plans },
		{ "--tcgen05", NULL, "print the table of tcgen05.ld/st shapes (ir/tcgen05.def) as Markdown and exit", NULL, &tc },
		{ 0 },
	};
	Cli c = { .prog = "txc-parse", .opts = opts,
	          .summary = "Parses a txc program (doc/txir.md), verifies it and prints its canonical IR." };
	cli_parse(&c, argc, argv);
	if (list || tvm || ptx || plans || vars || tc) {
		Buf b = {0};
		if (list)
			print_intrinsics(&b);
		else if (tvm)
			print_tvm(&b);
		else if (tc)
			print_tcgen05(&b);
		else if (ptx)
			print_ptx(&b);
		else if (plans)
			print_plan_fields(&b);
		else
			print_variants(&b);
		return write_file(c.prog, c.output, b.s, b.n) ? 0 : 1;
	}
	int tg = TG_ANY;
	if (target && (tg = target_lookup(target)) < 0)
		cli_usage_error(&c, "unknown target '%s' (expected sm_80, sm_90, sm_90a or sm_100a)", target);
	if (no_verify) {
		Module *m = load_module(c.prog, c.input, tg, false);
		if (!m)
			return 1;
		Buf out = {0};
		if (c.locations)
			print_module_locations(&out, m);
		else
			print_module(&out, m);
		return write_file(c.prog, c.output, out.s ? out.s : "", out.n) ? 0 : 1;
	}
	return run_pass(&c, tg, NULL);
}
