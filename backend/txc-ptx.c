/* txc-ptx: the PTX backend. Reads the same verified, lowered txc program as
 * txc-cuda (doc/txir.md, section 12) and writes one PTX module that ptxas
 * assembles without nvcc (doc/txc-ptx.md): per kernel a .visible .entry
 * with txc-cuda's name, parameter list and dynamic shared memory, so that
 * txc-run loads either cubin the same way.
 *
 * Values live in virtual registers (%r b32, %rd b64, %p pred, %h b16,
 * %f f32, %fd f64), which ptxas allocates. Expressions follow the C
 * semantics of the code txc-cuda writes (integer promotions, the usual
 * arithmetic conversions, 16-bit floats through float), so both backends
 * compute the same values. Addresses are typed by their state space:
 * shared addresses are 32-bit offsets into the shared window, global ones
 * 64-bit global addresses, local ones 64-bit local-window addresses.
 * Loops stay loops (a label, a compare, a branch back); a T.unroll loop
 * with constant bounds is unrolled here (nvcc unrolls it in the CUDA path).
 * The data-movement instructions are the ones txc-cuda's helpers emit
 * (tests/ptx.t compares both PTX texts). What it cannot emit yet is an
 * error at the construct, "not supported by txc-ptx yet". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "lowered.h"
#include "chain.h"

#ifndef TXC_VERSION
#define TXC_VERSION "0.1"
#endif

/* The .version each target's module declares: the PTX ISA that has every
 * instruction txc emits for it (shared/reference/ptx.md, "Targets and PTX
 * versions"): cp.async with src-size and L2 hints (7.5) on sm_80; the
 * shared::cta TMA destination (8.6) on sm_90 and sm_90a; 256-bit global
 * ld/st (8.8) and tcgen05 on sm_100a. ptxas 13.0 accepts up to 9.0. */
static const char *const ptx_version[TG_COUNT] = {
	[TG_ANY] = "8.8", [TG_SM80] = "7.5", [TG_SM90] = "8.6", [TG_SM90A] = "8.6", [TG_SM100A] = "8.8",
};

enum { SP_NONE, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM };

/* A value: a register or an immediate, of a dtype (DT_HANDLE: an address in
 * state space sp). */
typedef struct Val {
	const char *s;
	int dt;
	int sp;
	bool imm;
	int64_t i;
} Val;

/* A name in scope: a buffer, a runtime value, or a constant. id: which
 * bind() made it (a Bind is reused once unbound; a memo notes the id). */
typedef struct Bind {
	const char *name;
	Buffer *buf;
	bool is_int, is_str, has_val;
	uint64_t id;
	int64_t ival;
	const char *str;
	Val v;
} Bind;

/* The names in scope: per name's text a cell holding its innermost Bind;
 * a string's cell found by its address while it is in recent (the IR's
 * names are arena strings, never rewritten or freed, so one address is one
 * text), else by its text, hashed once for the look-up and the insertion;
 * the binds in order, each with the Bind it hides, to unbind back to a
 * mark; the Binds unbound, for bind() to take again (nothing keeps one
 * after its unbinding: a memo keeps its id). */
typedef struct NameCell {
	struct Bind *top;
	Buffer *wbuf;   /* the buffer the name denotes to scan_stmt in this kernel */
} NameCell;
enum { NAME_RECENT = 256 };
typedef struct NameScope {
	struct NameText { const char *text; NameCell *c; unsigned h; } *texts; /* a name's text -> its NameCell */
	int ntexts, textcap;
	struct { const char *name; NameCell *c; } recent[NAME_RECENT]; /* by the string's address */
	struct Shadow { NameCell *c; struct Bind *hidden; } *v;
	int n, cap;
	struct Bind **free;
	int nfree, freecap;
	uint64_t nbinds;  /* bind()s so far: the next id */
} NameScope;

enum { R_P, R_H, R_R, R_RD, R_F, R_FD, R_N };
enum { CSE_MAX = 4096, CSE_CHUNK = 128 }; /* cse's entries at most, and per chunk (struct CseSlot) */
enum { SUM_SETS = 32, SUM_LIKES = 2 };
static const char *const reg_prefix[R_N] = { "%p", "%h", "%r", "%rd", "%f", "%fd" };
static const char *const reg_type[R_N] = { ".pred", ".b16", ".b32", ".b64", ".f32", ".f64" };

typedef struct Gen {
	Low low;     /* its names and module, for lowered.c */
	Module *m;
	Diag *d;
	Func *f;
	int target;
	Buf *out;        /* the kernel's text being written: its newest piece (body_piece) */
	Buf *pieces;     /* its pieces before */
	int npieces;
	NameScope binds;
	int nreg[R_N];
	struct RegNum { char d[32], *q; } regnum[R_N]; /* nreg[]'s decimal digits (reg_digits) */
	int nlabel;
	bool *written;   /* per f->bufs entry: stored to, or its address given to an instruction (so far: scan_stmt) */
	bool *ncd;       /* per f->bufs entry: a load took .nc from it (note_nc) */
	bool drop;       /* a buffer written after a load took .nc from it (drop_nc) */
	NameCell **wcells; /* the cells given a wbuf in this kernel, to clear for the next */
	int nwcells;
	bool scanning;   /* stmt() reads each statement for its writes (not again on a later trip of a loop) */
	struct NcSite { uint32_t off; int buf; } **ncs; /* the loads given .nc (note_nc), in chunks of NC_CHUNK */
	int nncs, ncchunks;
	int ncpiece;     /* the piece of the last of them */
	Val *base;       /* per f->bufs entry: the root's base address */
	bool wide;       /* offsets in 64 bits: one may pass 2^31 */
	bool smem;       /* the module declares smem_raw */
	Val smem_base;
	Buf locals;      /* .local declarations of the kernel */
	Buf key;         /* pure()'s instruction text, the key of cse */
	Pos at;          /* the statement being emitted, for errors without an expression */
	const char **tmap_param; /* per f->tmaps entry: its .param name */
	bool *local_done;        /* per f->bufs entry: its .local array is declared */
	struct CseSlot *cse[CSE_MAX / CSE_CHUNK]; /* pure instruction (its destination as \1) -> its register, since the last label */
	int ncse;                /* the entries (of this epoch) */
	uint32_t *cseat;         /* cse's hash table: per slot 0 (free) or its entry's index + 1 and a tag */
	int cseatcap;
	struct PreSlot *pre;     /* pure()'s format and operands -> the register cse gave them, as long as cse */
	int npre, precap;        /* npre: the entries of this generation */
	unsigned pregen;         /* pre's generations so far: a forget() or a full pre starts one */
	Map mutregs;             /* the registers assigned more than once (mutable variables, loop counters) */
	struct SumSlot *sums;    /* offset_addr's terms of the program's offsets, the latest few (program_terms) */
	unsigned char sumlru[SUM_SETS]; /* per set of sums: the way used last */
	struct SumLike *likes;   /* the terms of the offsets program_terms summed last, for those alike (like_sum) */
	int nlike;               /* likes in use */
	unsigned char likeord[SUM_LIKES]; /* their indices, the one used last first */
	struct ShapeSlot *shape; /* their terms' memos by shape */
	int nshape, shapecap;
	struct Recent { const Expr *e; int hint; struct Shape *x; } recent[4]; /* the shapes last found (shape_of) */
	int nrecent;
	struct Shape *first_shape; /* the Shape of the first term that has one in the offset before */
	struct AddrSlot *addrs;  /* offset_addr's register sums this epoch (addr_slot) */
	int naddrs, addrcap;
	PtrMap divs;             /* binary()'s // and %: Expr -> whether its operands are >= 0 and > 0 */
	PtrMap decls;            /* the kernel's buffers by their declaring call (the first such buffer) */
	bool decl_id[IN_COUNT];  /* the builtins of those calls */
	struct { const Buffer *b; int i; } bufat[16]; /* buf_index's answers, a slot per address */
	unsigned epoch;          /* forget()s so far: pure()'s registers are found again within one */
	unsigned nimpure;        /* instructions and registers made other than by pure() */
	bool noting;             /* lookup() notes the names it finds in deps */
	struct Dep { NameCell *cell; uint64_t id; const char *vs; int64_t ival; } *deps;
	int ndeps;
	struct CopyHead *heads;  /* copy_bytes' texts by kind (copy_head) */
	int nheads;
} Gen;
enum { COPY_HEADS = 8 };

/* ---- dtypes and registers ----------------------------------------------------------- */

static bool is_int(int dt) { return low_known(dt) && (dtypes[dt].kind == DK_INT || dtypes[dt].kind == DK_UINT); }
static bool is_uint(int dt) { return low_known(dt) && dtypes[dt].kind == DK_UINT; }
static bool is_float(int dt) { return low_known(dt) && dtypes[dt].kind == DK_FLOAT; }
static int bits(int dt) { return low_known(dt) ? dtypes[dt].bits : 32; }

static int reg_class(int dt)
{
	if (dt == DT_BOOL)
		return R_P;
	if (low_is_half(dt))
		return R_H;
	if (dt == DT_FLOAT32)
		return R_F;
	if (dt == DT_FLOAT64)
		return R_FD;
	if (dt == DT_HANDLE || dt == DT_INT64 || dt == DT_UINT64)
		return R_RD;
	return R_R;
}

/* The type suffix of arithmetic on dt (ints below 32 bits: computed in 32). */
static const char *ty(int dt)
{
	switch (dt) {
	case DT_INT64: return "s64";
	case DT_UINT64: case DT_HANDLE: return "u64";
	case DT_FLOAT32: return "f32";
	case DT_FLOAT64: return "f64";
	case DT_FLOAT16: return "f16";
	case DT_BFLOAT16: return "bf16";
	default: return is_uint(dt) || dt == DT_BOOL ? "u32" : "s32";
	}
}

/* The type of a load or store of one element of dt. */
static const char *mem_ty(int dt)
{
	switch (dt) {
	case DT_BOOL: case DT_UINT8: case DT_FP8E4M3: case DT_FP8E5M2: return "u8";
	case DT_INT8: return "s8";
	case DT_INT16: return "s16";
	case DT_UINT16: return "u16";
	case DT_FLOAT16: case DT_BFLOAT16: return "b16";
	case DT_INT32: return "s32";
	case DT_UINT32: return "u32";
	case DT_INT64: return "s64";
	case DT_FLOAT32: return "f32";
	case DT_FLOAT64: return "f64";
	default: return "u64";
	}
}

/* The decimal digits of n, ending at end; their start (two a step). */
static char *udigits(char *end, uint64_t n)
{
	static const char two[200] =
		"0001020304050607080910111213141516171819"
		"2021222324252627282930313233343536373839"
		"4041424344454647484950515253545556575859"
		"6061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	for (; n > UINT32_MAX; n /= 100)
		end -= 2, memcpy(end, two + 2 * (n % 100), 2);
	uint32_t m = (uint32_t)n; /* the rest in 32 bits: a cheaper division */
	for (; m >= 100; m /= 100)
		end -= 2, memcpy(end, two + 2 * (m % 100), 2);
	n = m;
	if (n >= 10)
		end -= 2, memcpy(end, two + 2 * n, 2);
	else
		*--end = (char)('0' + n);
	return end;
}

/* The decimal digits q..end of a number, one more (a new digit before q
 * where all are nines): their start. */
static char *dec_next(char *q, char *end)
{
	char *p = end;
	while (p > q && p[-1] == '9')
		*--p = '0';
	if (p > q)
		p[-1]++;
	else
		*--q = '1';
	return q;
}

/* The next register number of class cls: nreg[cls] counted up, its
 * digits (d[q..16], NULs after them: at most 10, read 12 at a time) too,
 * not made again from the number. */
static inline const char *reg_digits(Gen *g, int cls)
{
	struct RegNum *n = &g->regnum[cls];
	if (!g->nreg[cls]++)
		memset(n, 0, sizeof *n), n->q = n->d + 15, *n->q = '1';
	else
		n->q = dec_next(n->q, n->d + 16);
	return n->q;
}

/* "%r12": the class's prefix and the next number (by hand: a register is
 * made for most instructions). The prefix's four bytes (its NULs padding)
 * and then twelve from the digits on are copied whole: at most 3 + 10
 * characters and the NUL, in the 16 bytes xalloc gives. */
static const char *newreg_pure(Gen *g, int cls)
{
	static const char prefix[R_N][4] = { "%p", "%h", "%r", "%rd", "%f", "%fd" };
	const char *q = reg_digits(g, cls);
	char *r = xalloc(16);
	memcpy(r, prefix[cls], 4);
	memcpy(r + (prefix[cls][2] ? 3 : 2), q, 12);
	return r;
}
/* The length of the register newreg_pure made last of class cls */
static inline size_t reg_len(const Gen *g, int cls)
{
	return (size_t)(reg_prefix[cls][2] ? 3 : 2) + (size_t)(g->regnum[cls].d + 16 - g->regnum[cls].q);
}

/* A register of an instruction other than pure()'s (offset_addr keeps no
 * term that made one) */
static const char *newreg(Gen *g, int cls)
{
	g->nimpure++;
	return newreg_pure(g, cls);
}
static Val reg(Gen *g, int dt) { return (Val){ .s = newreg(g, reg_class(dt)), .dt = dt }; }

/* An immediate's text, one string per value (the same operand is the same
 * address, which pure()'s first look-up keys on); the arena keeps them. */
struct ImmText { int64_t v; const char *s; };

static const char *imm_text(int64_t v)
{
	static struct ImmText *t;
	static int n, cap;
	if (2 * (n + 1) > cap) {
		int ncap = cap ? 2 * cap : 256;
		struct ImmText *nt = xalloc(sizeof *nt * (size_t)ncap);
		for (int i = 0; i < cap; i++)
			if (t[i].s) {
				unsigned j = (unsigned)(((uint64_t)t[i].v * 0x9E3779B97F4A7C15u) >> 32) & (unsigned)(ncap - 1);
				while (nt[j].s)
					j = (j + 1) & (unsigned)(ncap - 1);
				nt[j] = t[i];
			}
		t = nt, cap = ncap;
	}
	unsigned j = (unsigned)(((uint64_t)v * 0x9E3779B97F4A7C15u) >> 32) & (unsigned)(cap - 1);
	while (t[j].s && t[j].v != v)
		j = (j + 1) & (unsigned)(cap - 1);
	if (!t[j].s) {
		t[j].v = v;
		t[j].s = xprintf("%lld", (long long)v);
		n++;
	}
	return t[j].s;
}

static Val imm(int64_t v, int dt) { return (Val){ .s = imm_text(v), .dt = dt, .imm = true, .i = v }; }

static void ins(Gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ins(Gen *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g->nimpure++;
	bputc(g->out, '\t');
	vbprintf(g->out, fmt, ap);  /* a tcgen05.ld/st's 128 registers too */
	va_end(ap);
	bputc(g->out, '\n');
}

/* The instructions written most (a copy's load and store, pure()'s new
 * ones) are put together by hand, their pieces copied into the output in
 * place (broom), not read through a format. */

/* memcpy of the few bytes most pieces of a line are: each size a copy of
 * known length (a move or two), not a call */
static inline __attribute__((always_inline)) void copy_short(char *o, const char *s, size_t k)
{
	switch (k) {
#define CASE(n) case n: memcpy(o, s, n); return;
	CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
	CASE(9) CASE(10) CASE(11) CASE(12) CASE(13) CASE(14) CASE(15) CASE(16)
	CASE(17) CASE(18) CASE(19) CASE(20) CASE(21) CASE(22) CASE(23) CASE(24)
	CASE(25) CASE(26) CASE(27) CASE(28) CASE(29) CASE(30) CASE(31) CASE(32)
#undef CASE
	default: memcpy(o, s, k);
	}
}

/* broom(b, n), the room there mostly is found here, not in a call */
static inline char *room(Buf *b, size_t n)
{
	return b->n + n < b->cap ? b->s + b->n : broom(b, n);
}

static const char *label(Gen *g) { g->nimpure++; return xprintf("$L__%d", ++g->nlabel); }

/* An entry of pure()'s first look-up (below): 64 bytes. The operands
 * past the format's are 0 (the formats of this file have at most 5). gen:
 * the generation of pre it was made in (pregen). */
enum { PRE_ARGS = 5 };
struct PreSlot {
	const char *fmt, *r;
	uint32_t h;
	unsigned gen;
	uint64_t w[PRE_ARGS];
};

/* An entry of pure()'s instruction texts (cse): the text, its length and
 * hash, its register, its slot in cseat. The text is the instruction as
 * written in the output where D is there once (dpos: where, r written
 * there in its place; the arena never hands out or rewrites written bytes
 * again, so they stay as written, also where their piece is grown
 * elsewhere), else a copy (dpos -1).
 *
 * The entries of the epoch are in the order made (cse_at(0..ncse), in
 * chunks kept for the next epochs: none moved or made again), found
 * through cseat, a hash table of 32-bit slots (the index + 1, and 16 bits
 * of the hash above those that place it, to pass most others without
 * reading their entry): the slots read are a few KiB where the entries
 * are 32 bytes each, and forget() frees the epoch's slots, one per entry. */
struct CseSlot {
	const char *key, *r;
	uint32_t h;
	unsigned len, at;
	int dpos;
};
_Static_assert(CSE_MAX < 0xffff, "cseat holds an entry's index + 1 in 16 bits");

static inline struct CseSlot *cse_at(const Gen *g, unsigned i) { return &g->cse[i / CSE_CHUNK][i % CSE_CHUNK]; }

/* Forgets every value computed since the last label: at a label (a join of
 * control flow) and where a register is assigned again (a mutable variable).
 * cse and pre keep their room: cse's slots of this epoch are freed (one
 * per entry, its chunks kept); an entry of pre of a generation before is a
 * free slot (each lookup stops at the first free slot, where an entry of
 * this generation would have gone; none is removed within one), so pre is
 * not cleared here, nor made again as it grows in the next epoch. */
static void forget(Gen *g)
{
	g->epoch++;
	for (int i = 0; i < g->ncse; i++)
		g->cseat[cse_at(g, (unsigned)i)->at] = 0;
	g->ncse = 0;
	g->pregen++;
	g->npre = 0;
}

static void put_label(Gen *g, const char *l)
{
	bprintf(g->out, "%s:\n", l);
	forget(g);
}

/* The destination operand of an instruction given to pure(). */
#define D "\001"

/* An instruction of registers and immediates only, into a new register of
 * dtype dt (state space sp for an address); the same instruction on the
 * same operands since the last label gives the same register instead. The
 * format's destination operand is D. */
static Val pure(Gen *g, int dt, int sp, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* pure()'s first look-up, before any text is made: the format and its
 * operands as passed (strings by address: every operand is a literal or
 * an arena string, never rewritten, so the same address is the same text)
 * -> the register cse gave that text. Emptied with cse: an entry stands for
 * one of cse's, which stays until then. Most of a copy's address arithmetic
 * is found here; different addresses of one text go on to cse.
 *
 * pre is a cache in front of cse, which answers every instruction pre
 * does not (the same register: cse keeps each text for the epoch); so pre
 * stops growing at PRE_MAX slots, and a full pre is emptied (a generation
 * begun) rather than grown: an address is mostly found again a few
 * statements after it was made (a copy's second loop reads the addresses
 * its first wrote), and a small table stays in cache. */
enum { PRE_MAX = 1024 };

/* k's slot in t, if it is there (of k's generation), else the free one
 * where it would go */
static struct PreSlot *pre_slot(struct PreSlot *t, int cap, const struct PreSlot *k)
{
	unsigned i = k->h & (unsigned)(cap - 1);
	for (; t[i].fmt && t[i].gen == k->gen; i = (i + 1) & (unsigned)(cap - 1))
		if (t[i].h == k->h && t[i].fmt == k->fmt && t[i].w[0] == k->w[0] && t[i].w[1] == k->w[1] &&
		    t[i].w[2] == k->w[2] && t[i].w[3] == k->w[3] && t[i].w[4] == k->w[4])
			break;
	return &t[i];
}

/* k into pre, of this generation (k's gen set here: a full pre begins one) */
static void pre_put(Gen *g, struct PreSlot *k)
{
	if (2 * (g->npre + 1) > g->precap && g->precap >= PRE_MAX) {
		g->pregen++, g->npre = 0;
	} else if (2 * (g->npre + 1) > g->precap) { /* this generation's entries moved, the others left */
		int cap = g->precap ? 2 * g->precap : 16;
		struct PreSlot *t = xalloc(sizeof *t * (size_t)cap);
		for (int i = 0; i < g->precap; i++)
			if (g->pre[i].fmt && g->pre[i].gen == g->pregen)
				*pre_slot(t, cap, &g->pre[i]) = g->pre[i];
		g->pre = t, g->precap = cap;
	}
	k->gen = g->pregen;
	struct PreSlot *s = pre_slot(g->pre, g->precap, k);
	if (!s->fmt || s->gen != k->gen)
		g->npre++;
	*s = *k;
}

/* The conversions of one of pure()'s formats (each a literal of this file:
 * its address is the format), read once: 's', 'd' or 'L' (%lld) each;
 * n -1 when it has others or more than PRE_ARGS. Its pieces, literal text
 * (%% as %) and conversions in order, make the text by hand; np -1 when
 * there are more than FMT_PIECES (vbprintf makes it then). */
enum { FMT_PIECES = 16 };
struct FmtSig {
	const char *fmt;
	int n, np, lit; /* lit: the literal pieces' length */
	bool dlit;      /* a D in the literal text */
	char kind[PRE_ARGS];
	struct FmtPiece { const char *s; int len; } p[FMT_PIECES]; /* len -1: the next argument */
};

static const struct FmtSig *fmt_sig(const char *fmt)
{
	static struct FmtSig sig[64];
	struct FmtSig *x = &sig[((uintptr_t)fmt >> 3) & 63];
	if (x->fmt == fmt)
		return x;
	*x = (struct FmtSig){ .fmt = fmt, .dlit = strchr(fmt, '\001') != NULL };
	const char *run = fmt;  /* the literal text not yet a piece */
	for (const char *f = strchr(fmt, '%'); f && x->n >= 0; f = strchr(f + 1, '%')) {
		if (x->np + 2 > FMT_PIECES)
			x->np = -1;
		if (x->np >= 0)
			x->p[x->np++] = (struct FmtPiece){ run, (int)(f + (f[1] == '%') - run) }; /* %%: its first % */
		if (*++f == '%') {
			run = f + 1;
			continue;
		}
		if (x->np >= 0)
			x->p[x->np++] = (struct FmtPiece){ NULL, -1 };
		if (x->n == PRE_ARGS)
			x->n = -1;
		else if (*f == 's' || *f == 'd')
			x->kind[x->n++] = *f, run = f + 1;
		else if (f[0] == 'l' && f[1] == 'l' && f[2] == 'd')
			x->kind[x->n++] = 'L', f += 2, run = f + 1;
		else
			x->n = -1;  /* not a format this table reads: the text alone */
	}
	if (x->n < 0 || x->np < 0 || x->np + 1 > FMT_PIECES)
		x->np = -1;
	else
		x->p[x->np++] = (struct FmtPiece){ run, (int)strlen(run) };
	for (int i = 0; i < x->np; i++)
		x->lit += x->p[i].len >= 0 ? x->p[i].len : 0;
	return x;
}

/* The slot in cseat of text key (hash h): its entry's, if it is there,
 * else the free one where it would go */
static uint32_t *cse_slot(const Gen *g, const char *key, size_t len, uint32_t h)
{
	unsigned i = h & (unsigned)(g->cseatcap - 1);
	uint32_t tag = h >> 16 << 16;
	for (uint32_t *at = g->cseat;; i = (i + 1) & (unsigned)(g->cseatcap - 1)) {
		if (!at[i])
			return &at[i];
		if ((at[i] & 0xffff0000u) != tag)
			continue;
		const struct CseSlot *t = cse_at(g, (at[i] & 0xffff) - 1);
		if (t->h != h || t->len != len)
			continue;
		if (t->dpos < 0) {
			if (memcmp(t->key, key, len) == 0)
				return &at[i];
			continue;
		}
		size_t d = (size_t)t->dpos; /* key as t->key, r in D's place */
		if (key[d] == '\001' && memcmp(t->key, key, d) == 0 &&
		    memcmp(t->key + d + strlen(t->r), key + d + 1, len - d - 1) == 0)
			return &at[i];
	}
}

/* The text of fmt's pieces with the arguments in w (as pure() read them)
 * into g->key: exactly as vbprintf writes it (a null %s as "(null)"). The
 * result: where D is in it, -1 unless it is there once as an operand. */
static int sig_text(Gen *g, const struct FmtSig *sig, const uint64_t *w)
{
	size_t need = (size_t)sig->lit, slen[PRE_ARGS];
	for (int a = 0; a < sig->n; a++)
		need += sig->kind[a] != 's'                   ? 21
		        : (slen[a] = w[a] == (uintptr_t)D ? 1 /* most often the D of this file */
		                     : w[a]               ? strlen((const char *)(uintptr_t)w[a])
		                                          : 6);
	if (need + 1 > g->key.cap) {
		g->key.cap = 2 * (need + 1);
		g->key.s = xalloc(g->key.cap);
	}
	char *o = g->key.s;
	int dpos = -1, nd = 0;
	for (int i = 0, a = 0; i < sig->np; i++) {
		if (sig->p[i].len >= 0) {
			copy_short(o, sig->p[i].s, (size_t)sig->p[i].len);
			o += sig->p[i].len;
			continue;
		}
		uint64_t v = w[a];
		if (sig->kind[a++] == 's') {
			const char *t = v ? (const char *)(uintptr_t)v : "(null)";
			if (t[0] == '\001' && slen[a - 1] == 1)
				dpos = (int)(o - g->key.s), nd++;
			copy_short(o, t, slen[a - 1]);
			o += slen[a - 1];
		} else {
			char d[24], *q = udigits(d + sizeof d, (int64_t)v < 0 ? -v : v);
			if ((int64_t)v < 0)
				*--q = '-';
			copy_short(o, q, (size_t)(d + sizeof d - q));
			o += d + sizeof d - q;
		}
	}
	*o = 0;
	g->key.n = (size_t)(o - g->key.s);
	return nd == 1 && !sig->dlit ? dpos : -1;
}

/* The register of pure()'s instruction g->key (dpos: where its D is, or
 * -1: found by memchr): cse's, else a new one, its instruction written. */
static const char *cse_reg(Gen *g, int dt, int sp, int dpos)
{
	const char *key = g->key.s, *r = NULL;
	size_t len = g->key.n;
	uint64_t h = 0xcbf29ce484222325u ^ len, w;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) { /* eight bytes a step */
		memcpy(&w, key + i, 8);
		h = (h ^ w) * 0x9E3779B97F4A7C15u;
	}
	if (i < len && len >= 8) { /* the rest: the last eight bytes, read again in part */
		memcpy(&w, key + len - 8, 8);
		h = (h ^ w) * 0x9E3779B97F4A7C15u;
	} else {
		for (; i < len; i++)
			h = (h ^ (unsigned char)key[i]) * 0x100000001b3u;
	}
	h ^= h >> 31;
	uint32_t h32 = (uint32_t)(h >> 32);
	const char *kept = NULL; /* the text as written, D at dpos */
	uint32_t *c = g->cseatcap ? cse_slot(g, key, len, h32) : NULL;
	if (c && *c)
		return cse_at(g, (*c & 0xffff) - 1)->r;
	if (g->ncse >= CSE_MAX) /* a bounded table: reuse is local, a long kernel stays fast */
		forget(g);
	int cls = sp == SP_SHARED ? R_R : reg_class(dt);
	r = newreg_pure(g, cls);
	if (dpos >= 0) { /* the text with r in D's place, in place */
		size_t rn = reg_len(g, cls), n = len + rn + 1; /* a tab and a newline for D */
		char *w = room(g->out, n);
		*w++ = '\t';
		kept = w;
		copy_short(w, key, (size_t)dpos), w += dpos;
		copy_short(w, r, rn), w += rn;
		copy_short(w, key + dpos + 1, len - (size_t)dpos - 1), w += len - (size_t)dpos - 1;
		*w++ = '\n';
		*w = 0;
		g->out->n += n;
	} else {
		bputc(g->out, '\t');
		for (const char *p = key, *q, *end = key + len; p < end; p = q) {
			q = memchr(p, '\001', (size_t)(end - p));
			if (!q)
				q = end;
			bputn(g->out, p, (size_t)(q - p));
			if (q < end)
				bputs(g->out, r), q++;
		}
		bputc(g->out, '\n');
	}
	if (g->ncse % CSE_CHUNK == 0 && !g->cse[g->ncse / CSE_CHUNK]) /* a chunk, made once */
		g->cse[g->ncse / CSE_CHUNK] = xalloc(sizeof(struct CseSlot) * CSE_CHUNK);
	if (2 * (g->ncse + 1) > g->cseatcap) { /* the entries placed again */
		int cap = g->cseatcap ? 2 * g->cseatcap : 64;
		g->cseat = xalloc(sizeof *g->cseat * (size_t)cap), g->cseatcap = cap;
		for (int i = 0; i < g->ncse; i++) { /* each text once: its first free slot */
			struct CseSlot *x = cse_at(g, (unsigned)i);
			unsigned j = x->h & (unsigned)(cap - 1);
			while (g->cseat[j])
				j = (j + 1) & (unsigned)(cap - 1);
			g->cseat[j] = (x->h >> 16 << 16) | (uint32_t)(i + 1);
			x->at = j;
		}
		c = NULL;
	}
	if (!c || g->ncse == 0) /* else the free slot the look-up found (none after a forget()) */
		c = cse_slot(g, key, len, h32);
	*cse_at(g, (unsigned)g->ncse) = (struct CseSlot){ kept ? kept : xstrndup(key, len), r, h32, (unsigned)len, (unsigned)(c - g->cseat),
	                                     kept ? dpos : -1 };
	*c = (h32 >> 16 << 16) | (uint32_t)(g->ncse + 1);
	g->ncse++;
	return r;
}

/* sig_text of pure_addk's format and operands (fmt_add[]: "add.s64 ",
 * D, ", ", a, ", ", the number, ";"), made without reading the format */
static int addk_text(Gen *g, const struct PreSlot *k)
{
	const char *a = k->w[1] ? (const char *)(uintptr_t)k->w[1] : "(null)";
	size_t an = strlen(a), need = 8 + 3 + an + 2 + 21 + 1;
	if (need + 1 > g->key.cap) {
		g->key.cap = 2 * (need + 1);
		g->key.s = xalloc(g->key.cap);
	}
	char *o = g->key.s, d[24], *q = udigits(d + sizeof d, (int64_t)k->w[2] < 0 ? -k->w[2] : k->w[2]);
	if ((int64_t)k->w[2] < 0)
		*--q = '-';
	memcpy(o, k->fmt, 8), o += 8;
	memcpy(o, D ", ", 3), o += 3;
	copy_short(o, a, an), o += an;
	memcpy(o, ", ", 2), o += 2;
	copy_short(o, q, (size_t)(d + sizeof d - q)), o += d + sizeof d - q;
	*o++ = ';';
	*o = 0;
	g->key.n = (size_t)(o - g->key.s);
	return 8;
}

/* pure() of k's format and operands (a format whose text fmt_sig makes
 * by hand: np >= 0 and n >= 0; n of them; addk: pure_addk's) */
static inline __attribute__((always_inline)) Val pure_k(Gen *g, int dt, int sp, struct PreSlot *k, int n, bool addk)
{
	struct PreSlot *ps = NULL; /* where k goes in pre, while pre is as it was */
	unsigned gen = g->pregen;
	uint64_t h = (uint64_t)(uintptr_t)k->fmt * 0x9E3779B97F4A7C15u;
	for (int i = 0; i < n; i++)
		h = (h ^ k->w[i]) * 0x9E3779B97F4A7C15u;
	h ^= h >> 29;
	k->h = (uint32_t)(h >> 32);
	k->gen = gen;
	if (g->precap) {
		ps = pre_slot(g->pre, g->precap, k);
		if (ps->fmt && ps->gen == gen)
			return (Val){ .s = ps->r, .dt = dt, .sp = sp };
	}
	k->r = cse_reg(g, dt, sp, addk ? addk_text(g, k) : sig_text(g, fmt_sig(k->fmt), k->w));
	if (ps && gen == g->pregen && 2 * (g->npre + 1) <= g->precap) /* the slot found above */
		*ps = *k, g->npre++;
	else
		pre_put(g, k);
	return (Val){ .s = k->r, .dt = dt, .sp = sp };
}
static Val pure_w(Gen *g, int dt, int sp, struct PreSlot *k, int n) { return pure_k(g, dt, sp, k, n, false); }

static Val pure(Gen *g, int dt, int sp, const char *fmt, ...)
{
	va_list ap;
	const struct FmtSig *sig = fmt_sig(fmt);
	struct PreSlot k = { .fmt = fmt };
	va_start(ap, fmt);
	for (int i = 0; i < sig->n; i++)
		k.w[i] = sig->kind[i] == 's' ? (uint64_t)(uintptr_t)va_arg(ap, const char *) :
		         sig->kind[i] == 'd' ? (uint64_t)(int64_t)va_arg(ap, int) : (uint64_t)va_arg(ap, long long);
	va_end(ap);
	if (sig->n >= 0 && sig->np >= 0)
		return pure_w(g, dt, sp, &k, sig->n);
	/* a format read by vbprintf: cse alone */
	va_start(ap, fmt);
	g->key.n = 0;
	vbprintf(&g->key, fmt, ap);
	va_end(ap);
	return (Val){ .s = cse_reg(g, dt, sp, -1), .dt = dt, .sp = sp };
}

/* pure() of the formats an address is made with, one a trip of an
 * unrolled copy: their operands put in place, not read through va_arg.
 * pure_addk: add.s32 (a shared address) or add.s64, D = a + k. */
static const char *const fmt_add[2] = { "add.s64 %s, %s, %lld;", "add.s32 %s, %s, %lld;" };
static const char *const fmt_mad[2] = { "mad.lo.s64 %s, %s, %lld, %s;", "mad.lo.s32 %s, %s, %lld, %s;" };

static Val pure_addk(Gen *g, int sp, const char *a, int64_t k)
{
	const char *fmt = fmt_add[sp == SP_SHARED];
	struct PreSlot x = { .fmt = fmt, .w = { (uint64_t)(uintptr_t)D, (uint64_t)(uintptr_t)a, (uint64_t)k } };
	return pure_k(g, DT_HANDLE, sp, &x, 3, true);
}

/* pure_mad: mad.lo.s32 (a shared address) or mad.lo.s64, D = a * k + base */
static Val pure_mad(Gen *g, int sp, const char *a, int64_t k, const char *base)
{
	const char *fmt = fmt_mad[sp == SP_SHARED];
	struct PreSlot x = { .fmt = fmt,
	                     .w = { (uint64_t)(uintptr_t)D, (uint64_t)(uintptr_t)a, (uint64_t)k, (uint64_t)(uintptr_t)base } };
	return pure_w(g, DT_HANDLE, sp, &x, 4);
}

/* An immediate as PTX writes it for dtype dt. */
static const char *imm_str(Gen *g, int64_t v, int dt)
{
	(void)g;
	if (dt == DT_FLOAT32) {
		float f = (float)v;
		uint32_t u;
		memcpy(&u, &f, 4);
		return xprintf("0f%08X", u);
	}
	if (dt == DT_FLOAT64) {
		double d = (double)v;
		uint64_t u;
		memcpy(&u, &d, 8);
		return xprintf("0d%016llX", (unsigned long long)u);
	}
	return xprintf("%lld", (long long)v);
}

/* v in a register (an immediate moved into one). */
static Val in_reg(Gen *g, Val v)
{
	if (!v.imm)
		return v;
	Val r = reg(g, v.dt);
	if (v.dt == DT_BOOL)
		ins(g, "setp.ne.u32 %s, %lld, 0;", r.s, (long long)(v.i != 0));
	else if (low_is_half(v.dt))
		ins(g, "mov.b16 %s, %s;", r.s, v.s);
	else
		ins(g, "mov.%s %s, %s;", reg_class(v.dt) == R_RD ? "b64" : reg_class(v.dt) == R_F ? "f32" :
		    reg_class(v.dt) == R_FD ? "f64" : "b32", r.s, v.s);
	r.sp = v.sp;
	return r;
}

/* ---- errors ------------------------------------------------------------------------- */

static Val fail(Gen *g, const Expr *e, const char *msg)
{
	error_at(g->d, expr_start(e), "%s", msg);
	return imm(0, DT_INT32);
}

static Val unsupported(Gen *g, const Expr *e, const char *what)
{
	return fail(g, e, xprintf("%s is not supported by txc-ptx yet (use --backend=cuda)", what));
}

/* ---- names -------------------------------------------------------------------------- */

/* name's cell: found by the string's address (in recent, a slot per
 * address: a string's cell never changes, so a copy of at's entry stays
 * right), else by its text (once per string), else made */
static NameCell *name_cell_slow(NameScope *sc, const char *name, unsigned i);

static inline NameCell *name_cell(NameScope *sc, const char *name)
{
	unsigned i = (unsigned)((uintptr_t)name >> 4) & (NAME_RECENT - 1); /* arena strings: 16-byte aligned */
	return sc->recent[i].name == name ? sc->recent[i].c : name_cell_slow(sc, name, i);
}

/* text's slot in t (hash h): its entry, else the free one where it goes */
static struct NameText *name_text_slot(struct NameText *t, int cap, const char *text, unsigned h)
{
	unsigned i = h & (unsigned)(cap - 1);
	while (t[i].text && (t[i].h != h || strcmp(t[i].text, text) != 0))
		i = (i + 1) & (unsigned)(cap - 1);
	return &t[i];
}

/* name_cell past recent (slot i): by the text (a new text: a new cell) */
static NameCell *name_cell_slow(NameScope *sc, const char *name, unsigned i)
{
	unsigned h = str_hash(name);
	struct NameText *x = sc->textcap ? name_text_slot(sc->texts, sc->textcap, name, h) : NULL;
	if (!x || !x->text) {
		if (2 * (sc->ntexts + 1) > sc->textcap) {
			int cap = sc->textcap ? 2 * sc->textcap : 64;
			struct NameText *t = xalloc(sizeof *t * (size_t)cap);
			for (int k = 0; k < sc->textcap; k++)
				if (sc->texts[k].text)
					*name_text_slot(t, cap, sc->texts[k].text, sc->texts[k].h) = sc->texts[k];
			sc->texts = t, sc->textcap = cap;
			x = name_text_slot(t, cap, name, h);
		}
		*x = (struct NameText){ name, xalloc(sizeof(NameCell)), h };
		sc->ntexts++;
	}
	sc->recent[i].name = name, sc->recent[i].c = x->c;
	return x->c;
}

static int names_at(const NameScope *sc) { return sc->n; }

static void names_unbind(NameScope *sc, int mark)
{
	while (sc->n > mark) {
		sc->n--;
		if (sc->nfree == sc->freecap) {
			int cap = sc->freecap ? 2 * sc->freecap : 32;
			sc->free = xrealloc(sc->free, sizeof *sc->free * (size_t)sc->freecap, sizeof *sc->free * (size_t)cap);
			sc->freecap = cap;
		}
		sc->free[sc->nfree++] = sc->v[sc->n].c->top;
		sc->v[sc->n].c->top = sc->v[sc->n].hidden;
	}
}

/* x, c's binding, as a name the term offset_addr evaluates depends on */
static void note_dep(Gen *g, NameCell *c, const Bind *x)
{
	struct Dep dep = { c, x->id, x->v.s, x->ival };
	vpush(g->deps, g->ndeps, dep);
}

/* A name's binding (while offset_addr evaluates a term, noted as a name its
 * value depends on). */
static inline Bind *lookup(Gen *g, const char *name)
{
	NameCell *c = name_cell(&g->binds, name);
	Bind *x = c->top;
	if (g->noting && x)
		note_dep(g, c, x);
	return x;
}

/* lowered.h's view of the names this program has bound */
static int low_name(void *gp, const char *name, int64_t *iv, const char **sv)
{
	Bind *x = lookup(gp, name);
	if (!x)
		return 0;
	*iv = x->ival;
	*sv = x->str;
	return x->is_int ? 'i' : x->is_str ? 's' : 'o';
}

static Bind *bind(Gen *g, const char *name, Buffer *b)
{
	NameScope *sc = &g->binds;
	Bind *x = sc->nfree ? sc->free[--sc->nfree] : xalloc(sizeof *x);
	*x = (Bind){ .name = name, .buf = b, .id = ++sc->nbinds };
	if (sc->n == sc->cap) {
		int cap = sc->cap ? 2 * sc->cap : 32;
		sc->v = xrealloc(sc->v, sizeof *sc->v * (size_t)sc->cap, sizeof *sc->v * (size_t)cap);
		sc->cap = cap;
	}
	NameCell *c = name_cell(sc, name);
	sc->v[sc->n++] = (struct Shadow){ c, c->top };
	c->top = x;
	return x;
}

static int resolve(const Expr *call, int *dt) { return call_builtin(call, NULL, dt); }

static bool const_int(Gen *g, const Expr *e, int64_t *out) { return low_const_int(&g->low, e, out); }

static const char *const_str(Gen *g, const Expr *e) { return low_const_str(&g->low, e); }

static int64_t kw_int(Gen *g, const Expr *e, const char *kw, int64_t dflt) { return low_kw_int(&g->low, e, kw, dflt); }

/* low_arg_int, a literal's value (low_const_int's first answers) read here */
static int64_t arg_int(Gen *g, const Expr *e, int i, int64_t dflt)
{
	const Expr *a = i < e->nargs ? e->args[i] : NULL;
	if (a && a->val && (a->val->kind == V_INT || a->val->kind == V_BOOL))
		return a->val->i;
	if (a && a->kind == E_INT)
		return a->ival;
	return low_arg_int(&g->low, e, i, dflt);
}

static Buffer *buffer_of(Gen *g, const Expr *e)
{
	Bind *x = e->kind == E_NAME ? lookup(g, e->str) : NULL;
	return x ? x->buf : NULL;
}

static int buf_index_slow(Gen *g, Buffer *b, unsigned k);

static inline int buf_index(Gen *g, Buffer *b)
{
	unsigned k = (unsigned)((uintptr_t)b >> 4) & 15;
	return g->bufat[k].b == b ? g->bufat[k].i : buf_index_slow(g, b, k);
}

/* buf_index past bufat (slot k) */
static int buf_index_slow(Gen *g, Buffer *b, unsigned k)
{
	int i = 0;
	while (i < g->f->nbufs && g->f->bufs[i] != b)
		i++;
	i = i < g->f->nbufs ? i : -1;
	g->bufat[k].b = b, g->bufat[k].i = i;
	return i;
}

/* Which global buffers a kernel writes, or hands to an instruction (an
 * asm statement in txc-cuda's code): no ld.global.nc from those, as nvcc
 * decides for a __restrict__ pointer. Each statement is read for it as
 * the code is written (scan_stmt, from stmt(): the nodes are read then
 * anyway), once, in the order of the text: each name's cell holds the
 * buffer it denotes (wbuf, set_wbuf): the kernel's buffers by name,
 * then, put over them (they come first, as a look-up of two maps found
 * them), the names bound to a T.pointer_offset, to its buffer. A load
 * from a buffer not written so far is written with .nc and noted
 * (note_nc); where the buffer is written later, the kernel's end takes
 * the .nc out again (drop_nc). */
static void mark_written(Gen *g, Buffer *b)
{
	int i = b ? buf_index(g, buffer_root(b)) : -1;
	if (i >= 0) {
		g->written[i] = true;
		g->drop |= g->ncd[i];
	}
}

static void set_wbuf(Gen *g, const char *name, Buffer *b)
{
	NameCell *c = name_cell(&g->binds, name);
	if (!c->wbuf)
		vpush(g->wcells, g->nwcells, c);
	c->wbuf = b;
}

static Buffer *scan_buffer(Gen *g, const Expr *e)
{
	int id = e->kind == E_CALL && e->nargs > 0 ? call_builtin(e, NULL, NULL) : -1;
	if (id == IN_ADDRESS_OF || id == IN_POINTER_OFFSET)
		return scan_buffer(g, e->args[0]);
	if (e->kind == E_INDEX)
		return scan_buffer(g, e->a);
	if (e->kind != E_NAME)
		return NULL;
	return name_cell(&g->binds, e->str)->wbuf;
}

/* s read for the buffers it writes, not its blocks (each statement of
 * those is read as it is written, or by scan_writes where it is not) */
static void scan_stmt(Gen *g, const Stmt *s)
{
	Expr *val = s->value;
	if (s->kind == S_ASSIGN || s->kind == S_AUGASSIGN) {
		if (s->ntargets != 1)
			return;
		if (s->targets[0]->kind == E_INDEX)
			mark_written(g, scan_buffer(g, s->targets[0]));
		else if (s->kind == S_ASSIGN && s->targets[0]->kind == E_NAME && val->kind == E_CALL &&
		         call_builtin(val, NULL, NULL) == IN_POINTER_OFFSET && val->nargs > 0) {
			Buffer *b = scan_buffer(g, val->args[0]);
			if (b)
				set_wbuf(g, s->targets[0]->str, b);
		}
	} else if (s->kind == S_EXPR && val->kind == E_CALL) {
		int id = call_builtin(val, NULL, NULL);
		if (id == IN_EVALUATE && val->nargs > 0 && val->args[0]->kind == E_CALL)
			id = call_builtin(val = val->args[0], NULL, NULL);
		/* T.cuda.copy_bytes is C (its source a plain load); every other
		 * intrinsic is an asm statement, whose buffer operands escape */
		for (int k = 0; k < val->nargs; k++)
			if (id != IN_COPY_BYTES || k == 0)
				mark_written(g, scan_buffer(g, val->args[k]));
	}
}

/* The statements v[0..n) and their blocks, where the code written does
 * not read them (a loop of no trips, a statement written before the
 * body, a for's else) */
static void scan_writes(Gen *g, Stmt **v, int n)
{
	for (int i = 0; i < n; i++) {
		scan_stmt(g, v[i]);
		if (v[i]->kind == S_IF || v[i]->kind == S_FOR || v[i]->kind == S_WHILE) {
			scan_writes(g, v[i]->body, v[i]->nbody);
			scan_writes(g, v[i]->orelse, v[i]->norelse);
		}
	}
}

/* A load given .nc from the buffer of index i, its ".nc" at byte off of
 * the piece being written, for drop_nc; the first of a piece after an
 * entry { NC_PIECE, the piece } */
enum { NC_PIECE = UINT32_MAX, NC_CHUNK = 128 };
static inline struct NcSite *nc_at(const Gen *g, int i) { return &g->ncs[i / NC_CHUNK][i % NC_CHUNK]; }

static inline void nc_put(Gen *g, struct NcSite x)
{
	if (g->nncs == g->ncchunks * NC_CHUNK) { /* a chunk, kept for the next kernels */
		struct NcSite *c = xalloc(sizeof *c * NC_CHUNK);
		vpush(g->ncs, g->ncchunks, c);
	}
	*nc_at(g, g->nncs++) = x;
}

static inline void note_nc(Gen *g, int i, size_t off)
{
	if (g->ncpiece != g->npieces) {
		nc_put(g, (struct NcSite){ NC_PIECE, g->npieces });
		g->ncpiece = g->npieces;
	}
	g->ncd[i] = true;
	nc_put(g, (struct NcSite){ (uint32_t)off, i });
}

/* The ".nc" of each load noted whose buffer was written after it, taken
 * out (the pieces' text moved up over it, one pass per piece): the text
 * then is as if the whole kernel had been read for its writes first. */
static void drop_nc(Gen *g)
{
	for (int i = 0; i < g->nncs && g->drop;) {
		Buf *b = &g->pieces[nc_at(g, i++)->buf]; /* a piece's entry */
		size_t from = 0, to = 0; /* b's text read from, written to */
		for (; i < g->nncs && nc_at(g, i)->off != NC_PIECE; i++) {
			size_t at = nc_at(g, i)->off;
			if (!g->written[nc_at(g, i)->buf])
				continue;
			memmove(b->s + to, b->s + from, at - from);
			to += at - from, from = at + 3;
		}
		if (from) {
			memmove(b->s + to, b->s + from, b->n - from);
			b->n -= from - to;
			b->s[b->n] = 0;
		}
	}
	g->nncs = 0;
}

/* Whether a load from b takes .nc (so far: see scan_stmt): b's root's
 * index then, else -1 */
static int nc_index(Gen *g, Buffer *b)
{
	Buffer *r = buffer_root(b);
	int i = buf_index(g, r);
	return r->scope == SC_GLOBAL && r->is_param && i >= 0 && !g->written[i] ? i : -1;
}

/* ---- conversions (C's, as txc-cuda's code performs them) -------------------------- */

static Val conv(Gen *g, Val v, int to);

/* A float of dtype from (f16, bf16) as f32, and back. */
static Val half_to_f32(Gen *g, Val v)
{
	v = in_reg(g, v);
	Val r = reg(g, DT_FLOAT32);
	if (v.dt == DT_FLOAT16 || g->target >= TG_SM90) {
		ins(g, "cvt.f32.%s %s, %s;", ty(v.dt), r.s, v.s);
	} else { /* bf16 on sm_80: the high half of a float */
		const char *t = newreg(g, R_R);
		ins(g, "cvt.u32.u16 %s, %s;", t, v.s);
		ins(g, "shl.b32 %s, %s, 16;", t, t);
		ins(g, "mov.b32 %s, %s;", r.s, t);
	}
	return r;
}

static Val conv(Gen *g, Val v, int to)
{
	int from = v.dt;
	if (from == to || !low_known(to) || to == DT_HANDLE || from == DT_HANDLE) {
		if ((to == DT_UINT64 || to == DT_INT64) && from == DT_HANDLE)
			v.dt = to;
		return v;
	}
	if (low_is_fp8(from) || low_is_fp8(to)) {
		/* cuda_fp8.h's conversions (through half and float) as sm_89 on executes them */
		if (g->target < TG_SM90) {
			error_at(g->d, g->at, "a float8 conversion on %s is not supported by txc-ptx yet (use --backend=cuda)",
			         target_names[g->target]);
			return imm(0, to);
		}
		const char *k = (low_is_fp8(from) ? from : to) == DT_FP8E4M3 ? "e4m3x2" : "e5m2x2";
		if (low_is_fp8(from) && low_is_fp8(to))
			return conv(g, conv(g, v, DT_FLOAT32), to);
		if (low_is_fp8(from)) {
			v = in_reg(g, v);
			const char *h = newreg(g, R_H), *x = newreg(g, R_R), *lo = newreg(g, R_H), *hi = newreg(g, R_H);
			ins(g, "cvt.u16.u32 %s, %s;", h, v.s);
			ins(g, "cvt.rn.f16x2.%s %s, %s;", k, x, h);
			ins(g, "mov.b32 {%s, %s}, %s;", lo, hi, x);
			return conv(g, (Val){ .s = lo, .dt = DT_FLOAT16 }, to);
		}
		Val f = in_reg(g, conv(g, v, DT_FLOAT32));
		const char *h = newreg(g, R_H);
		Val r = reg(g, to);
		ins(g, "cvt.rn.satfinite.%s.f32 %s, 0f00000000, %s;", k, h, f.s);
		ins(g, "cvt.u32.u16 %s, %s;", r.s, h);
		ins(g, "and.b32 %s, %s, 255;", r.s, r.s);
		return r;
	}
	if (v.imm && !is_float(from) && from != DT_BOOL && !is_float(to) && to != DT_BOOL) {
		int64_t x = v.i;
		int b = bits(to);
		if (b < 64) {
			uint64_t m = ((uint64_t)1 << b) - 1, u = (uint64_t)x & m;
			x = is_uint(to) ? (int64_t)u : (u >> (b - 1)) & 1 ? (int64_t)(u | ~m) : (int64_t)u;
		}
		return imm(x, to);
	}
	if (v.imm && from != DT_BOOL && !is_float(from) && (to == DT_FLOAT32 || to == DT_FLOAT64))
		return (Val){ .s = imm_str(g, v.i, to), .dt = to, .imm = true, .i = v.i };
	Val r;
	if (to == DT_BOOL) {
		v = in_reg(g, v);
		if (low_is_half(from))
			v = half_to_f32(g, v), from = DT_FLOAT32;
		r = reg(g, DT_BOOL);
		ins(g, "setp.ne.%s %s, %s, %s;", is_float(from) ? ty(from) : reg_class(from) == R_RD ? "b64" : "b32", r.s, v.s,
		    from == DT_FLOAT32 ? "0f00000000" : from == DT_FLOAT64 ? "0d0000000000000000" : "0");
		return r;
	}
	if (from == DT_BOOL) {
		v = in_reg(g, v);
		int t = low_is_half(to) ? DT_FLOAT32 : to;
		r = reg(g, t);
		if (t == DT_FLOAT32)
			ins(g, "selp.f32 %s, 0f3F800000, 0f00000000, %s;", r.s, v.s);
		else if (t == DT_FLOAT64)
			ins(g, "selp.f64 %s, 0d3FF0000000000000, 0d0000000000000000, %s;", r.s, v.s);
		else
			ins(g, "selp.%s %s, 1, 0, %s;", reg_class(t) == R_RD ? "u64" : "u32", r.s, v.s);
		return t == to ? r : conv(g, r, to);
	}
	v = in_reg(g, v);
	if (low_is_half(from)) {
		Val f = half_to_f32(g, v);
		return to == DT_FLOAT32 ? f : conv(g, f, to);
	}
	if (low_is_half(to)) {
		Val f = from == DT_FLOAT32 ? v : conv(g, v, DT_FLOAT32);
		f = in_reg(g, f);
		return pure(g, to, 0, "cvt.rn.%s.f32 %s, %s;", ty(to), D, f.s);
	}
	if (is_float(from) && is_float(to))
		return pure(g, to, 0, "cvt%s.%s.%s %s, %s;", to == DT_FLOAT32 ? ".rn" : "", ty(to), ty(from), D, v.s);
	if (is_float(from)) {
		/* C truncates toward zero */
		const char *it = bits(to) == 64 ? (is_uint(to) ? "u64" : "s64") : bits(to) == 32 ? ty(to) : is_uint(to) ? "u32" : "s32";
		r = pure(g, bits(to) == 64 ? to : is_uint(to) ? DT_UINT32 : DT_INT32, 0, "cvt.rzi.%s.%s %s, %s;", it, ty(from), D, v.s);
		if (bits(to) < 32)
			r = pure(g, to, 0, "cvt.%s.%s%d %s, %s;", ty(to), is_uint(to) ? "u" : "s", bits(to), D, r.s);
		r.dt = to;
		return r;
	}
	if (is_float(to)) {
		const char *ft = bits(from) == 64 ? (is_uint(from) ? "u64" : "s64") : ty(from);
		return pure(g, to, 0, "cvt.rn.%s.%s %s, %s;", ty(to), ft, D, v.s);
	}
	/* int to int: the source register holds the value extended to 32 or 64 bits */
	int fb = bits(from) == 64 ? 64 : 32, tb = bits(to);
	const char *fs = is_uint(from) ? "u" : "s";
	r = (Val){ .s = v.s, .dt = to };
	if (tb == 64 && fb != 64)
		r = pure(g, to, 0, "cvt.%s64.%s32 %s, %s;", is_uint(to) ? "u" : "s", fs, D, v.s);
	else if (tb < 64 && fb == 64)
		r = pure(g, tb < 32 ? DT_UINT32 : to, 0, "cvt.u32.u64 %s, %s;", D, v.s);
	if (tb < 32)
		r = pure(g, to, 0, "cvt.%s32.%s%d %s, %s;", is_uint(to) ? "u" : "s", is_uint(to) ? "u" : "s", tb, D, r.s);
	r.dt = to;
	return r;
}

/* C's integer promotion and usual arithmetic conversions. */
static int promote(int dt)
{
	if (dt == DT_BOOL || (is_int(dt) && bits(dt) < 32))
		return DT_INT32;
	return dt;
}

static int common(int a, int b)
{
	a = promote(a), b = promote(b);
	if (a == b)
		return a;
	if (a == DT_FLOAT64 || b == DT_FLOAT64)
		return DT_FLOAT64;
	if (a == DT_FLOAT32 || b == DT_FLOAT32)
		return DT_FLOAT32;
	if (low_is_half(a) || low_is_half(b))
		return DT_FLOAT32; /* a half with anything else: through float */
	if (a == DT_HANDLE || b == DT_HANDLE)
		return DT_HANDLE;
	int ra = bits(a), rb = bits(b);
	if (is_uint(a) == is_uint(b))
		return ra >= rb ? a : b;
	int u = is_uint(a) ? a : b, s = is_uint(a) ? b : a;
	if (bits(u) >= bits(s))
		return u;
	return s; /* int64 holds every uint32 */
}

/* ---- expressions -------------------------------------------------------------------- */

static Val ev(Gen *g, const Expr *e, int hint);

static Val lit_float(Gen *g, double v, int hint)
{
	if (low_is_half(hint)) {
		Val f = { .s = xprintf("0f%08X", 0), .dt = DT_FLOAT32, .imm = true };
		float x = (float)v;
		uint32_t u;
		memcpy(&u, &x, 4);
		f.s = xprintf("0f%08X", u);
		return conv(g, in_reg(g, f), hint);
	}
	if (low_is_fp8(hint)) {
		error_at(g->d, g->at, "a float8 literal is not supported by txc-ptx yet (use --backend=cuda)");
		return imm(0, hint);
	}
	if (is_int(hint) || hint == DT_BOOL) {
		Val d = { .dt = DT_FLOAT64, .imm = true };
		uint64_t u;
		memcpy(&u, &v, 8);
		d.s = xprintf("0d%016llX", (unsigned long long)u);
		return conv(g, in_reg(g, d), hint);
	}
	if (hint == DT_FLOAT32) {
		float x = (float)v;
		uint32_t u;
		memcpy(&u, &x, 4);
		return (Val){ .s = xprintf("0f%08X", u), .dt = DT_FLOAT32, .imm = true };
	}
	uint64_t u;
	memcpy(&u, &v, 8);
	return (Val){ .s = xprintf("0d%016llX", (unsigned long long)u), .dt = DT_FLOAT64, .imm = true };
}

/* An integer literal with its C type (txc-cuda's lit_int). */
static Val lit_int(Gen *g, int64_t v, int hint)
{
	if (hint == DT_BOOL)
		return imm(v != 0, DT_BOOL);
	if (is_float(hint) && !low_is_fp8(hint))
		return lit_float(g, (double)v, hint);
	if (v >= INT32_MIN && v <= INT32_MAX)
		return imm(v, DT_INT32);
	if (hint == DT_UINT32 && v > 0 && v <= (int64_t)UINT32_MAX)
		return imm(v, DT_UINT32);
	return imm(v, hint == DT_UINT64 && v > 0 ? DT_UINT64 : DT_INT64);
}

enum { MAX_TERMS = 16, MEMO_DEPS = 4 };
/* may_const: false where trip_const cannot find the term constant (a node
 * it does not fold), whatever the names are bound to */
struct Term {
	const Expr *e;
	int sign, hint;
	bool may_const;
	/* a program offset's term k, name, name OP k or k OP name (+ - *: f *
	 * 1024): trip_const's reading of it with the name's cell found once
	 * (form 'k' the literal k, 'n' the name, 'l' name on the left, 'r' on
	 * the right; 0 none) */
	char form;
	int op;
	int64_t k;
	NameCell *cell;
};
/* A term's register as offset_addr last found it: valid while pure()'s
 * epoch lasts, g->wide is as it was (a name's value is widened by it) and
 * each name it read has the binding it had. */
struct TermMemo { bool ok, wide; unsigned epoch; Val v; int ndeps; struct Dep dep[MEMO_DEPS]; };
/* What is known of the terms of one shape (below) and hint, shared by
 * every program offset that has such a term (the lowering writes the same
 * tid % 8 * 8 in each copy's offset): its facts (low_facts_of: they depend
 * on the shape alone) and, but for a literal, its memo per width (m[wide]).
 * e and hint: the term it was made of; next[i & 3]: the Shape of the term
 * after it, at i in its offset, when one was last found (shape_of's first
 * guess for such a term: the offsets of the copies are alike). */
struct Shape {
	Range er, lr;
	bool fits;
	struct TermMemo *m[2];
	const Expr *e;
	int hint;
	struct Shape *next[4];
};
struct ShapeSlot { const Expr *e; int hint; uint64_t h; struct Shape *x; };
struct SumSlot {
	const Expr *off;         /* the offset, NULL: a free slot */
	int cap;                 /* the room of t, memo, aregs and asigns, kept for the next offset */
	bool wide;
	bool formed;             /* each term has a form or is not may_const (sum_again) */
	int n;                   /* terms, or -1: not summed by terms */
	struct Term *t;
	struct TermMemo **memo;  /* per term (one of a shape's, or its own made when needed) */
	/* the address of the register terms last made: its terms' registers and
	 * signs, the base (NULL: none made), the epoch */
	unsigned aepoch;
	const char *abase, **aregs;
	int naregs, *asigns;
	Val addr;
};

/* e's operands, a // b or a % b: a >= 0 and b > 0 (C's division is
 * Python's then), asked once per expression (its operands' ranges do not change). */
static bool nonneg_div(Gen *g, const Expr *e)
{
	static char yes, no; /* the map's values: non-NULL answers */
	char *k = ptrmap_get(&g->divs, e);
	if (!k) {
		int64_t lo, hi, lo2, hi2;
		k = low_range(e->a, &lo, &hi) && lo >= 0 && low_range(e->b, &lo2, &hi2) && lo2 > 0 ? &yes : &no;
		ptrmap_put(&g->divs, e, k);
	}
	return k == &yes;
}

/* base + off * esize, in base's state space. */
static Val addr_plus(Gen *g, Val base, Val off64, int64_t esize)
{
	if (base.sp == SP_SHARED) {
		if (off64.imm && off64.i == 0)
			return base;
		if (off64.imm)
			return pure_addk(g, SP_SHARED, base.s, off64.i * esize);
		Val o = pure(g, DT_UINT32, 0, "cvt.u32.u64 %s, %s;", D, off64.s);
		return pure_mad(g, SP_SHARED, o.s, esize, base.s);
	}
	if (off64.imm && off64.i == 0)
		return base;
	if (off64.imm)
		return pure_addk(g, base.sp, base.s, off64.i * esize);
	return pure_mad(g, base.sp, off64.s, esize, base.s);
}

/* An offset as a sum of terms (the lowering writes a tile access's offset
 * as a + f * 1024 + tid % 8 * 8 + tid // 8 * 64, f an unrolled loop's
 * counter): the terms that are constants where the access is emitted (f
 * bound to a trip's value) are added up here, the others summed in
 * registers, the same on every trip, which pure() finds again; an address
 * is then the registers' address plus one constant, one instruction a
 * trip instead of the whole sum again. The value is the same: the sum's
 * terms are reordered only where every order computes it exactly (32-bit
 * terms whose ranges' sum fits 32 bits, or 64-bit arithmetic).
 *
 * The terms of off's chain of + and -, each with its sign and the hint
 * binary() would give it; 0 when it is not one this function sums: a node
 * of another dtype (a wrap below 32 bits, unsigned or mixed arithmetic),
 * or, in 32 bits, a term whose range is not known to fit. */
static bool int_literal(const Expr *e)
{
	return (e->val && e->val->kind == V_INT) || e->kind == E_INT;
}

/* Every node of e one that trip_const (below) may fold: its literals, names
 * and + - * nodes, by their kinds alone. */
static bool may_trip_const(const Expr *e)
{
	if (int_literal(e))
		return true;
	if (e->kind == E_NAME)
		return !e->val;
	return e->kind == E_BIN && !e->val && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) &&
	       may_trip_const(e->a) && may_trip_const(e->b);
}

/* Whether e is a link of a sum's chain of + and -: 1, with *it the dtype
 * its operands are read at (its own where known, else the hint); 0 when
 * it is a term; -1 when it adds another type (no sum of terms). */
static inline int chain_link(const Expr *e, int hint, int *it)
{
	if (int_literal(e) || e->kind != E_BIN || (e->op != OP_ADD && e->op != OP_SUB))
		return 0;
	if (e->dtype != DT_INT32 && e->dtype != DT_INT64)
		return -1;
	*it = low_known(e->a->dtype) ? e->a->dtype : low_known(e->b->dtype) ? e->b->dtype : hint;
	return 1;
}

/* A term's shape: integer literals and names (with their values, Vars and
 * dtypes) under + - * // % and the like, all that ev() reads of such a tree
 * (and low_range, through the Vars' bounds). Two terms of one shape,
 * evaluated with the same hint, width and bindings, make the same pure()
 * instructions, so one memo serves both. false: not a tree of those nodes
 * (its memo is its own); *h its hash. */
static bool term_shape(const Expr *e, uint64_t *h)
{
	if (e->val && e->val->kind != V_INT && e->val->kind != V_BOOL && e->val->kind != V_FLOAT)
		return false;
	uint64_t x = ((uint64_t)e->kind << 40 ^ (uint64_t)e->op << 32 ^ (uint64_t)(unsigned)e->dtype) * 0x9E3779B97F4A7C15u;
	x ^= (uint64_t)e->ival + (e->val ? (uint64_t)e->val->i * 31 + (uint64_t)e->val->kind : 7);
	x = (x ^ (uint64_t)(uintptr_t)e->var) * 0x9E3779B97F4A7C15u;
	if (e->kind == E_BIN) { /* a name's text is not hashed: its Var mostly tells names apart */
		uint64_t a, b;
		if (!term_shape(e->a, &a) || !term_shape(e->b, &b))
			return false;
		x = ((x ^ a) * 0x9E3779B97F4A7C15u ^ b) * 0x9E3779B97F4A7C15u;
	} else if (e->kind != E_INT && e->kind != E_NAME) {
		return false;
	}
	*h = x ^ (x >> 29);
	return true;
}

static bool same_shape(const Expr *x, const Expr *y)
{
	if (x == y)
		return true;
	if (x->kind != y->kind || x->op != y->op || x->dtype != y->dtype || x->ival != y->ival || x->var != y->var ||
	    !x->val != !y->val)
		return false;
	if (x->val && (x->val->kind != y->val->kind || x->val->i != y->val->i ||
	               memcmp(&x->val->f, &y->val->f, sizeof x->val->f) != 0))
		return false;
	if (x->kind == E_NAME)
		return x->str == y->str || strcmp(x->str, y->str) == 0;
	return x->kind != E_BIN || (same_shape(x->a, y->a) && same_shape(x->b, y->b));
}

static struct ShapeSlot *shape_slot(struct ShapeSlot *t, int cap, const Expr *e, int hint, uint64_t h)
{
	unsigned i = (unsigned)(h >> 32) & (unsigned)(cap - 1);
	for (; t[i].e; i = (i + 1) & (unsigned)(cap - 1))
		if (t[i].h == h && t[i].hint == hint && (t[i].e == e || same_shape(t[i].e, e)))
			break;
	return &t[i];
}

/* The Shape of a program offset's term t; NULL: not a tree term_shape reads. */
static struct Shape *shape_of(Gen *g, const struct Term *t, struct Shape *guess)
{
	/* A hit's tree becomes the Shape's e: of the same shape, so every
	 * answer of same_shape against it is the same, and the next copy's
	 * term, mostly that very node (the lowering shares it), is found by
	 * its address, not by a walk of both trees. */
	if (guess && guess->hint == t->hint && same_shape(guess->e, t->e))
		return guess->e = t->e, guess;
	/* the shapes just found first (the terms of each copy's offset are
	 * those of the copy before): a tree of one of their shapes is one
	 * term_shape reads, of that hash, found without hashing it */
	for (int i = 0; i < g->nrecent; i++)
		if (g->recent[i].hint == t->hint && same_shape(g->recent[i].e, t->e))
			return g->recent[i].e = g->recent[i].x->e = t->e, g->recent[i].x;
	uint64_t h;
	if (!term_shape(t->e, &h))
		return NULL;
	if (2 * (g->nshape + 1) > g->shapecap) {
		int cap = g->shapecap ? 2 * g->shapecap : 64;
		struct ShapeSlot *tab = xalloc(sizeof *tab * (size_t)cap);
		for (int i = 0; i < g->shapecap; i++)
			if (g->shape[i].e)
				*shape_slot(tab, cap, g->shape[i].e, g->shape[i].hint, g->shape[i].h) = g->shape[i];
		g->shape = tab, g->shapecap = cap;
	}
	struct ShapeSlot *s = shape_slot(g->shape, g->shapecap, t->e, t->hint, h);
	if (!s->e) {
		*s = (struct ShapeSlot){ t->e, t->hint, h, xalloc(sizeof(struct Shape)) };
		s->x->fits = low_facts_of(t->e, &s->x->er, &s->x->lr);
		s->x->e = t->e, s->x->hint = t->hint;
		g->nshape++;
	}
	int n = g->nrecent < 4 ? g->nrecent++ : 3;
	memmove(&g->recent[1], &g->recent[0], sizeof *g->recent * (size_t)n);
	g->recent[0] = (struct Recent){ s->e, s->hint, s->x };
	return s->x;
}

/* The terms' facts flatten_facts finds: per term its expr_range, low_range
 * and low_fits32; given: every term has them (one mostly a trip's
 * constant, or one of a Shape). */
struct TermFacts {
	Range er[MAX_TERMS], lr[MAX_TERMS];
	bool fits[MAX_TERMS];
	bool given;
	struct Shape *prev; /* the Shape of the last term that has one */
};

/* The terms of e's chain of + and - into t[n..], each with its sign and
 * hint (-1: too many, or a chain of another type); with g (a program
 * offset), in the same walk each term's Shape (sh[]) and facts, and,
 * while given, those of e as low_fits32 finds them, each
 * term's taken where the walk meets it (*er its expr_range, the result its
 * low_fits32); a node of the chain's low_range is its expr_range
 * (low_range_step reads shifts and bitwise operations only). */
static int flatten_facts(Gen *g, const Expr *e, int sign, int hint, struct Term *t, struct Shape **sh,
                         struct TermFacts *f, int n, Range *er, bool *fits)
{
	if (n < 0)
		return n;
	int it, link = chain_link(e, hint, &it);
	if (link < 0)
		return -1;
	if (link) {
		Range r[2];
		bool fa, fb;
		n = flatten_facts(g, e->a, sign, it, t, sh, f, n, &r[0], &fa);
		n = flatten_facts(g, e->b, e->op == OP_SUB ? -sign : sign, it, t, sh, f, n, &r[1], &fb);
		if (n > 0 && f->given) {
			er->ok = expr_range_step(e, r, &er->lo, &er->hi);
			*fits = fa && fb && er->ok && er->lo >= INT32_MIN && er->hi <= INT32_MAX;
		}
		return n;
	}
	if (n == MAX_TERMS)
		return -1;
	struct Term *x = &t[n];
	*x = (struct Term){ .e = e, .sign = sign, .hint = hint, .may_const = may_trip_const(e) };
	if (!g) /* the terms alone */
		return n + 1;
	if (x->may_const) /* f * 1024, a literal: mostly a trip's constant, its memo its own */
		sh[n] = NULL, f->fits[n] = low_facts_of(e, &f->er[n], &f->lr[n]);
	else if ((sh[n] = shape_of(g, x, f->prev ? f->prev->next[n & 3] : g->first_shape))) {
		f->er[n] = sh[n]->er, f->lr[n] = sh[n]->lr, f->fits[n] = sh[n]->fits;
		*(f->prev ? &f->prev->next[n & 3] : &g->first_shape) = sh[n];
		f->prev = sh[n];
	} else {
		f->given = false;
	}
	if (f->given)
		*er = f->er[n], *fits = f->fits[n];
	return n + 1;
}

/* The count n of terms t[] when offset_addr sums them so, else -1: each
 * term's low_range r[i] (noted at its first place only), *wide already
 * decided: in 32 bits, the terms' ranges must sum within 32 bits. */
static int sum_fits(const struct Term *t, int n, const Range *r, bool wide)
{
	int64_t lo = 0, hi = 0;
	for (int i = 0; i < n && !wide; i++) {
		int64_t x = r[i].lo, y = r[i].hi;
		if (int_literal(t[i].e))
			continue;
		if (t[i].e->dtype != DT_INT32 || !r[i].ok)
			return -1;
		if (t[i].sign < 0) {
			int64_t z = x;
			x = -y, y = -z;
		}
		lo += x, hi += y;  /* each within 32 bits: no overflow of 64 */
		if (lo < INT32_MIN || hi > INT32_MAX)
			return -1;
	}
	return n;
}

/* The terms' low_ranges lr[] as the walk of the whole noted them, a
 * term's at its first place only (r[]) */
static void first_ranges(const struct Term *t, int n, const Range *lr, Range *r)
{
	for (int i = 0; i < n; i++) {
		r[i] = lr[i];
		for (int j = 0; j < i; j++)
			if (t[j].e == t[i].e) {
				r[i] = (Range){ 0, 0, false };
				break;
			}
	}
}

/* With g (a program offset): each term's Shape in sh[] (NULL: none), and
 * the terms' facts taken from their Shapes where all have one (then in
 * *fp, fp->given). */
static int sum_terms(const Expr *off, bool *wide, struct Term *t, Gen *g, struct Shape **sh, struct TermFacts *fp)
{
	Range r[MAX_TERMS];
	struct TermFacts fl, *f = fp ? fp : &fl;
	Range er;
	bool fits;
	f->given = g != NULL;
	f->prev = NULL;
	int n = flatten_facts(g, off, 1, DT_NONE, t, sh, f, 0, &er, &fits);
	f->given = n > 0 && f->given;
	if (f->given) {
		*wide = !fits;
		if (!fits)
			return n;
		first_ranges(t, n, f->lr, r);
	} else {
		const Expr *at[MAX_TERMS];
		for (int i = 0; i < n; i++)
			at[i] = t[i].e, r[i] = (Range){ 0, 0, false };
		*wide = !low_fits32_noting(off, at, n > 0 ? n : 0, r); /* one walk for both */
	}
	return sum_fits(t, n, r, *wide);
}

/* t's form (struct Term), where it has one of trip_const's shapes and
 * term_val reads it so (its hint not bool or float): a literal within 32
 * bits, a name not a constant of the program, name OP literal */
static void trip_form(Gen *g, struct Term *t)
{
	const Expr *e = t->e, *n = NULL, *k = NULL;
	if (t->hint == DT_BOOL || is_float(t->hint))
		return;
	if (int_literal(e)) {
		t->k = e->val ? e->val->i : e->ival;
		if (t->k >= INT32_MIN && t->k <= INT32_MAX)
			t->form = 'k';
		return;
	}
	if (e->kind == E_NAME && !e->val) {
		t->form = 'n', n = e;
	} else if (e->kind == E_BIN && !e->val && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) &&
	           !(low_known(e->a->dtype) && !is_int(e->a->dtype)) && !(low_known(e->b->dtype) && !is_int(e->b->dtype))) {
		if (e->a->kind == E_NAME && !e->a->val && int_literal(e->b))
			t->form = 'l', n = e->a, k = e->b;
		else if (e->b->kind == E_NAME && !e->b->val && int_literal(e->a))
			t->form = 'r', n = e->b, k = e->a;
		else
			return;
		t->op = e->op;
		t->k = k->val ? k->val->i : k->ival;
		if (t->k < INT32_MIN || t->k > INT32_MAX) {
			t->form = 0; /* never a constant: trip_const finds that */
			return;
		}
	} else {
		return;
	}
	t->cell = name_cell(&g->binds, n->str);
}

/* trip_const(t->e) by t's form: the same value, or false */
static inline bool trip_form_const(const struct Term *t, int64_t *v)
{
	if (t->form == 'k')
		return *v = t->k, true;
	const Bind *x = t->cell->top;
	if (!x || !x->is_int || x->ival < INT32_MIN || x->ival > INT32_MAX)
		return false;
	int64_t a = t->form == 'r' ? t->k : x->ival, b = t->form == 'r' ? x->ival : t->k;
	*v = t->form == 'n' ? x->ival : t->op == OP_ADD ? a + b : t->op == OP_SUB ? a - b : a * b;
	return *v >= INT32_MIN && *v <= INT32_MAX;
}

/* A program offset's terms as program_terms found them (n, wide, formed,
 * t[] and memo[]: its slot's before its first trip) and their facts as
 * flatten_facts found them (er[], fits[]), kept to serve the offsets
 * alike that follow (like_sum): each copy of a kernel sums the same
 * terms, but for the constant of its corner. */
struct SumLike {
	const Expr *off;
	int n;
	bool wide, formed;
	struct Term t[MAX_TERMS];
	struct TermMemo *memo[MAX_TERMS];
	Range er[MAX_TERMS];
	bool fits[MAX_TERMS];
};

/* Whether y reads as x (a term trip_const may fold) to everything that
 * sums it: flatten_facts, sum_terms, trip_form and term_val read a
 * literal's value, a name's text (its binding) and its Var's bounds
 * (leaf_range), the nodes' kinds, operators, dtypes and values, nothing
 * else of these nodes. Names of other Vars of the same bounds are alike:
 * each copy's loop has its own f. */
static bool like_trip_term(const Expr *x, const Expr *y)
{
	if (x == y)
		return true;
	if (x->kind != y->kind || x->op != y->op || x->dtype != y->dtype || x->ival != y->ival || !x->val != !y->val)
		return false;
	if (x->val && (x->val->kind != y->val->kind || x->val->i != y->val->i ||
	               memcmp(&x->val->f, &y->val->f, sizeof x->val->f) != 0))
		return false;
	switch (x->kind) {
	case E_INT:
		return true;
	case E_NAME:
		return (x->var == y->var || (x->var && y->var && x->var->lo == y->var->lo && x->var->hi == y->var->hi)) &&
		       (x->str == y->str || strcmp(x->str, y->str) == 0);
	case E_BIN:
		return like_trip_term(x->a, y->a) && like_trip_term(x->b, y->b);
	default:
		return false;
	}
}

/* y's chain of + and - walked along x's, of a program offset whose terms
 * are t[0..n) (flatten_facts' order): the same links (operator, dtypes),
 * and per term the same node, or, where the term is one trip_const may
 * fold, one like_trip_term finds alike, or another integer literal (*lit
 * then: its facts and form are its own); the terms the same nodes where
 * x's are (sum_terms notes a term's range at its first place only). y's
 * terms into at[]. The count of terms matched so far (from k), -1 at a
 * difference. Where all match, every term, link and fact sum_terms reads
 * of y is x's, but for the literals' (like_facts). */
static int like_sum(const Expr *x, const Expr *y, int hint, const struct Term *t, int n, int k, const Expr **at,
                    bool *lit)
{
	int it = hint, link = chain_link(x, hint, &it);
	if (link < 0)
		return -1;
	if (link) { /* y a link as well, its operands read at the same dtype */
		if (x != y && (y->kind != E_BIN || x->op != y->op || x->dtype != y->dtype || x->val || y->val ||
		               x->a->dtype != y->a->dtype || x->b->dtype != y->b->dtype))
			return -1;
		k = like_sum(x->a, y->a, it, t, n, k, at, lit);
		return k < 0 ? k : like_sum(x->b, y->b, it, t, n, k, at, lit);
	}
	if (k >= n || t[k].e != x)
		return -1;
	if (x != y && !(t[k].may_const && like_trip_term(x, y))) {
		if (!(t[k].may_const && x->kind == E_INT && y->kind == E_INT && x->dtype == y->dtype))
			return -1;
		*lit = true;
	}
	for (int j = 0; j < k; j++)
		if ((t[j].e == x) != (at[j] == y))
			return -1;
	at[k] = y;
	return k + 1;
}

/* The facts flatten_facts finds of y's chain (*er; the result its
 * low_fits32) from its terms' er[] and fits[] (from *k on, in its order) */
static bool like_facts(const Expr *y, int hint, const Range *ter, const bool *tfits, int *k, Range *er)
{
	int it = hint;
	if (chain_link(y, hint, &it) > 0) {
		Range r[2];
		bool fa = like_facts(y->a, it, ter, tfits, k, &r[0]), fb = like_facts(y->b, it, ter, tfits, k, &r[1]);
		er->ok = expr_range_step(y, r, &er->lo, &er->hi);
		return fa && fb && er->ok && er->lo >= INT32_MIN && er->hi <= INT32_MAX;
	}
	*er = ter[*k];
	return tfits[(*k)++];
}

/* The program's offset off's slot (its address a key), its terms and width
 * found once while it is among the offsets met last: they depend only on
 * the expression and its names' ranges, which emission does not change.
 * The slots are a cache (two ways of SUM_SETS sets, the way used less
 * recently taken): an offset's slot serves the trips of its unrolled loop,
 * and is garbage after it. One taken by another offset is made again when
 * this one comes back; what it would have kept is an address offset_addr
 * then makes again of the same pure() instructions (its terms' registers,
 * each found again), so the output is the same. */
static struct SumSlot *program_terms(Gen *g, const Expr *off)
{
	unsigned set = (unsigned)(((uint64_t)(uintptr_t)off * 0x9E3779B97F4A7C15u) >> 59) & (SUM_SETS - 1);
	if (!g->sums)
		g->sums = xalloc(sizeof *g->sums * 2 * SUM_SETS); /* zeroed: free */
	struct SumSlot *s = &g->sums[2 * set];
	if (s[0].off == off || s[1].off == off) {
		g->sumlru[set] = s[1].off == off;
		return &s[s[1].off == off];
	}
	g->sumlru[set] ^= 1;
	s += g->sumlru[set];
	*s = (struct SumSlot){ .off = off, .cap = s->cap, .t = s->t, .memo = s->memo, .aregs = s->aregs, .asigns = s->asigns };
	/* an offset like one summed lately (like_sum): its terms, of this
	 * offset's nodes; else its own, kept as a like where their facts are
	 * the Shapes' (flatten_facts) */
	struct SumLike own, *l = NULL;
	const Expr *at[MAX_TERMS];
	int li = 0; /* l's place in likeord; -1: own */
	if (!g->likes)
		g->likes = xalloc(sizeof *g->likes * SUM_LIKES);
	for (; li < g->nlike; li++) {
		l = &g->likes[g->likeord[li]];
		const struct Term *last = &l->t[l->n - 1]; /* most often told apart first: its operand last added */
		if (l->n > 1 && last->e == l->off->b && !last->may_const && off->kind == E_BIN && off->b != last->e)
			continue;
		bool lit = false;
		if (like_sum(l->off, off, DT_NONE, l->t, l->n, 0, at, &lit) != l->n)
			continue;
		if (!lit)
			break;
		/* another corner: its literals' facts and forms, the sum's facts
		 * again; alike where its width is the like's (the terms' memos are
		 * of one width) */
		Range er[MAX_TERMS], r, lr;
		bool fits[MAX_TERMS];
		int k = 0;
		memcpy(er, l->er, sizeof *er * (size_t)l->n);
		memcpy(fits, l->fits, sizeof *fits * (size_t)l->n);
		for (int i = 0; i < l->n; i++)
			if (at[i] != l->t[i].e && int_literal(at[i]))
				fits[i] = low_facts_of(at[i], &er[i], &lr);
		if (like_facts(off, DT_NONE, er, fits, &k, &r) == l->wide)
			continue;
		memcpy(l->er, er, sizeof *er * (size_t)l->n);
		memcpy(l->fits, fits, sizeof *fits * (size_t)l->n);
		l->formed = true;
		for (int i = 0; i < l->n; i++) {
			struct Term *t = &l->t[i];
			if (at[i] != t->e && int_literal(at[i]))
				*t = (struct Term){ .e = at[i], .sign = t->sign, .hint = t->hint, .may_const = true }, trip_form(g, t);
			l->formed = l->formed && (t->form || !t->may_const);
		}
		break;
	}
	if (li == g->nlike) {
		struct Term t[MAX_TERMS];
		struct Shape *sh[MAX_TERMS];
		struct TermFacts f;
		s->n = sum_terms(off, &s->wide, t, g, sh, &f);
		if (s->n <= 0)
			return s;
		if (!f.given)
			l = &own, li = -1;
		else if (g->nlike < SUM_LIKES)
			l = &g->likes[g->likeord[li] = (unsigned char)g->nlike++];
		else
			l = &g->likes[g->likeord[--li]]; /* the like used longest ago */
		l->n = s->n, l->wide = s->wide, l->formed = true;
		memcpy(l->t, t, sizeof *t * (size_t)s->n);
		memcpy(l->er, f.er, sizeof *l->er * (size_t)s->n);
		memcpy(l->fits, f.fits, sizeof *l->fits * (size_t)s->n);
		for (int i = 0; i < s->n; i++) {
			if (t[i].may_const)
				trip_form(g, &l->t[i]);
			l->formed = l->formed && (l->t[i].form || !t[i].may_const);
			struct TermMemo **m = sh[i] && !int_literal(t[i].e) ? &sh[i]->m[s->wide] : NULL;
			if (m && !*m) /* a literal: a constant, no register to share */
				*m = xalloc(sizeof **m);
			l->memo[i] = m ? *m : NULL; /* NULL: term_val makes it (a term mostly constant needs none) */
			at[i] = t[i].e;
		}
	}
	if (li > 0) { /* the like used last first */
		unsigned char k = g->likeord[li];
		memmove(&g->likeord[1], &g->likeord[0], (size_t)li);
		g->likeord[0] = k;
	}
	s->n = l->n, s->wide = l->wide, s->formed = l->formed;
	if (s->n > s->cap) { /* room for the longest sum so far: the arrays of a few terms, reused */
		s->cap = s->n < 4 ? 4 : s->n;
		s->t = xalloc(sizeof *s->t * (size_t)s->cap);
		s->memo = xalloc(sizeof *s->memo * (size_t)s->cap);
		s->aregs = xalloc(sizeof *s->aregs * (size_t)s->cap);
		s->asigns = xalloc(sizeof *s->asigns * (size_t)s->cap);
	}
	memcpy(s->memo, l->memo, sizeof *s->memo * (size_t)s->n);
	for (int i = 0; i < s->n; i++)
		s->t[i] = l->t[i], s->t[i].e = at[i];
	if (li >= 0) /* the like now of this offset's nodes: the next copy's shared terms found by address */
		l->off = off, memcpy(l->t, s->t, sizeof *s->t * (size_t)s->n);
	return s;
}

/* m's register still stands: the same epoch and width (g->wide as the
 * term is evaluated), and each name it read bound as it was (its cell's
 * innermost binding, no look-up) */
static inline bool memo_valid(Gen *g, const struct TermMemo *m, bool wide)
{
	if (!m->ok || m->epoch != g->epoch || m->wide != wide)
		return false;
	for (int i = 0; i < m->ndeps; i++) {
		const struct Dep *d = &m->dep[i];
		const Bind *x = d->cell->top;
		if (!x || x->id != d->id || x->v.s != d->vs || x->ival != d->ival)
			return false;
	}
	return true;
}

/* A term's value as offset_addr sums it: an integer immediate, or a register
 * of dtype rt. With a memo (a term of the program's offset), a register
 * found before is given again: evaluating the term again would find the
 * same pure() instructions and write nothing, so the output is the same. */
/* A term made of integer literals and names bound to integers (an unrolled
 * loop's counter: f * 1024) as ev() folds it, when every step fits 32 bits
 * and every operand is an integer (ev()'s own folding, in the dtype of its
 * operands, is then exact). */
static bool trip_const(Gen *g, const Expr *e, int64_t *v)
{
	if (int_literal(e)) {
		*v = e->val ? e->val->i : e->ival;
	} else if (e->kind == E_NAME && !e->val) {
		Bind *x = lookup(g, e->str);
		if (!x || !x->is_int)
			return false;
		*v = x->ival;
	} else if (e->kind == E_BIN && !e->val && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) &&
	           !(low_known(e->a->dtype) && !is_int(e->a->dtype)) && !(low_known(e->b->dtype) && !is_int(e->b->dtype))) {
		int64_t a, b;
		if (!trip_const(g, e->a, &a) || !trip_const(g, e->b, &b))
			return false;
		*v = e->op == OP_ADD ? a + b : e->op == OP_SUB ? a - b : a * b; /* 32-bit operands: no overflow */
	} else {
		return false;
	}
	return *v >= INT32_MIN && *v <= INT32_MAX;
}

static Val term_val(Gen *g, const struct Term *t, int rt, struct TermMemo **mp)
{
	int64_t k;
	if (t->may_const && t->hint != DT_BOOL && !is_float(t->hint) &&
	    (t->form && !g->noting ? trip_form_const(t, &k) : trip_const(g, t->e, &k))) /* as lit_int reads it */
		return (Val){ .dt = DT_INT32, .imm = true, .i = k }; /* imm() less its text: offset_addr adds the value */
	if (g->noting) /* within a term being noted: its memo would not see this one's names */
		g->nimpure++, mp = NULL;
	struct TermMemo *m = mp ? *mp : NULL;
	if (m && memo_valid(g, m, g->wide))
		return m->v;
	if (mp && !m)
		m = *mp = xalloc(sizeof *m);
	unsigned epoch = g->epoch, nimpure = g->nimpure;
	int errors = g->d->errors, d0 = g->ndeps;
	bool noting = g->noting;
	g->noting = m != NULL;
	Val v = ev(g, t->e, t->hint);
	if (!(v.imm && is_int(v.dt)))
		v = in_reg(g, conv(g, v, rt));
	g->noting = noting;
	if (m) {
		m->ok = !v.imm && epoch == g->epoch && nimpure == g->nimpure && errors == g->d->errors;
		m->ndeps = 0;
		for (int i = d0; i < g->ndeps && m->ok; i++) {
			int j = 0;
			while (j < m->ndeps && m->dep[j].id != g->deps[i].id)
				j++;
			if (j < m->ndeps)
				continue;
			if (m->ndeps == MEMO_DEPS)
				m->ok = false;  /* too many names to check: evaluated again */
			else
				m->dep[m->ndeps++] = g->deps[i];
		}
		m->epoch = epoch;
		m->wide = g->wide;
		m->v = v;
	}
	g->ndeps = d0;
	return v;
}

/* The constant part of a program offset's sum (*c), where the rest is the
 * register its address was last made of (s->addr): the same epoch and
 * base, each term a trip's constant (its form) or one whose memo stands
 * and gives the register it gave then. What offset_addr's loop over the
 * terms would find then, read without evaluating them; false: the loop
 * decides. */
static bool sum_again(Gen *g, const struct SumSlot *s, const char *base, int64_t *c)
{
	if (!s->abase || !s->formed || s->aepoch != g->epoch || s->abase != base || g->noting || g->d->errors)
		return false;
	bool wide = g->wide || s->wide;  /* g->wide as the loop evaluates the terms */
	int64_t sum = 0, k;  /* at most MAX_TERMS terms, each within 32 bits: no overflow */
	int j = 0;
	for (int i = 0; i < s->n; i++) {
		const struct Term *t = &s->t[i];
		if (t->form) {
			if (!trip_form_const(t, &k))
				return false;
			sum += t->sign > 0 ? k : -k;
			continue;
		}
		const struct TermMemo *m = s->memo[i];
		if (j == s->naregs || !m || !memo_valid(g, m, wide) || m->v.s != s->aregs[j] || t->sign != s->asigns[j])
			return false;
		j++;
	}
	*c = sum;
	return j == s->naregs;
}

/* The address offset_addr makes of the register terms regs[] (signs[]),
 * in width wide, times esize plus base: only pure() instructions, which
 * within one epoch pure() finds again and writes nothing for; so the
 * address made once in an epoch is the address again (the copies of a
 * kernel sum the same registers of tid, each copy's offset another
 * expression). An entry of an epoch before is free. */
struct AddrSlot {
	unsigned epoch;
	bool wide;
	int sp, nregs;
	const char *base;
	int64_t esize;
	uint64_t h;
	const char **regs;
	int *signs;
	Val a;
};

static struct AddrSlot *addr_slot(Gen *g, const struct AddrSlot *k)
{
	if (2 * (g->naddrs + 1) > g->addrcap) { /* the entries of this epoch moved, the others left */
		int n = g->addrcap, live = 0, cap = n ? n : 16;
		for (int i = 0; i < n; i++)
			live += g->addrs[i].regs && g->addrs[i].epoch == g->epoch;
		if (4 * (live + 1) > cap) /* naddrs counts the entries of epochs before too */
			cap *= 2;
		struct AddrSlot *t = xalloc(sizeof *t * (size_t)cap), *old = g->addrs;
		g->addrs = t, g->addrcap = cap, g->naddrs = 0;
		for (int i = 0; i < n; i++)
			if (old[i].regs && old[i].epoch == g->epoch)
				*addr_slot(g, &old[i]) = old[i], g->naddrs++;
	}
	unsigned i = (unsigned)(k->h >> 32) & (unsigned)(g->addrcap - 1);
	for (struct AddrSlot *t = g->addrs;; i = (i + 1) & (unsigned)(g->addrcap - 1)) {
		if (!t[i].regs || t[i].epoch != g->epoch) /* free: k is not in the table */
			return &t[i];
		if (t[i].h == k->h && t[i].base == k->base && t[i].sp == k->sp && t[i].esize == k->esize &&
		    t[i].wide == k->wide && t[i].nregs == k->nregs) {
			int j = 0;
			while (j < k->nregs && t[i].regs[j] == k->regs[j] && t[i].signs[j] == k->signs[j])
				j++;
			if (j == k->nregs)
				return &t[i];
		}
	}
}

/* base + off * esize (off an element offset: program says the program's
 * expression, else one made for this access), in base's state space. */
static Val offset_addr(Gen *g, Val base, const Expr *off, bool program, int64_t esize)
{
	bool wide;
	struct Term tl[MAX_TERMS];
	struct SumSlot *slot = program ? program_terms(g, off) : NULL;
	int64_t c = 0, cb;
	if (slot && sum_again(g, slot, base.s, &c) && !__builtin_mul_overflow(c, esize, &cb)) /* a trip of an unrolled loop */
		return cb ? pure_addk(g, base.sp, slot->addr.s, cb) : slot->addr;
	c = 0;
	int n = slot ? (wide = slot->wide, slot->n) : sum_terms(off, &wide, tl, NULL, NULL, NULL);
	const struct Term *t = slot ? slot->t : tl;
	if (n <= 0) {
		bool was = g->wide;
		g->wide = was || wide;
		Val v = ev(g, off, DT_NONE);
		g->wide = was;
		return addr_plus(g, base, conv(g, v, DT_INT64), esize);
	}
	int rt = wide ? DT_INT64 : DT_INT32;
	const char *T = wide ? "s64" : "s32";
	const char *regs[MAX_TERMS];
	int signs[MAX_TERMS], nregs = 0;
	bool was = g->wide;
	g->wide = was || wide;
	for (int i = 0; i < n && !g->d->errors; i++) {
		Val v = term_val(g, &t[i], rt, slot ? &slot->memo[i] : NULL);
		if (v.imm) {
			if (t[i].sign > 0 ? __builtin_add_overflow(c, v.i, &c) : __builtin_sub_overflow(c, v.i, &c))
				return fail(g, off, "an offset's constant part overflows 64 bits");
		} else {
			regs[nregs] = v.s, signs[nregs++] = t[i].sign;
		}
	}
	g->wide = was;
	if (g->d->errors)
		return imm(0, DT_HANDLE);
	if (__builtin_mul_overflow(c, esize, &cb))
		return fail(g, off, "an offset's constant part overflows 64 bits");
	if (!nregs)
		return addr_plus(g, base, imm(c, DT_INT64), esize);
	Val a;
	int same = 0; /* the registers and signs that are the last address's */
	if (slot && slot->aepoch == g->epoch && slot->abase == base.s && slot->naregs == nregs)
		while (same < nregs && slot->aregs[same] == regs[same] && slot->asigns[same] == signs[same])
			same++;
	bool again = slot && same == nregs && slot->abase;
	struct AddrSlot k = { g->epoch, wide, base.sp, nregs, base.s, esize, 0, regs, signs, { 0 } }, *as = NULL;
	if (!again) {
		uint64_t h = ((uint64_t)(uintptr_t)base.s ^ (uint64_t)esize << 1 ^ (uint64_t)wide) * 0x9E3779B97F4A7C15u;
		for (int i = 0; i < nregs; i++)
			h = (h ^ (uint64_t)(uintptr_t)regs[i] ^ (uint64_t)(signs[i] < 0)) * 0x9E3779B97F4A7C15u;
		k.h = h ^ (h >> 29);
		as = addr_slot(g, &k);
	}
	if (again) {
		a = slot->addr; /* the same instructions again would be found, and write nothing */
	} else if (as->regs && as->epoch == g->epoch) {
		a = as->a;
	} else {
		Val r = { .s = regs[0], .dt = rt };
		if (signs[0] < 0)
			r = pure(g, rt, 0, "neg.%s %s, %s;", T, D, r.s);
		for (int i = 1; i < nregs; i++)
			r = pure(g, rt, 0, "%s.%s %s, %s, %s;", signs[i] > 0 ? "add" : "sub", T, D, r.s, regs[i]);
		if (base.sp == SP_SHARED) {
			/* 32-bit shared addresses: the low 32 bits of the sum, as addr_plus */
			Val o = wide ? pure(g, DT_UINT32, 0, "cvt.u32.u64 %s, %s;", D, r.s) : r;
			a = pure_mad(g, SP_SHARED, o.s, esize, base.s);
		} else {
			r = conv(g, r, DT_INT64);
			a = pure_mad(g, base.sp, r.s, esize, base.s);
		}
		if (k.epoch == g->epoch) { /* else a forget() since: the address is not kept */
			k.regs = xalloc(sizeof *regs * (size_t)nregs);
			k.signs = xalloc(sizeof *signs * (size_t)nregs);
			memcpy(k.regs, regs, sizeof *regs * (size_t)nregs);
			memcpy(k.signs, signs, sizeof *signs * (size_t)nregs);
			k.a = a;
			*as = k;
			g->naddrs++;
		}
	}
	if (slot && !again) { /* its arrays: room for n terms */
		memcpy(slot->aregs, regs, sizeof *regs * (size_t)nregs);
		memcpy(slot->asigns, signs, sizeof *signs * (size_t)nregs);
		slot->naregs = nregs, slot->aepoch = g->epoch, slot->abase = base.s, slot->addr = a;
	}
	if (cb)
		a = pure_addk(g, base.sp, a.s, cb);
	return a;
}

/* b's base address; r: its root (buffer_root) */
static inline Val root_base(Gen *g, Buffer *b, Buffer *r, const Expr *at)
{
	int i = buf_index(g, r);
	if (i < 0 || !g->base[i].s)
		return unsupported(g, at, xprintf("buffer '%s' in %s memory", b->name, scopes[r->scope].name));
	return g->base[i];
}

static Val buffer_base(Gen *g, Buffer *b, const Expr *at) { return root_base(g, b, buffer_root(b), at); }

/* buf[i, j]: the element's address (layout and swizzle applied). */
static Val element_addr(Gen *g, const Expr *e, Buffer **bp)
{
	Buffer *b = buffer_of(g, e->a);
	const char *why = NULL;
	if (!b)
		return fail(g, e, "only buffers are indexed");
	if (buffer_root(b)->scope == SC_TMEM)
		return fail(g, e, xprintf("tensor memory ('%s') is read and written only by tcgen05 intrinsics", b->name));
	Expr *off = buffer_offset_expr(b, e->args, &why);
	if (!off)
		return fail(g, e, why);
	if (bp)
		*bp = b;
	Val base = buffer_base(g, b, e);
	if (!base.s || g->d->errors)
		return imm(0, DT_HANDLE);
	return offset_addr(g, base, off, false, bits(b->dtype) / 8);
}

static const char *space_name(int sp) { return sp == SP_SHARED ? "shared" : sp == SP_GLOBAL ? "global" : "local"; }

static Val load(Gen *g, const Expr *e)
{
	Buffer *b = NULL;
	Val a = element_addr(g, e, &b);
	if (!b || g->d->errors)
		return imm(0, DT_INT32);
	int dt = b->dtype;
	int nci = a.sp == SP_GLOBAL ? nc_index(g, b) : -1;
	bool nc = nci >= 0;
	if (nc)
		note_nc(g, nci, g->out->n + 10); /* "\tld.global" before it */
	if (dt == DT_BOOL) {
		const char *t = newreg(g, R_R);
		ins(g, "ld.%s%s.u8 %s, [%s]; // element", space_name(a.sp), nc ? ".nc" : "", t, a.s);
		Val r = reg(g, DT_BOOL);
		ins(g, "setp.ne.b32 %s, %s, 0;", r.s, t);
		return r;
	}
	Val r = reg(g, dt);
	ins(g, "ld.%s%s.%s %s, [%s]; // element", space_name(a.sp), nc ? ".nc" : "", mem_ty(dt), r.s, a.s);
	return r;
}

static Val address(Gen *g, const Expr *e);

static Val cast(Gen *g, const Expr *x, int to)
{
	int from = x->dtype;
	if (!low_known(from))
		return conv(g, ev(g, x, to), to);
	Val v = conv(g, ev(g, x, from), from);
	return conv(g, v, to);
}

static Val binary(Gen *g, const Expr *e, int hint);

/* T.pointer_offset(buf, off): the address (each copy's loop makes two a trip) */
static Val pointer_offset(Gen *g, const Expr *e)
{
	Buffer *b = buffer_of(g, e->args[0]), *r = b ? buffer_root(b) : NULL;
	if (!b || r->scope == SC_TMEM)
		return fail(g, e, "T.pointer_offset takes a buffer in memory (not tensor memory)");
	Val base = root_base(g, b, r, e);
	if (!base.s || g->d->errors)
		return imm(0, DT_HANDLE);
	Val a = offset_addr(g, base, e->args[1], true, bits(b->dtype) / 8);
	a.i = (int64_t)(intptr_t)b; /* the buffer it points into (addr_buffer) */
	return a;
}

/* A call's value, id and dt its builtin as resolve() reads it */
static Val call_expr_id(Gen *g, const Expr *e, int id, int dt)
{
	if ((dt && e->nargs == 1) || id == IN_CAST) {
		Pos at = g->at;
		g->at = expr_start(e); /* a conversion's error names the call */
		Val v = cast(g, e->args[0], id == IN_CAST ? e->dtype : dt);
		g->at = at;
		return v;
	}
	switch (id) {
	case IN_MIN: case IN_MAX: {
		int t = low_concrete(e->dtype);
		Val a = in_reg(g, conv(g, ev(g, e->args[0], t), t)), b = conv(g, ev(g, e->args[1], t), t);
		Val r = reg(g, t);
		if (is_int(t)) {
			ins(g, "%s.%s %s, %s, %s;", id == IN_MIN ? "min" : "max", ty(t), r.s, a.s, b.s);
		} else {
			/* txc_min: b < a ? b : a; txc_max: a < b ? b : a (halves compared exactly, as floats) */
			b = in_reg(g, b);
			Val fa = low_is_half(t) ? conv(g, a, DT_FLOAT32) : a, fb = low_is_half(t) ? conv(g, b, DT_FLOAT32) : b;
			const char *p = newreg(g, R_P), *ct = low_is_half(t) ? "f32" : ty(t);
			ins(g, "setp.lt.%s %s, %s, %s;", ct, p, id == IN_MIN ? fb.s : fa.s, id == IN_MIN ? fa.s : fb.s);
			ins(g, "selp.%s %s, %s, %s, %s;", low_is_half(t) ? "b16" : ty(t), r.s, b.s, a.s, p);
		}
		return r;
	}
	case IN_ADDRESS_OF:
		return address(g, e);
	case IN_POINTER_OFFSET:
		return pointer_offset(g, e);
	case IN_TMEM_ADDR: {
		Val a = in_reg(g, conv(g, ev(g, e->args[0], DT_UINT32), DT_UINT32));
		Val row = conv(g, ev(g, e->args[1], DT_UINT32), DT_UINT32), col = conv(g, ev(g, e->args[2], DT_UINT32), DT_UINT32);
		Val r = reg(g, DT_UINT32), t = reg(g, DT_UINT32);
		ins(g, "shl.b32 %s, %s, 16;", t.s, in_reg(g, row).s);
		ins(g, "add.s32 %s, %s, %s;", r.s, a.s, t.s);
		ins(g, "add.s32 %s, %s, %s;", r.s, r.s, col.s);
		return r;
	}
	case IN_ELECT_SYNC: {
		Val r = reg(g, DT_BOOL);
		const char *m = newreg(g, R_R);
		ins(g, "activemask.b32 %s;", m);
		ins(g, "elect.sync _|%s, %s;", r.s, m);
		return r;
	}
	}
	return fail(g, e, xprintf("'%s' is not supported by txc-ptx yet (use --backend=cuda)", expr_str(e->a)));
}

static Val call_expr(Gen *g, const Expr *e)
{
	int dt, id = resolve(e, &dt);
	return call_expr_id(g, e, id, dt);
}

/* The natural dtype of a runtime name's value (64 bits in an offset that
 * may pass 2^31, as txc-cuda's (int64_t) casts make it). */
/* A name's value, x its binding (lookup's) */
static inline Val bound_val(Gen *g, const Expr *e, Bind *x)
{
	if (x && x->is_int)
		return lit_int(g, x->ival, DT_NONE);
	if (!x || !x->has_val)
		return fail(g, e, xprintf("'%s' is not a value txc-ptx can hold", e->str));
	Val v = x->v;
	if (g->wide && is_int(v.dt) && bits(v.dt) < 64)
		v = conv(g, v, DT_INT64);
	return v;
}

static Val name_val(Gen *g, const Expr *e) { return bound_val(g, e, lookup(g, e->str)); }

static const char *arith_ty(int t, int op)
{
	if (op == OP_SHL || op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR)
		return reg_class(t) == R_RD ? "b64" : "b32";
	return ty(t);
}

/* Python's // and % with floor semantics on signed operands. */
static Val floor_divmod(Gen *g, int t, Val a, Val b, bool mod)
{
	a = in_reg(g, a), b = in_reg(g, b);
	const char *T = ty(t);
	Val q = reg(g, t), r = reg(g, t);
	ins(g, "div.%s %s, %s, %s;", T, q.s, a.s, b.s);
	ins(g, "rem.%s %s, %s, %s;", T, r.s, a.s, b.s);
	/* r != 0 and (r < 0) != (b < 0): q - 1, r + b */
	const char *p = newreg(g, R_P), *p2 = newreg(g, R_P), *p3 = newreg(g, R_P);
	ins(g, "setp.ne.%s %s, %s, 0;", T, p, r.s);
	ins(g, "setp.lt.%s %s, %s, 0;", T, p2, r.s);
	ins(g, "setp.lt.%s %s, %s, 0;", T, p3, b.s);
	ins(g, "xor.pred %s, %s, %s;", p2, p2, p3);
	ins(g, "and.pred %s, %s, %s;", p, p, p2);
	if (mod)
		ins(g, "@%s add.%s %s, %s, %s;", p, T, r.s, r.s, b.s);
	else
		ins(g, "@%s sub.%s %s, %s, 1;", p, T, q.s, q.s);
	return mod ? r : q;
}

static Val binary(Gen *g, const Expr *e, int hint)
{
	int op = e->op, it = low_known(e->a->dtype) ? e->a->dtype : low_known(e->b->dtype) ? e->b->dtype : hint;
	if (low_is_fp8(it))
		return fail(g, e, "arithmetic on float8 values; convert them with T.cast to float32 first");
	if (op == OP_MATMUL || op == OP_POW || op >= OP_COUNT)
		return fail(g, e, xprintf("'%s' on runtime values has no CUDA form", op_spelling[op]));
	Val a = ev(g, e->a, it), b = ev(g, e->b, it);
	if (g->d->errors)
		return imm(0, DT_INT32);
	int t = common(a.dt, b.dt);
	bool cmp = e->kind == E_CMP;
	int ht = a.dt;
	bool half = low_is_half(a.dt) && a.dt == b.dt && !cmp; /* half op half: a half, computed through float */
	if (half)
		t = DT_FLOAT32;
	a = conv(g, a, t), b = conv(g, b, t);
	/* constant folding of two integer immediates (+ - * & | ^) */
	if (a.imm && b.imm && is_int(t) && !cmp) {
		int64_t x = a.i, y = b.i, z;
		bool ok = true;
		switch (op) {
		case OP_ADD: ok = !__builtin_add_overflow(x, y, &z); break;
		case OP_SUB: ok = !__builtin_sub_overflow(x, y, &z); break;
		case OP_MUL: ok = !__builtin_mul_overflow(x, y, &z); break;
		case OP_BITAND: z = x & y; break;
		case OP_BITOR: z = x | y; break;
		case OP_BITXOR: z = x ^ y; break;
		default: ok = false;
		}
		if (ok) {
			Val r = conv(g, imm(z, DT_INT64), t);
			if (e->kind == E_BIN && is_int(it) && bits(it) < 32)
				r = conv(g, r, it);
			return r;
		}
	}
	/* an immediate on the left of a commutative operation goes right; x + 0, x * 1 are x */
	if (a.imm && !b.imm && is_int(t) && !cmp &&
	    (op == OP_ADD || op == OP_MUL || op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR)) {
		Val x = a;
		a = b, b = x;
	}
	if (b.imm && !a.imm && is_int(t) && !cmp &&
	    ((b.i == 0 && (op == OP_ADD || op == OP_SUB || op == OP_BITOR || op == OP_BITXOR || op == OP_SHL || op == OP_SHR)) ||
	     (b.i == 1 && op == OP_MUL))) {
		Val r = a;
		r.dt = t;
		if (e->kind == E_BIN && is_int(it) && bits(it) < 32)
			r = conv(g, r, it);
		return r;
	}
	a = in_reg(g, a);
	if (b.imm && (is_float(t) || t == DT_BOOL))
		b = in_reg(g, b);
	if (t == DT_BOOL) /* comparisons of bools: as ints */
		a = conv(g, a, DT_INT32), b = conv(g, b, DT_INT32), t = DT_INT32;
	const char *T = ty(t);
	if (cmp) {
		static const char *const cc[OP_COUNT] = { [OP_LT] = "lt", [OP_LE] = "le", [OP_GT] = "gt", [OP_GE] = "ge",
		                                          [OP_EQ] = "eq", [OP_NE] = "ne" };
		/* C's float comparisons are ordered, != unordered */
		const char *c = cc[op];
		if (is_float(t) && op == OP_NE)
			c = "neu";
		return pure(g, DT_BOOL, 0, "setp.%s.%s %s, %s, %s;", c, T, D, a.s, b.s);
	}
	Val r = {0};
	switch (op) {
	case OP_ADD: r = pure(g, t, 0, "add.%s %s, %s, %s;", T, D, a.s, b.s); break;
	case OP_SUB: r = pure(g, t, 0, "sub.%s %s, %s, %s;", T, D, a.s, b.s); break;
	case OP_MUL:
		if (is_float(t))
			r = pure(g, t, 0, "mul.rn.%s %s, %s, %s;", T, D, a.s, b.s);
		else
			r = pure(g, t, 0, "mul.lo.%s %s, %s, %s;", T, D, a.s, b.s);
		break;
	case OP_DIV: case OP_FLOORDIV: case OP_MOD:
		if (is_float(t)) {
			if (op != OP_DIV)
				return unsupported(g, e, xprintf("'%s' on float values", op_spelling[op]));
			r = pure(g, t, 0, "div.rn.%s %s, %s, %s;", T, D, a.s, b.s);
			break;
		}
		if (op != OP_DIV && !is_uint(t) && !nonneg_div(g, e))
			return floor_divmod(g, t, a, b, op == OP_MOD);
		r = pure(g, t, 0, "%s.%s %s, %s, %s;", op == OP_MOD ? "rem" : "div", T, D, a.s, b.s);
		break;
	case OP_SHL: case OP_SHR: {
		Val s = conv(g, b, DT_UINT32);
		if (op == OP_SHL)
			r = pure(g, t, 0, "shl.%s %s, %s, %s;", arith_ty(t, op), D, a.s, s.s);
		else
			r = pure(g, t, 0, "shr.%s %s, %s, %s;", T, D, a.s, s.s);
		break;
	}
	case OP_BITAND: r = pure(g, t, 0, "and.%s %s, %s, %s;", arith_ty(t, op), D, a.s, b.s); break;
	case OP_BITOR: r = pure(g, t, 0, "or.%s %s, %s, %s;", arith_ty(t, op), D, a.s, b.s); break;
	case OP_BITXOR: r = pure(g, t, 0, "xor.%s %s, %s, %s;", arith_ty(t, op), D, a.s, b.s); break;
	default:
		return fail(g, e, xprintf("'%s' on runtime values has no CUDA form", op_spelling[op]));
	}
	if (half)
		return conv(g, r, ht);
	if (e->kind == E_BIN && is_int(it) && bits(it) < 32) /* wrap as the dtype does */
		r = conv(g, r, it);
	return r;
}

/* a and b, a or b, with C's short circuit. */
static Val logic(Gen *g, const Expr *e)
{
	bool and = e->kind == E_AND;
	Val r = reg(g, DT_BOOL);
	Val a = in_reg(g, conv(g, ev(g, e->a, DT_BOOL), DT_BOOL));
	const char *end = label(g);
	ins(g, "mov.pred %s, %s;", r.s, a.s);
	ins(g, "@%s%s bra %s;", and ? "!" : "", r.s, end);
	Val b = in_reg(g, conv(g, ev(g, e->b, DT_BOOL), DT_BOOL));
	ins(g, "mov.pred %s, %s;", r.s, b.s);
	put_label(g, end);
	return r;
}

static Val select_expr(Gen *g, const Expr *e, int hint)
{
	int t = low_known(e->dtype) ? e->dtype : hint;
	Val c = in_reg(g, conv(g, ev(g, e->a, DT_BOOL), DT_BOOL));
	const char *els = label(g), *end = label(g);
	ins(g, "@!%s bra %s;", c.s, els);
	Val b = ev(g, e->b, t);
	int rt = low_known(t) ? t : b.dt;
	Val r = reg(g, rt);
	b = in_reg(g, conv(g, b, rt));
	ins(g, "mov.%s %s, %s;", reg_type[reg_class(rt)] + 1, r.s, b.s);
	ins(g, "bra.uni %s;", end);
	put_label(g, els);
	Val c2 = in_reg(g, conv(g, ev(g, e->c, t), rt));
	ins(g, "mov.%s %s, %s;", reg_type[reg_class(rt)] + 1, r.s, c2.s);
	put_label(g, end);
	return r;
}

static Val ev(Gen *g, const Expr *e, int hint)
{
	const Value *v = e->val;
	if (v && v->kind == V_INT)
		return lit_int(g, v->i, hint);
	if (v && v->kind == V_FLOAT)
		return lit_float(g, v->f, hint);
	if (v && v->kind == V_BOOL)
		return hint == DT_BOOL || !low_known(hint) ? imm(v->i != 0, DT_BOOL) : lit_int(g, v->i, hint);
	switch (e->kind) {
	case E_INT: return lit_int(g, e->ival, hint);
	case E_FLOAT: return lit_float(g, e->fval, hint);
	case E_TRUE: case E_FALSE: return imm(e->kind == E_TRUE, DT_BOOL);
	case E_NAME:
		return name_val(g, e);
	case E_UN: {
		int t = low_known(e->a->dtype) ? e->a->dtype : hint;
		if (e->op == OP_POS)
			return ev(g, e->a, hint);
		if (low_is_fp8(t))
			return fail(g, e, "arithmetic on float8 values; convert them with T.cast to float32 first");
		Val a = ev(g, e->a, t);
		int pt = low_is_half(a.dt) ? DT_FLOAT32 : promote(a.dt);
		a = in_reg(g, conv(g, a, pt));
		Val r = reg(g, pt);
		if (e->op == OP_NEG)
			ins(g, "neg.%s %s, %s;", ty(pt), r.s, a.s);
		else
			ins(g, "not.%s %s, %s;", reg_class(pt) == R_RD ? "b64" : "b32", r.s, a.s);
		if (low_is_half(a.dt) || low_is_half(t))
			r = conv(g, r, t);
		if (is_int(t) && bits(t) < 32)
			r = conv(g, r, t);
		return r;
	}
	case E_BIN: case E_CMP:
		return binary(g, e, hint);
	case E_AND: case E_OR:
		return logic(g, e);
	case E_NOT: {
		Val a = in_reg(g, conv(g, ev(g, e->a, DT_BOOL), DT_BOOL));
		Val r = reg(g, DT_BOOL);
		ins(g, "not.pred %s, %s;", r.s, a.s);
		return r;
	}
	case E_COND:
		return select_expr(g, e, hint);
	case E_INDEX:
		return load(g, e);
	case E_CALL:
		return call_expr(g, e);
	default:
		return fail(g, e, xprintf("'%s' is not supported by txc-ptx yet", expr_str(e)));
	}
}

/* An address operand: T.address_of(x), a buffer element, a buffer, a
 * handle (with xp: *xp the binding of e when e is a name). */
static Val address_slow(Gen *g, const Expr *e, Bind *x, Bind **xp);
static inline Val address_x(Gen *g, const Expr *e, Bind **xp)
{
	Bind *x = e->kind == E_NAME ? lookup(g, e->str) : NULL; /* a name: looked up once (buffer_of, name_val) */
	/* a name bound to an address (a copy's s_ptr): its value, as the rest
	 * finds it (bound_val, a handle not widened), read here */
	if (x && !e->val && !x->buf && !x->is_int && x->has_val && x->v.dt == DT_HANDLE && x->v.sp) {
		if (xp)
			*xp = x;
		return x->v;
	}
	return address_slow(g, e, x, xp);
}

/* address_x past its first case; x: e's binding, e a name */
static Val address_slow(Gen *g, const Expr *e, Bind *x, Bind **xp)
{
	if (e->kind == E_CALL && low_call_id(e) == IN_ADDRESS_OF && e->nargs == 1)
		return address_x(g, e->args[0], NULL);
	if (xp)
		*xp = x;
	Buffer *b = e->kind == E_INDEX ? buffer_of(g, e->a) : x ? x->buf : NULL;
	if (b && buffer_root(b)->scope == SC_TMEM)
		return conv(g, ev(g, buffer_root(b)->alloc_addr, DT_UINT32), DT_UINT32);
	Val r;
	if (b && e->kind == E_INDEX) {
		r = element_addr(g, e, NULL);
	} else if (b) {
		r = buffer_base(g, b, e);
	} else {
		r = e->kind == E_NAME && !e->val ? bound_val(g, e, x) : ev(g, e, DT_HANDLE);
		if (r.dt != DT_HANDLE || !r.sp)
			return g->d->errors ? r : unsupported(g, e, "an address txc-ptx cannot follow to its memory");
		return r;
	}
	r.i = (int64_t)(intptr_t)b;
	return r;
}

static Val address(Gen *g, const Expr *e) { return address_x(g, e, NULL); }

/* The buffer an address operand points into (for .nc), or NULL; x: e's
 * binding where address_x found it (e a name), else NULL. */
static Buffer *addr_buffer(Gen *g, const Expr *e, Bind *x)
{
	if (e->kind == E_CALL && low_call_id(e) == IN_ADDRESS_OF && e->nargs == 1)
		return addr_buffer(g, e->args[0], NULL);
	if (e->kind == E_INDEX)
		return buffer_of(g, e->a);
	if (e->kind == E_NAME) { /* a buffer, or a handle bound to an address into one */
		if (!x)
			x = lookup(g, e->str);
		return x && x->buf ? x->buf : x && x->has_val && x->v.dt == DT_HANDLE ? (Buffer *)(intptr_t)x->v.i : NULL;
	}
	if (low_call_id(e) == IN_POINTER_OFFSET)
		return buffer_of(g, e->args[0]);
	return NULL;
}

/* ---- statements --------------------------------------------------------------------- */

static void stmt(Gen *g, Stmt *s);

static void block(Gen *g, Stmt **v, int n)
{
	int mark = names_at(&g->binds);
	for (int i = 0; i < n && !g->d->errors; i++)
		stmt(g, v[i]);
	names_unbind(&g->binds, mark);
}

static Val need(Gen *g, const Expr *e, int dt) { return in_reg(g, conv(g, ev(g, e, dt), dt)); }
static Val need_imm(Gen *g, const Expr *e, int dt) { return conv(g, ev(g, e, dt), dt); }

/* copy_bytes' text around its operands: "\tld.SPACE[.nc]V.T " and
 * "];\n\tst.SPACE.V.T [", made once per kind of copy (what they are made
 * of is the key; quals by address, its text never changes). */
struct CopyHead { int ssp, dsp; bool nc; int64_t n; const char *quals, *ld, *st; size_t ldn, stn; };

static const struct CopyHead *copy_head(Gen *g, int ssp, int dsp, bool nc, int64_t n, const char *quals)
{
	if (!g->heads)
		g->heads = xalloc(sizeof *g->heads * COPY_HEADS);
	for (int i = 0; i < g->nheads && i < COPY_HEADS; i++) {
		const struct CopyHead *h = &g->heads[i];
		if (h->ssp == ssp && h->dsp == dsp && h->nc == nc && h->n == n && h->quals == quals)
			return h;
	}
	const char *t = n == 1 ? "u8" : n == 2 ? "u16" : "u32";
	int nv = n == 8 ? 2 : n == 16 ? 4 : 1;
	const char *v = nv == 1 ? "" : nv == 2 ? ".v2" : ".v4";
	Buf ld = { 0 };
	bputs(&ld, "\tld.");
	if (strcmp(quals, "nc") != 0 && ssp == SP_GLOBAL) {
		bputs(&ld, "global.");
		bputs(&ld, quals);
	} else {
		bputs(&ld, space_name(ssp));
		if (nc && ssp == SP_GLOBAL)
			bputs(&ld, ".nc");
	}
	bprintf(&ld, "%s.%s ", v, t);
	const char *st = xprintf("];\n\tst.%s%s.%s [", space_name(dsp), v, t);
	struct CopyHead *h = &g->heads[g->nheads++ % COPY_HEADS]; /* more kinds: the oldest made again */
	*h = (struct CopyHead){ ssp, dsp, nc, n, quals, ld.s, st, ld.n, strlen(st) };
	return h;
}

/* T.cuda.copy_bytes(dst, src, n[, nc]): one vector load, one vector store
 * (txc-cuda's helper: uint8_t, uint16_t, uint32_t, uint2, uint4). */
static void copy_bytes(Gen *g, const Expr *e)
{
	int64_t n = arg_int(g, e, 2, 16);
	bool nc = e->nargs > 3;
	/* the load's qualifiers (ld_quals_check), as txc-cuda's inline ld.global.QUALS */
	const char *quals = nc ? const_str(g, e->args[3]) : "nc";
	Bind *sx = NULL;
	Val d = address(g, e->args[0]), s = address_x(g, e->args[1], &sx);
	if (g->d->errors)
		return;
	Buffer *sb = addr_buffer(g, e->args[1], sx); /* its binding as address_x found it: nothing is bound since */
	int nci = !nc && s.sp == SP_GLOBAL && sb ? nc_index(g, sb) : -1; /* else no .nc, or .nc asked for */
	if (nci >= 0)
		nc = true;
	int nv = n == 8 ? 2 : n == 16 ? 4 : 1;
	/* {%r1, %r2, %r3, %r4}: the registers, made here (newreg's names,
	 * written here only); a number's digits copied as 12 bytes */
	char ops[4 * 16 + 16], *o = ops;
	g->nimpure += nv;
	if (nv > 1)
		*o++ = '{';
	for (int i = 0; i < nv; i++) {
		if (i)
			*o++ = ',', *o++ = ' ';
		const char *q = reg_digits(g, R_R);
		*o++ = '%', *o++ = 'r';
		memcpy(o, q, 12);
		o += g->regnum[R_R].d + 16 - q;
	}
	if (nv > 1)
		*o++ = '}';
	const struct CopyHead *h = copy_head(g, s.sp, d.sp, nc, n, quals);
	/* ld.SPACE[.nc]V.T OPS, [S]; and st.SPACE.V.T [D], OPS; as ins() would
	 * write them, in place */
	size_t on = (size_t)(o - ops), sn = strlen(s.s), dn = strlen(d.s);
	size_t len = h->ldn + on + 3 + sn + h->stn + dn + 3 + on + 2;
	char *w = room(g->out, len);
	g->nimpure += 2;
	if (nci >= 0) /* "\tld.global" before it (quals "nc": copy_head's second form) */
		note_nc(g, nci, g->out->n + 10);
#define PUT(p, k) (copy_short(w, p, k), w += (k))
	PUT(h->ld, h->ldn);
	PUT(ops, on);
	PUT(", [", 3);
	PUT(s.s, sn);
	PUT(h->st, h->stn);
	PUT(d.s, dn);
	PUT("], ", 3);
	PUT(ops, on);
	PUT(";\n", 2);
#undef PUT
	g->out->n += len;
	*w = 0;
}

/* T.cuda.zero_bytes: one vector store of zeros */
static void zero_bytes(Gen *g, const Expr *e)
{
	int64_t n = arg_int(g, e, 1, 16);
	Val d = address(g, e->args[0]);
	if (g->d->errors)
		return;
	const char *t = n == 1 ? "u8" : n == 2 ? "u16" : "u32", *z = newreg(g, R_R);
	ins(g, "mov.u32 %s, 0;", z);
	if (n <= 4)
		ins(g, "st.%s.%s [%s], %s;", space_name(d.sp), t, d.s, z);
	else if (n == 8)
		ins(g, "st.%s.v2.u32 [%s], {%s, %s};", space_name(d.sp), d.s, z, z);
	else
		ins(g, "st.%s.v4.u32 [%s], {%s, %s, %s, %s};", space_name(d.sp), d.s, z, z, z, z);
}

static void store(Gen *g, Expr *t, Expr *v, int op)
{
	Buffer *b = buffer_of(g, t->a);
	if (!b) {
		fail(g, t, "only buffers are indexed");
		return;
	}
	int dt = b->dtype;
	if (low_is_fp8(dt) && op >= 0) {
		fail(g, t, "arithmetic on float8 values; convert them with T.cast to float32 first");
		return;
	}
	Val val;
	if (op < 0) {
		val = ev(g, v, dt);
	} else {
		Expr e = { .kind = E_BIN, .pos = t->pos, .op = op, .a = t, .b = v, .dtype = dt };
		val = binary(g, &e, dt);
	}
	Pos at = g->at;
	g->at = expr_start(v);
	val = in_reg(g, conv(g, val, dt));
	g->at = at;
	Val a = element_addr(g, t, NULL);
	if (g->d->errors)
		return;
	if (dt == DT_BOOL) {
		const char *r = newreg(g, R_R);
		ins(g, "selp.u32 %s, 1, 0, %s;", r, val.s);
		ins(g, "st.%s.u8 [%s], %s; // element", space_name(a.sp), a.s, r);
		return;
	}
	ins(g, "st.%s.%s [%s], %s; // element", space_name(a.sp), mem_ty(dt), a.s, val.s);
}

/* A local array: .local storage of the kernel, its address in the local window. */
static void declare(Gen *g, Buffer *b)
{
	bind(g, b->name, b);
	Buffer *r = buffer_root(b);
	int i = buf_index(g, r);
	if (b->is_param || b->base || r->scope == SC_TMEM || i < 0)
		return;
	if (b->scope == SC_LOCAL) {
		int64_t k = buffer_storage(b);
		const char *name = xprintf("__local_%d", i);
		if (!g->local_done[i]) /* declared once; its address taken wherever the IR declares it */
			bprintf(&g->locals, "\t.local .align %lld .b8 %s[%lld];\n", (long long)(b->align > 16 ? b->align : 16), name,
		        (long long)((k > 0 ? k : 1) * bits(b->dtype) / 8));
		g->local_done[i] = true;
		Val a = { .s = newreg(g, R_RD), .dt = DT_HANDLE, .sp = SP_LOCAL };
		ins(g, "mov.u64 %s, %s;", a.s, name);
		g->base[i] = a;
	} else if (!(scopes[b->scope].flags & SCF_SHARED)) {
		error_at(g->d, b->pos, "buffer '%s' in %s memory has no PTX form", b->name, scopes[b->scope].name);
	}
}

static void assign(Gen *g, Stmt *s)
{
	Expr **t = s->targets, *v = s->value;
	int nt = s->ntargets, dt = 0;
	if (nt == 1 && t[0]->kind == E_TUPLE && !t[0]->paren) {
		nt = t[0]->nargs;
		t = t[0]->args;
	}
	if (nt == 1 && t[0]->kind == E_INDEX) {
		store(g, t[0], v, -1);
		return;
	}
	int id = v->kind == E_CALL ? resolve(v, &dt) : -1, cdt = dt;
	if (is_launch_id(id)) {
		for (int i = 0; i < nt; i++) {
			Bind *x = bind(g, t[i]->str, NULL);
			Val r = reg(g, DT_INT32);
			const GridId *gl = grid_launch(id);
			if (gl) {
				char dim = "xyz"[i];
				const char *sr = gl->cuda[0] == '%' ? xprintf("%%%s", xprintf(gl->cuda + 1, dim)) : xprintf("%%ctaid.%c", dim);
				ins(g, "mov.u32 %s, %s;", r.s, sr);
			} else {
				const LaunchId *l = thread_launch(id);
				int64_t mod = axis_mod(l->axis), div = axis_div(l->axis);
				ins(g, "mov.u32 %s, %%tid.x;", r.s);
				if (mod)
					ins(g, "rem.u32 %s, %s, %lld;", r.s, r.s, (long long)mod);
				if (div > 1)
					ins(g, "div.u32 %s, %s, %lld;", r.s, r.s, (long long)div);
			}
			x->v = r;
			x->has_val = true;
		}
		return;
	}
	if (id == IN_TENSORMAP || id == IN_TENSORMAP_IM2COL)
		return;
	if (v->kind == E_CALL && (id >= 0 ? g->decl_id[id] : v->a->kind == E_ATTR && strcmp(v->a->str, "view") == 0)) {
		Buffer *b = ptrmap_get(&g->decls, v);
		if (b) {
			declare(g, b);
			return;
		}
	}
	if (nt == 1 && t[0]->kind == E_NAME && t[0]->var && t[0]->var->mut) {
		Var *var = t[0]->var;
		Val rhs = in_reg(g, conv(g, ev(g, v, var->dtype), var->dtype));
		Bind *x = lookup(g, t[0]->str);
		if (var->pos.off == t[0]->pos.off && var->pos.line == t[0]->pos.line) {
			x = bind(g, t[0]->str, NULL);
			x->v = reg(g, var->dtype);
			x->has_val = true;
			map_put(&g->mutregs, x->v.s, (void *)x->v.s);
		}
		if (!x || !x->has_val) {
			fail(g, t[0], xprintf("'%s' is assigned before it is declared", t[0]->str));
			return;
		}
		ins(g, "mov.%s %s, %s;", reg_type[reg_class(var->dtype)] + 1, x->v.s, rhs.s);
		forget(g);
		return;
	}
	if (nt == 1 && t[0]->kind == E_NAME && v->dtype != DT_NONE) {
		dt = low_concrete(v->dtype);
		/* a call without sema's value: ev()'s, its builtin read once */
		Val rhs = v->kind == E_CALL && !v->val ? call_expr_id(g, v, id, cdt) : ev(g, v, dt);
		if (dt != DT_HANDLE)
			rhs = conv(g, rhs, dt);
		if (!rhs.imm && g->mutregs.n && map_get(&g->mutregs, rhs.s)) {
			/* a copy: the name keeps this value when the variable changes */
			Val c = { .s = newreg(g, rhs.sp == SP_SHARED ? R_R : reg_class(rhs.dt)), .dt = rhs.dt };
			c.sp = rhs.sp;
			c.i = rhs.i;
			ins(g, "mov.%s %s, %s;", reg_type[reg_class(rhs.sp == SP_SHARED ? DT_UINT32 : rhs.dt)] + 1, c.s, rhs.s);
			rhs = c;
		}
		Bind *x = bind(g, t[0]->str, NULL);
		x->v = rhs;
		x->has_val = true;
		return;
	}
	for (int i = 0; i < nt; i++) {
		if (t[i]->kind != E_NAME)
			continue;
		Bind *x = bind(g, t[i]->str, NULL);
		if (nt == 1) {
			x->is_int = const_int(g, v, &x->ival);
			x->str = const_str(g, v);
			x->is_str = x->str != NULL;
		}
	}
}

/* Which loops txc-ptx unrolls: those whose bounds and step are constants
 * of the program (sema's values, not an unrolled loop's variable), with at
 * most UNROLL_RANGE trips for range() (nvcc unrolls such short loops
 * itself) and UNROLL_MAX for T.unroll(); every other loop stays a loop.
 * tests/ptx.t applies the same rule to the CUDA C it compiles with nvcc. */
enum { UNROLL_RANGE = 16, UNROLL_MAX = 256 };

static bool sema_int(const Expr *e, int64_t *v)
{
	if (e->val && e->val->kind == V_INT)
		return *v = e->val->i, true;
	return e->kind == E_INT && (*v = e->ival, true);
}

static void for_stmt(Gen *g, Stmt *s)
{
	Expr *it = s->value;
	int dt = s->targets[0]->var ? s->targets[0]->var->dtype : DT_INT32, id = low_call_id(it);
	int64_t step = 1, lo = 0, hi = 0;
	if (it->nargs == 3)
		step = arg_int(g, it, 2, 1);
	const char *name = s->targets[0]->str;
	bool clo = it->nargs > 1 ? sema_int(it->args[0], &lo) : true;
	bool chi = sema_int(it->args[it->nargs > 1], &hi);
	int64_t trips = clo && chi && step > 0 && hi > lo ? (hi - lo + step - 1) / step : clo && chi ? 0 : -1;
	if (trips >= 0 && trips <= (id == IN_UNROLL ? UNROLL_MAX : UNROLL_RANGE)) {
		/* one binding for every trip, its value changed: what was found
		 * through it (a term's memo) notes the value it read */
		int mark = names_at(&g->binds);
		Bind *x = bind(g, name, NULL);
		bool scanning = g->scanning;
		x->is_int = true;
		if (scanning && trips == 0)
			scan_writes(g, s->body, s->nbody);
		for (int64_t k = lo; k < hi && !g->d->errors; k += step) {
			x->ival = k;
			block(g, s->body, s->nbody);
			g->scanning = false; /* the body read for its writes once */
		}
		g->scanning = scanning;
		names_unbind(&g->binds, mark);
		if (scanning)
			scan_writes(g, s->orelse, s->norelse);
		return;
	}
	Val v = reg(g, dt);
	map_put(&g->mutregs, v.s, (void *)v.s);
	Val l = it->nargs > 1 ? need_imm(g, it->args[0], dt) : imm(0, dt);
	Val h = need_imm(g, it->args[it->nargs > 1], dt);
	if (!h.imm)
		h = in_reg(g, h); /* range() reads its bound once */
	ins(g, "mov.%s %s, %s;", reg_type[reg_class(dt)] + 1, v.s, l.s);
	const char *head = label(g), *end = label(g);
	put_label(g, head);
	const char *p = newreg(g, R_P);
	ins(g, "setp.ge.%s %s, %s, %s;", ty(dt), p, v.s, h.s);
	ins(g, "@%s bra %s;", p, end);
	int mark = names_at(&g->binds);
	Bind *x = bind(g, name, NULL);
	x->v = v;
	x->has_val = true;
	block(g, s->body, s->nbody);
	names_unbind(&g->binds, mark);
	if (g->scanning)
		scan_writes(g, s->orelse, s->norelse);
	ins(g, "add.%s %s, %s, %lld;", ty(dt), v.s, v.s, (long long)step);
	ins(g, "bra.uni %s;", head);
	put_label(g, end);
}

/* while c: body. The head is a label: what was computed before it is
 * forgotten, since the body may change the variables it read. */
static void while_stmt(Gen *g, Stmt *s)
{
	const char *head = label(g), *end = label(g);
	put_label(g, head);
	Val c = need(g, s->value, DT_BOOL);
	ins(g, "@!%s bra %s;", c.s, end);
	block(g, s->body, s->nbody);
	ins(g, "bra.uni %s;", head);
	put_label(g, end);
}

static void if_stmt(Gen *g, Stmt *s)
{
	const char *end = label(g);
	for (;;) {
		Val c = need(g, s->value, DT_BOOL);
		const char *els = label(g);
		ins(g, "@!%s bra %s;", c.s, els);
		block(g, s->body, s->nbody);
		ins(g, "bra.uni %s;", end);
		put_label(g, els);
		if (s->norelse == 1 && s->orelse[0]->kind == S_IF) {
			bputs(g->out, "\t// else\n");
			s = s->orelse[0];
			continue;
		}
		if (s->norelse) {
			/* nvcc may lay this block out before the other: tests/ptxops then compares counts, not order */
			bputs(g->out, "\t// else\n");
			block(g, s->orelse, s->norelse);
		}
		break;
	}
	put_label(g, end);
}

/* ---- intrinsics ----------------------------------------------------------------------- */

/* T.ptx.cp_async(dst, src, size [, cache_policy, prefetch_size, src_size,
 * predicate, cache]): txc-cuda's cp_async, the same instruction. */
static void cp_async(Gen *g, const Expr *e)
{
	int64_t n = arg_int(g, e, 2, 16), v;
	const char *cache = e->nargs > 7 ? const_str(g, e->args[7]) : "";
	if (!cache)
		cache = "";
	if (!*cache)
		cache = n == 16 ? "cg" : "ca";
	bool hint = e->nargs > 3 && !(const_int(g, e->args[3], &v) && v == 0);
	int64_t pf = arg_int(g, e, 4, 0);
	bool size = e->nargs > 5 && !(const_int(g, e->args[5], &v) && v == -1);
	bool pred = e->nargs > 6 && !(const_int(g, e->args[6], &v) && v == -1);
	Val d = address(g, e->args[0]), s = address(g, e->args[1]);
	if (g->d->errors)
		return;
	if (d.sp != SP_SHARED || s.sp != SP_GLOBAL) {
		unsupported(g, e, "cp.async between these memories");
		return;
	}
	Buf ptx = {0};
	bprintf(&ptx, "cp.async.%s.shared.global%s%s [%s], [%s], %lld", cache, hint ? ".L2::cache_hint" : "",
	        pf ? xprintf(".L2::%lldB", (long long)pf) : "", d.s, s.s, (long long)n);
	if (size || pred) {
		Val ss = size ? need(g, e->args[5], DT_UINT32) : imm(n, DT_UINT32);
		if (pred) {
			Val p = need(g, e->args[6], DT_BOOL);
			Val r = reg(g, DT_UINT32);
			ins(g, "selp.u32 %s, %s, 0, %s;", r.s, ss.s, p.s);
			ss = r;
		} else {
			ss = in_reg(g, ss);
		}
		bprintf(&ptx, ", %s", ss.s);
	}
	if (hint)
		bprintf(&ptx, ", %s", need(g, e->args[3], DT_UINT64).s);
	ins(g, "%s;", ptx.s);
}

/* The intrinsics of backend/fixed.def: the instruction txc-cuda's helper
 * holds, its %0, %1, ... replaced by the operands. */
static const struct Fixed {
	int id;
	const char *ptx, *ops;
} fixed[] = {
#define FIXED(id, name, params, ptx, in, ops) { id, ptx, ops },
#include "fixed.def"
#undef FIXED
};

/* text with %N replaced by ops[N] */
static const char *subst(const char *text, const char **ops, int nops)
{
	Buf b = {0};
	for (const char *p = text; *p; p++) {
		if (p[0] == '%' && p[1] >= '0' && p[1] <= '9' && p[1] - '0' < nops) {
			bputs(&b, ops[p[1] - '0']);
			p++;
		} else {
			bputc(&b, *p);
		}
	}
	return b.s ? b.s : "";
}

static Val shared_addr(Gen *g, const Expr *e)
{
	Val a = address(g, e);
	if (!g->d->errors && a.sp != SP_SHARED)
		unsupported(g, e, "an operand outside shared memory where the instruction takes a shared address");
	return a;
}

static void fixed_call(Gen *g, const Expr *e, const struct Fixed *x)
{
	const char *ptx = x->ptx;
	int64_t cg = kw_int(g, e, "cta_group", 1), n = kw_int(g, e, "n_cols", 32);
	if (strstr(ptx, "%d"))
		ptx = xprintf(ptx, (int)cg);
	const char *ops[8];
	int k = 0;
	for (; x->ops[k] && !g->d->errors; k++)
		ops[k] = x->ops[k] == 'a' ? shared_addr(g, e->args[k]).s : x->ops[k] == 'e' ? need(g, e->args[k], DT_UINT32).s :
		         xprintf("%lld", (long long)n);
	if (g->d->errors)
		return;
	ins(g, "%s", subst(ptx, ops, k));
}

/* The generic address of a shared or global one (what a C pointer holds). */
static Val generic(Gen *g, Val a)
{
	if (a.sp == SP_SHARED) {
		const char *w = newreg(g, R_RD), *r = newreg(g, R_RD);
		ins(g, "cvt.u64.u32 %s, %s;", w, a.s);
		ins(g, "cvta.shared.u64 %s, %s;", r, w);
		return (Val){ .s = r, .dt = DT_HANDLE };
	}
	if (a.sp == SP_GLOBAL) {
		const char *r = newreg(g, R_RD);
		ins(g, "cvta.global.u64 %s, %s;", r, a.s);
		return (Val){ .s = r, .dt = DT_HANDLE };
	}
	return a;
}

/* The kernel-parameter tensor map e names (its .param), or NULL. */
static const char *param_map(Gen *g, const Expr *e)
{
	for (int i = 0; e->kind == E_NAME && i < g->f->ntmaps; i++)
		if (!strcmp(g->f->tmaps[i]->name, e->str))
			return g->tmap_param[i];
	return NULL;
}

/* A __grid_constant__ tensor map's generic address, as nvcc takes it. */
static const char *map_addr(Gen *g, const char *param)
{
	const char *p = newreg(g, R_RD), *r = newreg(g, R_RD);
	ins(g, "mov.b64 %s, %s;", p, param);
	ins(g, "cvta.param.u64 %s, %s;", r, p);
	return r;
}

static const char *b16(Gen *g, Val v)
{
	v = conv(g, v, DT_UINT32);
	const char *h = newreg(g, R_H);
	if (v.imm)
		ins(g, "mov.b16 %s, %lld;", h, (long long)(v.i & 0xffff));
	else
		ins(g, "cvt.u16.u32 %s, %s;", h, v.s);
	return h;
}

/* The bulk tensor copies: txc-cuda's tma(), the same instruction forms. */
static void tma(Gen *g, const Expr *e, int id)
{
	int rank = (int)arg_int(g, e, 0, 1);
	int map = id == IN_TMA_LOAD ? 3 : id == IN_TMA_PREFETCH ? 1 : 2;
	const Expr *hint = NULL, *mask = NULL;
	for (int i = 0; i < e->nkws; i++)
		if (!strcmp(e->kws[i].name, "cache_hint"))
			hint = e->kws[i].value;
		else if (!strcmp(e->kws[i].name, "cta_mask"))
			mask = e->kws[i].value;
	if (mask && mask->val && mask->val->kind == V_INT && mask->val->i == 0)
		mask = NULL;
	const char *red = id == IN_TMA_REDUCE ? const_str(g, call_kw(e, "red_op")->value) : NULL;
	Kw *sp = id == IN_TMA_LOAD ? call_kw(e, "dst_space") : NULL;
	const char *space = sp ? const_str(g, sp->value) : "shared::cluster";
	const char *param = param_map(g, e->args[map]);
	const TensorMap *t = NULL; /* NULL: a map in global memory (tiled), by its generic address */
	for (int i = 0; param && i < g->f->ntmaps; i++)
		if (!strcmp(g->f->tmaps[i]->name, e->args[map]->str))
			t = g->f->tmaps[i];
	int mode = t ? t->mode : TMAP_TILED, ninfo = id == IN_TMA_LOAD || id == IN_TMA_PREFETCH ? e->nargs - map - 1 - rank : 0;
	const char *lm = id == IN_TMA_LOAD || id == IN_TMA_PREFETCH ? tmap_modes[mode].name : tmap_modes[mode].store;
	Val smem = {0}, bar = {0};
	if (id != IN_TMA_PREFETCH)
		smem = shared_addr(g, e->args[1]);
	if (id == IN_TMA_LOAD)
		bar = shared_addr(g, e->args[2]);
	Buf coords = {0}, info = {0};
	for (int i = 0; i < rank && !g->d->errors; i++)
		bprintf(&coords, "%s%s", i ? ", " : "", need(g, e->args[map + 1 + i], DT_INT32).s);
	for (int i = 0; i < ninfo && !g->d->errors; i++)
		bprintf(&info, "%s%s", i ? ", " : ", {", b16(g, ev(g, e->args[map + 1 + rank + i], DT_INT32)));
	if (ninfo)
		bputs(&info, "}");
	const char *mc = "", *tail = "";
	if (mask && !g->d->errors) {
		mc = ".multicast::cluster";
		tail = xprintf(", %s", b16(g, ev(g, mask, DT_UINT16)));
	}
	if (hint && !g->d->errors)
		tail = xprintf("%s, %s", tail, need(g, hint, DT_UINT64).s);
	if (g->d->errors)
		return;
	const char *h = hint ? ".L2::cache_hint" : "", *m = param ? map_addr(g, param) : generic(g, address(g, e->args[map])).s;
	if (g->d->errors)
		return;
	switch (id) {
	case IN_TMA_LOAD:
		ins(g, "cp.async.bulk.tensor.%dd.%s.global.%s.mbarrier::complete_tx::bytes%s%s [%s], [%s, {%s}], [%s]%s%s;", rank,
		    space, lm, mc, h, smem.s, m, coords.s, bar.s, info.s ? info.s : "", tail);
		break;
	case IN_TMA_STORE:
		ins(g, "cp.async.bulk.tensor.%dd.global.shared::cta.%s.bulk_group%s [%s, {%s}], [%s]%s;", rank, lm, h, m, coords.s,
		    smem.s, tail);
		break;
	case IN_TMA_REDUCE:
		ins(g, "cp.reduce.async.bulk.tensor.%dd.global.shared::cta.%s.%s.bulk_group%s [%s, {%s}], [%s]%s;", rank, red, lm,
		    h, m, coords.s, smem.s, tail);
		break;
	default:
		ins(g, "cp.async.bulk.prefetch.tensor.%dd.L2.global.%s%s [%s, {%s}]%s%s;", rank, lm, h, m, coords.s,
		    info.s ? info.s : "", tail);
		break;
	}
}

/* Stores a 32- or 64-bit register into a buffer element (a T.* intrinsic's result). */
static void store_val(Gen *g, const Expr *t, Val v)
{
	Buffer *b = buffer_of(g, t->a);
	if (t->kind != E_INDEX || !b) {
		fail(g, t, "the result goes to a buffer element");
		return;
	}
	v = in_reg(g, conv(g, v, b->dtype));
	Val a = element_addr(g, t, NULL);
	if (!g->d->errors)
		ins(g, "st.%s.%s [%s], %s; // element", space_name(a.sp), mem_ty(b->dtype), a.s, v.s);
}

/* One register operand of tcgen05.st: a buffer element names the 32-bit
 * word that starts there; else a 32-bit value (txc-cuda's tc_reg). */
static const char *tc_reg_in(Gen *g, const Expr *e)
{
	Buffer *b = NULL;
	if (e->kind == E_INDEX && buffer_of(g, e->a)) {
		Val a = element_addr(g, e, &b);
		if (g->d->errors)
			return "0";
		const char *r = newreg(g, R_R);
		ins(g, "ld.%s.b32 %s, [%s]; // element", space_name(a.sp), r, a.s);
		return r;
	}
	int dt = low_concrete(e->dtype);
	if (dt == DT_FLOAT32) {
		Val f = need(g, e, dt);
		const char *r = newreg(g, R_R);
		ins(g, "mov.b32 %s, %s;", r, f.s);
		return r;
	}
	return in_reg(g, cast(g, e, DT_UINT32)).s;
}

/* The n 32-bit register operands of e from operand first on, as a PTX
 * list: fresh registers for a load (word_stores writes them to the
 * elements after it), the operands' values for a store; NULL after an
 * error. */
static const char *word_list(Gen *g, const Expr *e, int first, int n, bool ld, const char **regs)
{
	Buf list = {0};
	for (int i = 0; i < n && !g->d->errors; i++) {
		regs[i] = ld ? newreg(g, R_R) : tc_reg_in(g, e->args[first + i]);
		bprintf(&list, "%s%s", i ? ", " : "", regs[i]);
	}
	return g->d->errors ? NULL : list.s;
}

/* After a load into word_list's registers: each to its buffer element. */
static void word_stores(Gen *g, const Expr *e, int first, int n, const char **regs, const char *what)
{
	for (int i = 0; i < n && !g->d->errors; i++) {
		Buffer *b = NULL;
		const Expr *x = e->args[first + i];
		if (x->kind != E_INDEX || !buffer_of(g, x->a)) {
			fail(g, x, xprintf("%s writes buffer elements", what));
			return;
		}
		Val ea = element_addr(g, x, &b);
		if (!g->d->errors)
			ins(g, "st.%s.b32 [%s], %s; // element", space_name(ea.sp), ea.s, regs[i]);
	}
}

/* T.ptx.tcgen05.ld/st(taddr, row, col, shape, num, pack, registers...):
 * the warp's lane quarter added to the row, as txc-cuda's helper does. */
static void tcgen05_ldst(Gen *g, const Expr *e, bool ld)
{
	const char *shape = const_str(g, e->args[3]);
	int64_t num = arg_int(g, e, 4, 1), pack = arg_int(g, e, 5, 0);
	int64_t nregs = num * tcgen05_shape(shape)->regs;
	const char *q = pack ? (ld ? ".pack::16b" : ".unpack::16b") : "";
	Val taddr = need(g, e->args[0], DT_UINT32), row = need(g, e->args[1], DT_UINT32), col = need(g, e->args[2], DT_UINT32);
	if (g->d->errors)
		return;
	/* taddr + ((row + 32 * ((tid / 32) % 4)) << 16) + col */
	const char *t = newreg(g, R_R), *a = newreg(g, R_R);
	ins(g, "mov.u32 %s, %%tid.x;", t);
	ins(g, "shr.u32 %s, %s, %d;", t, t, 5);
	ins(g, "and.b32 %s, %s, %d;", t, t, ES_WARPGROUP_SIZE / ES_WARP_SIZE - 1);
	ins(g, "mad.lo.s32 %s, %s, %d, %s;", t, t, ES_WARP_SIZE, row.s);
	ins(g, "shl.b32 %s, %s, 16;", t, t);
	ins(g, "add.s32 %s, %s, %s;", a, taddr.s, t);
	ins(g, "add.s32 %s, %s, %s;", a, a, col.s);
	const char **regs = xalloc(sizeof(char *) * (size_t)nregs);
	const char *list = word_list(g, e, 6, (int)nregs, ld, regs);
	if (!list)
		return;
	if (ld)
		ins(g, "tcgen05.ld.sync.aligned.%s.x%lld%s.b32 {%s}, [%s];", shape, (long long)num, q, list, a);
	else
		ins(g, "tcgen05.st.sync.aligned.%s.x%lld%s.b32 [%s], {%s};", shape, (long long)num, q, a, list);
	if (ld)
		word_stores(g, e, 6, (int)nregs, regs, "tcgen05.ld");
}

/* tcgen05.cp: the address is taddr + (row << 16) + col (one thread issues it). */
static void tcgen05_cp(Gen *g, const Expr *e)
{
	const char *shape = const_str(g, e->args[3]);
	Kw *mk = call_kw(e, "multicast");
	const char *mc = mk ? const_str(g, mk->value) : "";
	int64_t cg = kw_int(g, e, "cta_group", 1);
	Val taddr = need(g, e->args[0], DT_UINT32), row = need(g, e->args[1], DT_UINT32), col = need(g, e->args[2], DT_UINT32);
	Val desc = need(g, e->args[4], DT_UINT64);
	if (g->d->errors)
		return;
	const char *t = newreg(g, R_R), *a = newreg(g, R_R);
	ins(g, "shl.b32 %s, %s, 16;", t, row.s);
	ins(g, "add.s32 %s, %s, %s;", a, taddr.s, t);
	ins(g, "add.s32 %s, %s, %s;", a, a, col.s);
	ins(g, "tcgen05.cp.cta_group::%d.%s%s%s [%s], %s;", (int)cg, shape, *mc ? "." : "", mc, a, desc.s);
}

/* Stores a value at an address operand (*(T*)addr = v). */
static void store_at(Gen *g, const Expr *at, Val v, const char *type)
{
	Val a = address(g, at);
	v = in_reg(g, v);
	if (!g->d->errors)
		ins(g, "st.%s.%s [%s], %s; // element", space_name(a.sp), type, a.s, v.s);
}

/* T.cuda.tcgen05.encode_matrix_descriptor: txc-cuda's txc_tcgen05_smem_desc. */
static void smem_desc(Gen *g, const Expr *e)
{
	int64_t sw = kw_int(g, e, "swizzle", 0), bo = kw_int(g, e, "base_offset", 0);
	Val s = shared_addr(g, e->args[1]);
	Val ldo = need(g, call_kw(e, "ldo")->value, DT_UINT32), sdo = need(g, call_kw(e, "sdo")->value, DT_UINT32);
	if (g->d->errors)
		return;
	const char *a = newreg(g, R_R), *x = newreg(g, R_RD), *y = newreg(g, R_RD), *d = newreg(g, R_RD);
	ins(g, "shr.u32 %s, %s, 4;", a, s.s);
	ins(g, "and.b32 %s, %s, 16383;", a, a);
	ins(g, "cvt.u64.u32 %s, %s;", d, a);
	ins(g, "and.b32 %s, %s, 16383;", a, ldo.s);
	ins(g, "cvt.u64.u32 %s, %s;", x, a);
	ins(g, "shl.b64 %s, %s, 16;", x, x);
	ins(g, "or.b64 %s, %s, %s;", d, d, x);
	ins(g, "and.b32 %s, %s, 16383;", a, sdo.s);
	ins(g, "cvt.u64.u32 %s, %s;", y, a);
	ins(g, "shl.b64 %s, %s, 32;", y, y);
	ins(g, "or.b64 %s, %s, %s;", d, d, y);
	uint64_t fixedbits = (uint64_t)1 << 46 | (uint64_t)(bo & 7) << 49 | (uint64_t)(smem_swizzles[sw].layout & 7) << 61;
	ins(g, "or.b64 %s, %s, %llu;", d, d, (unsigned long long)fixedbits);
	store_at(g, e->args[0], (Val){ .s = d, .dt = DT_UINT64 }, "u64");
}

static void tcgen05_mma(Gen *g, const Expr *e)
{
	int64_t cg = kw_int(g, e, "cta_group", 1);
	Kw *sa = call_kw(e, "scale_a"), *sb = call_kw(e, "scale_b");
	const char *ops[7];
	static const int dts[7] = { DT_UINT32, DT_UINT64, DT_UINT64, DT_UINT32, DT_UINT32, DT_UINT32, DT_UINT32 };
	for (int i = 0; i < 5 && !g->d->errors; i++)
		ops[i] = need(g, e->args[i], dts[i]).s;
	if (sa && sb && !g->d->errors) {
		ops[5] = need(g, sa->value, DT_UINT32).s;
		ops[6] = need(g, sb->value, DT_UINT32).s;
	}
	if (g->d->errors)
		return;
	if (sa && sb)
		ins(g, "%s", subst(xprintf("{ .reg .pred p; setp.ne.b32 p, %%4, 0; tcgen05.mma.cta_group::%d.kind::mxf8f6f4.block_scale."
		                           "scale_vec::1X [%%0], %%1, %%2, %%3, [%%5], [%%6], p; }", (int)cg), ops, 7));
	else
		ins(g, "%s", subst(xprintf("{ .reg .pred p; setp.ne.b32 p, %%4, 0; tcgen05.mma.cta_group::%d.kind::f16 [%%0], %%1, "
		                           "%%2, %%3, p; }", (int)cg), ops, 5));
}

static void instr_desc(Gen *g, const Expr *e)
{
	int64_t m = kw_int(g, e, "M", 0), n = kw_int(g, e, "N", 0);
	int at = mma_itype_code(dtype_lookup(const_str(g, call_kw(e, "a_dtype")->value)));
	int bt = mma_itype_code(dtype_lookup(const_str(g, call_kw(e, "b_dtype")->value)));
	uint32_t d = idesc_encode(at, bt, m, n, kw_int(g, e, "trans_a", 0), kw_int(g, e, "trans_b", 0),
	                          kw_int(g, e, "neg_a", 0), kw_int(g, e, "neg_b", 0));
	store_at(g, e->args[0], imm(d, DT_UINT32), "u32");
}

static void instr_desc_bs(Gen *g, const Expr *e)
{
	int64_t m = kw_int(g, e, "M", 0), n = kw_int(g, e, "N", 0);
	const MmasFormat *af = mmas_format_named(const_str(g, call_kw(e, "a_dtype")->value));
	const MmasFormat *bf = mmas_format_named(const_str(g, call_kw(e, "b_dtype")->value));
	static const char *const ids[2] = { "a_sf_id", "b_sf_id" };
	static const int shift[2] = { 29, 4 };
	int64_t sf[2] = { 0, 0 };
	const Expr *rt[2] = { NULL, NULL };
	for (int i = 0; i < 2; i++) {
		Kw *k = call_kw(e, ids[i]);
		if (k && !const_int(g, k->value, &sf[i])) {
			sf[i] = 0;
			rt[i] = k->value;
		}
	}
	uint32_t d = idescs_encode(af->code, bf->code, m, n, kw_int(g, e, "trans_a", 0), kw_int(g, e, "trans_b", 0),
	                           kw_int(g, e, "neg_a", 0), kw_int(g, e, "neg_b", 0), (int)sf[0], (int)sf[1]);
	Val v = imm(d, DT_UINT32);
	for (int i = 0; i < 2 && !g->d->errors; i++) {
		if (!rt[i])
			continue;
		Val x = need(g, rt[i], DT_UINT32);
		const char *t = newreg(g, R_R), *r = newreg(g, R_R);
		ins(g, "and.b32 %s, %s, 3;", t, x.s);
		ins(g, "shl.b32 %s, %s, %d;", t, t, shift[i]);
		v = in_reg(g, v);
		ins(g, "or.b32 %s, %s, %s;", r, v.s, t);
		v = (Val){ .s = r, .dt = DT_UINT32 };
	}
	store_at(g, e->args[0], v, "u32");
}

static void call_stmt(Gen *g, const Expr *e)
{
	int dt, id = e->kind == E_CALL ? resolve(e, &dt) : -1;
	switch (id) {
	case IN_EVALUATE:
		if (!evaluated_value(e->args[0]))
			call_stmt(g, e->args[0]);
		/* T.evaluate(value): read for nothing; nvcc drops it, so does txc-ptx */
		return;
	case IN_DEVICE_ENTRY: case IN_CTA_ID: case IN_CTA_ID_IN_CLUSTER: case IN_CLUSTER_ID: case IN_THREAD_ID: case IN_WARP_ID:
	case IN_LANE_ID: case IN_WARPGROUP_ID: case IN_THREAD_ID_IN_WG: case IN_WARP_ID_IN_WG:
	case IN_ATTR: case IN_MATCH_BUFFER:
		return;
	case IN_ASSUME: { /* the caller's promise, which the proofs used: a kernel given other values stops */
		Val c = need(g, e->args[0], DT_BOOL);
		ins(g, "@!%s trap; // T.assume", c.s);
		return;
	}
	case IN_COPY: case IN_COPY_ASYNC: case IN_PREFETCH: case IN_GEMM_ASYNC:
		error_at(g->d, expr_start(e), "run txc-lower first: tile op not lowered");
		return;
	case IN_CTA_SYNC:
		ins(g, "bar.sync 0;");
		return;
	case IN_WARP_SYNC:
		ins(g, "bar.warp.sync -1;");
		return;
	case IN_STORAGE_SYNC: {
		const char *s = const_str(g, e->args[0]);
		ins(g, strcmp(s, "warp") == 0 ? "bar.warp.sync -1;" : "bar.sync 0;");
		return;
	}
	case IN_COPY_BYTES:
		copy_bytes(g, e);
		return;
	case IN_ZERO_BYTES:
		zero_bytes(g, e);
		return;
	case IN_CP_ASYNC:
		cp_async(g, e);
		return;
	case IN_CP_COMMIT:
		ins(g, "cp.async.commit_group;");
		return;
	case IN_CP_WAIT: case IN_BULK_WAIT: {
		bool bulk = id == IN_BULK_WAIT, read = bulk && kw_int(g, e, "read", 0);
		ins(g, "cp.async%s.wait_group%s %lld;", bulk ? ".bulk" : "", read ? ".read" : "", (long long)arg_int(g, e, 0, 0));
		return;
	}
	case IN_TMA_LOAD: case IN_TMA_STORE: case IN_TMA_REDUCE: case IN_TMA_PREFETCH:
		tma(g, e, id);
		return;
	case IN_TC_LD: case IN_TC_ST:
		tcgen05_ldst(g, e, id == IN_TC_LD);
		return;
	case IN_TMAP_COPY: {
		/* the 128 bytes of a kernel-parameter tensor map, as eight 16-byte words (txc-cuda's txc_copy_tensormap) */
		const char *param = param_map(g, e->args[1]);
		Val d = address(g, e->args[0]);
		if (!param || g->d->errors)
			break;
		const char *m = newreg(g, R_RD);
		ins(g, "mov.b64 %s, %s;", m, param);
		for (int i = 0; i < 8; i++) {
			const char *r[4];
			for (int k = 0; k < 4; k++)
				r[k] = newreg(g, R_R);
			Val a = addr_plus(g, d, imm(16 * i, DT_INT64), 1);
			ins(g, "ld.param.v4.u32 {%s, %s, %s, %s}, [%s+%d];", r[0], r[1], r[2], r[3], m, 16 * i);
			ins(g, "st.%s.v4.u32 [%s], {%s, %s, %s, %s};", space_name(a.sp), a.s, r[0], r[1], r[2], r[3]);
		}
		return;
	}
	case IN_TMAP_REPLACE: {
		const char *field = const_str(g, e->args[0]);
		const TmField *t = &tm_fields[tm_field_lookup(field)];
		Val a = address(g, e->args[1]);
		int64_t ord = t->ord ? arg_int(g, e, 2, 0) : -1, imm_v = t->imm ? arg_int(g, e, e->nargs - 1, 0) : -1;
		const Expr *v = e->args[e->nargs - 1];
		const char *val = NULL;
		if (imm_v < 0 && !g->d->errors)
			val = tm_field_lookup(field) == TMF_ADDRESS && v->dtype == DT_HANDLE ? generic(g, address(g, v)).s :
			      need(g, v, t->bits == 64 ? DT_UINT64 : DT_UINT32).s;
		if (g->d->errors)
			return;
		const char *ss = a.sp == SP_SHARED ? ".shared::cta" : a.sp == SP_GLOBAL ? ".global" : "";
		ins(g, "tensormap.replace.tile.%s%s.b1024.b%d [%s], %s%s;", field, ss, t->bits, a.s,
		    ord >= 0 ? xprintf("%lld, ", (long long)ord) : "", imm_v >= 0 ? xprintf("%lld", (long long)imm_v) : val);
		return;
	}
	case IN_TMAP_CP_FENCE: {
		Val d = address(g, e->args[0]), s = shared_addr(g, e->args[1]);
		if (g->d->errors)
			return;
		if (d.sp != SP_GLOBAL)
			break;
		ins(g, "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%s], [%s], 128;",
		    d.s, s.s);
		return;
	}
	case IN_FENCE_TMAP: {
		Val m = generic(g, address(g, e->args[0]));
		if (!g->d->errors)
			ins(g, "fence.proxy.tensormap::generic.acquire.gpu [%s], 128;", m.s);
		return;
	}
	case IN_TC_CP:
		tcgen05_cp(g, e);
		return;
	case IN_TC_SMEM_DESC:
		smem_desc(g, e);
		return;
	case IN_TC_MMA:
		tcgen05_mma(g, e);
		return;
	case IN_TC_IDESC:
		instr_desc(g, e);
		return;
	case IN_TC_IDESC_BS:
		instr_desc_bs(g, e);
		return;
	case IN_TMAP_PREFETCH: {
		const char *param = param_map(g, e->args[0]);
		if (!param)
			break;
		ins(g, "prefetch.tensormap [%s];", map_addr(g, param));
		return;
	}
	case IN_MBAR_WAIT: {
		/* waits until the phase with this parity completes (try_wait may time out: loop) */
		Val a = shared_addr(g, e->args[0]), par = need(g, e->args[1], DT_UINT32);
		if (g->d->errors)
			return;
		const char *again = label(g), *p = newreg(g, R_P);
		put_label(g, again);
		ins(g, "mbarrier.try_wait.parity.shared::cta.b64 %s, [%s], %s;", p, a.s, par.s);
		ins(g, "@!%s bra %s;", p, again);
		return;
	}
	case IN_MBAR_TRY_PARITY: {
		bool hint = e->nargs > 3;
		Val a = shared_addr(g, e->args[1]), par = need(g, e->args[2], DT_UINT32);
		Val h = hint ? need(g, e->args[3], DT_UINT32) : imm(0, DT_UINT32);
		if (g->d->errors)
			return;
		const char *p = newreg(g, R_P);
		Val r = reg(g, DT_UINT32);
		ins(g, "mbarrier.try_wait.parity.shared::cta.b64 %s, [%s], %s%s%s;", p, a.s, par.s, hint ? ", " : "", hint ? h.s : "");
		ins(g, "selp.u32 %s, 1, 0, %s;", r.s, p);
		store_val(g, e->args[0], r);
		return;
	}
	case IN_FENCE_ASYNC: {
		const char *s = e->nargs ? const_str(g, e->args[0]) : "shared::cta";
		ins(g, "fence.proxy.async%s%s;", *s ? "." : "", s);
		return;
	}
	case IN_BAR_SYNC: case IN_BAR_ARRIVE: {
		bool al = kw_int(g, e, "aligned", 0), count = e->nargs > 1;
		Val a = need(g, e->args[0], DT_UINT32), c = count ? need(g, e->args[1], DT_UINT32) : imm(0, DT_UINT32);
		if (!g->d->errors)
			ins(g, "barrier.%s%s %s%s%s;", id == IN_BAR_SYNC ? "sync" : "arrive", al ? ".aligned" : "", a.s,
			    count ? ", " : "", count ? c.s : "");
		return;
	}
	case IN_BULK_S2C: {
		/* the destination and the mbarrier mapped into CTA rank's window */
		Val d = in_reg(g, shared_addr(g, e->args[0])), s = shared_addr(g, e->args[1]);
		Val b = in_reg(g, shared_addr(g, e->args[3])), rank = need(g, e->args[4], DT_UINT32);
		int64_t n = arg_int(g, e, 2, 16);
		if (g->d->errors)
			return;
		Val rd = reg(g, DT_UINT32), rb = reg(g, DT_UINT32);
		ins(g, "mapa.shared::cluster.u32 %s, %s, %s;", rd.s, d.s, rank.s);
		ins(g, "mapa.shared::cluster.u32 %s, %s, %s;", rb.s, b.s, rank.s);
		ins(g, "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%s], [%s], %lld, [%s];", rd.s, s.s,
		    (long long)n, rb.s);
		return;
	}
	case IN_MAPA: {
		Val p = generic(g, address(g, e->args[1])), rank = need(g, e->args[2], DT_UINT32);
		if (g->d->errors)
			return;
		Val r = reg(g, DT_UINT64);
		ins(g, "mapa.u64 %s, %s, %s;", r.s, p.s, rank.s);
		store_val(g, e->args[0], r);
		return;
	}
	case IN_ST_SHARED_V4: {
		Val a = shared_addr(g, e->args[0]);
		const char *v[4];
		for (int i = 0; i < 4; i++)
			v[i] = need(g, e->args[1 + i], DT_FLOAT32).s;
		if (!g->d->errors)
			ins(g, "st.shared.v4.f32 [%s], {%s, %s, %s, %s};", a.s, v[0], v[1], v[2], v[3]);
		return;
	}
	case IN_LDMATRIX: case IN_STMATRIX: {
		bool ld = id == IN_LDMATRIX;
		int64_t num = arg_int(g, e, 0, 1), trans = arg_int(g, e, 1, 0);
		Val a = shared_addr(g, e->args[2]);
		const char *regs[4];
		const char *list = g->d->errors || num < 1 || num > 4 ? NULL : word_list(g, e, 3, (int)num, ld, regs);
		if (!list)
			return;
		if (ld)
			ins(g, "ldmatrix.sync.aligned.m8n8.x%lld%s.shared.b16 {%s}, [%s];", (long long)num, trans ? ".trans" : "",
			    list, a.s);
		else
			ins(g, "stmatrix.sync.aligned.m8n8.x%lld%s.shared.b16 [%s], {%s};", (long long)num, trans ? ".trans" : "",
			    a.s, list);
		if (ld)
			word_stores(g, e, 3, (int)num, regs, "ldmatrix");
		return;
	}
	case IN_LD_SHARED_V4: {
		Val a = shared_addr(g, e->args[4]);
		if (g->d->errors)
			return;
		Val v[4];
		for (int i = 0; i < 4; i++)
			v[i] = reg(g, DT_FLOAT32);
		ins(g, "ld.shared.v4.f32 {%s, %s, %s, %s}, [%s];", v[0].s, v[1].s, v[2].s, v[3].s, a.s);
		for (int i = 0; i < 4; i++)
			store_val(g, e->args[i], v[i]);
		return;
	}
	}
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (fixed[i].id == id) {
			fixed_call(g, e, &fixed[i]);
			return;
		}
	unsupported(g, e, xprintf("'%s'", e->kind == E_CALL ? expr_str(e->a) : expr_str(e)));
}

/* A kernel's text is written in pieces of about PIECE bytes, each begun
 * where a statement starts with less than PIECE_ROOM left in the one
 * before: a long kernel's text is not copied each time it doubles (a
 * statement that writes more than PIECE_ROOM grows its piece, as any Buf).
 * kernel() links the pieces after its header (Buf.next), not copied into
 * one: the driver and main() write them in order. */
enum { PIECE = 64 << 10, PIECE_ROOM = 8 << 10 };

static void body_piece(Gen *g)
{
	if (g->out->n)
		vpush(g->pieces, g->npieces, *g->out);
	*g->out = (Buf){ .s = xalloc(PIECE), .cap = PIECE };
}

static void stmt(Gen *g, Stmt *s)
{
	g->at = s->pos;
	if (g->scanning)
		scan_stmt(g, s);
	if (g->out->cap - g->out->n < PIECE_ROOM)
		body_piece(g);
	switch (s->kind) {
	case S_EXPR:
		call_stmt(g, s->value);
		return;
	case S_ASSIGN:
		assign(g, s);
		return;
	case S_AUGASSIGN:
		if (s->targets[0]->kind == E_NAME && s->targets[0]->var) {
			Expr *t = s->targets[0];
			int dt = t->var->dtype;
			Bind *x = lookup(g, t->str);
			Expr e = { .kind = E_BIN, .pos = s->pos, .op = s->op, .a = t, .b = s->value, .dtype = dt };
			Val r = in_reg(g, conv(g, binary(g, &e, dt), dt));
			if (x && x->has_val)
				ins(g, "mov.%s %s, %s;", reg_type[reg_class(dt)] + 1, x->v.s, r.s);
			forget(g);
			return;
		}
		store(g, s->targets[0], s->value, s->op);
		return;
	case S_DECL:
		if (s->targets[0]->var) {
			Bind *x = bind(g, s->targets[0]->str, NULL);
			int dt = s->targets[0]->var->dtype;
			x->v = reg(g, dt);
			x->has_val = true;
			map_put(&g->mutregs, x->v.s, (void *)x->v.s);
			if (dt == DT_BOOL)
				ins(g, "setp.ne.u32 %s, 0, 0;", x->v.s);
			else
				ins(g, "mov.%s %s, %s;", reg_type[reg_class(dt)] + 1, x->v.s,
				    dt == DT_FLOAT32 ? "0f00000000" : dt == DT_FLOAT64 ? "0d0000000000000000" : "0");
		}
		return;
	case S_IF:
		if_stmt(g, s);
		return;
	case S_FOR:
		for_stmt(g, s);
		return;
	case S_WHILE:
		while_stmt(g, s);
		return;
	default:
		return;
	}
}

/* ---- kernels and the module ----------------------------------------------------------- */

/* A scalar parameter as nvcc declares the C type txc-cuda gives it (a
 * half or bfloat16 is a 2-byte struct there). */
static const char *param_decl(int dt, const char *name)
{
	switch (dt) {
	case DT_BOOL: case DT_INT8: case DT_UINT8: return xprintf(".param .u8 %s", name);
	case DT_INT16: case DT_UINT16: return xprintf(".param .u16 %s", name);
	case DT_FLOAT16: case DT_BFLOAT16: return xprintf(".param .align 2 .b8 %s[2]", name);
	case DT_INT32: case DT_UINT32: return xprintf(".param .u32 %s", name);
	case DT_FLOAT32: return xprintf(".param .f32 %s", name);
	case DT_FLOAT64: return xprintf(".param .f64 %s", name);
	default: return xprintf(".param .u64 %s", name);
	}
}

/* Whether f has a buffer in dynamic shared memory (its own, not a view) */
static bool has_shared(const Func *f)
{
	for (int i = 0; i < f->nbufs; i++)
		if (!f->bufs[i]->base && (scopes[f->bufs[i]->scope].flags & SCF_SHARED))
			return true;
	return false;
}

/* Writes the kernel after *tail, the module's last piece: its header
 * there, then its body's pieces, the last of them the new *tail. */
static void kernel(Gen *g, Stmt *s, Buf **tail)
{
	Buf *out = *tail;
	Func *f = s->func;
	const char *name = cuda_name(f->name);
	int64_t bytes = smem_bytes(f);
	g->f = f;
	memset(g->bufat, 0, sizeof g->bufat); /* another kernel's buffers */
	memset(g->decl_id, 0, sizeof g->decl_id);
	g->written = xalloc(sizeof(bool) * (size_t)(f->nbufs + 1));
	g->ncd = xalloc(sizeof(bool) * (size_t)(f->nbufs + 1));
	g->drop = false;
	Buf body = {0}, params = {0};
	while (g->nwcells) /* another kernel's */
		g->wcells[--g->nwcells]->wbuf = NULL;
	g->nncs = 0;
	g->ncpiece = -1;
	g->decls = (PtrMap){ 0 };
	for (int i = 0; i < f->nbufs; i++) {
		set_wbuf(g, f->bufs[i]->name, f->bufs[i]);
		if (f->bufs[i]->decl && !ptrmap_get(&g->decls, f->bufs[i]->decl)) {
			int id = low_call_id(f->bufs[i]->decl);
			ptrmap_put(&g->decls, f->bufs[i]->decl, f->bufs[i]);
			if (id >= 0)
				g->decl_id[id] = true;
		}
	}
	{
		body = (Buf){0};
		params = (Buf){0};
		g->locals = (Buf){0};
		g->out = &body;
		g->pieces = NULL, g->npieces = 0;
		body_piece(g);
		memset(g->nreg, 0, sizeof g->nreg);
		forget(g);
		g->mutregs = (Map){0};
		g->nlabel = 0;
		g->base = xalloc(sizeof(Val) * (size_t)(f->nbufs + 1));
		g->tmap_param = xalloc(sizeof(char *) * (size_t)(f->ntmaps + 1));
		g->local_done = xalloc(sizeof(bool) * (size_t)(f->nbufs + 1));
		names_unbind(&g->binds, 0);
		bool any_shared = has_shared(f);
		/* the parameters, in the signature's order */
		for (int i = 0; i < f->nsig; i++) {
			const char *pn = xprintf("%s_param_%d", name, i);
			bprintf(&params, "%s\t", i ? ",\n" : "");
			if (f->sig[i] == 'b') {
				Buffer *b = f->params[f->sig_at[i]];
				bprintf(&params, ".param .u64 %s", pn);
				bind(g, b->name, b);
				Val p = { .s = newreg(g, R_RD), .dt = DT_HANDLE }, a = { .s = newreg(g, R_RD), .dt = DT_HANDLE, .sp = SP_GLOBAL };
				ins(g, "ld.param.u64 %s, [%s];", p.s, pn);
				ins(g, "cvta.to.global.u64 %s, %s;", a.s, p.s);
				g->base[buf_index(g, b)] = a;
			} else if (f->sig[i] == 't') {
				bprintf(&params, ".param .align 64 .b8 %s[128]", pn);
				bind(g, f->tmaps[f->sig_at[i]]->name, NULL);
				g->tmap_param[f->sig_at[i]] = pn;
			} else {
				Var *v = f->scalars[f->sig_at[i]];
				bputs(&params, param_decl(v->dtype, pn));
				Bind *x = bind(g, v->name, NULL);
				x->v = reg(g, v->dtype);
				x->has_val = true;
				if (v->dtype == DT_BOOL) {
					const char *t = newreg(g, R_R);
					ins(g, "ld.param.u8 %s, [%s];", t, pn);
					ins(g, "setp.ne.b32 %s, %s, 0;", x->v.s, t);
				} else {
					ins(g, "ld.param.%s %s, [%s];", mem_ty(v->dtype), x->v.s, pn);
				}
			}
		}
		if (any_shared) {
			g->smem = true;
			Val raw = { .s = newreg(g, R_R), .dt = DT_HANDLE, .sp = SP_SHARED };
			ins(g, "mov.u32 %s, smem_raw;", raw.s);
			g->smem_base = raw;
			if (smem_rounds_base(f)) {
				/* swizzled buffers or align= above 16: start on 1024 bytes (txc-cuda's rule) */
				const char *t = newreg(g, R_R);
				Val b = { .s = newreg(g, R_R), .dt = DT_HANDLE, .sp = SP_SHARED };
				ins(g, "and.b32 %s, %s, 1023;", t, raw.s);
				ins(g, "sub.s32 %s, 1024, %s;", t, t);
				ins(g, "and.b32 %s, %s, 1023;", t, t);
				ins(g, "add.s32 %s, %s, %s;", b.s, raw.s, t);
				g->smem_base = b;
			}
			for (int i = 0; i < f->nbufs; i++) {
				Buffer *b = f->bufs[i];
				if (b->base || !(scopes[b->scope].flags & SCF_SHARED))
					continue;
				g->base[i] = addr_plus(g, g->smem_base, imm(b->smem_off, DT_INT64), 1);
			}
		}
		/* the body, but for its statements that name scalar parameters (m =
		 * T.int32(), read above): only the top level has them (sema
		 * refuses one in a loop or branch), so the unrolled loops' many
		 * statements are not asked */
		int mark = names_at(&g->binds);
		g->scanning = true;
		for (int i = 0; i < s->nbody && !g->d->errors; i++)
			if (!stmt_names_param(s->body[i]))
				stmt(g, s->body[i]);
			else
				scan_writes(g, &s->body[i], 1);
		g->scanning = false;
		names_unbind(&g->binds, mark);
		if (g->d->errors)
			return;
		ins(g, "ret;");
	}
	bprintf(out, "\n// %s: grid %s, block (%lld, 1, 1), %lld bytes of dynamic shared memory\n", name,
	        low_grid_str(f), (long long)f->threads, (long long)bytes);
	bprintf(out, ".visible .entry %s(\n%s\n)\n", name, params.s ? params.s : "");
	bprintf(out, ".maxntid %lld, 1, 1\n", (long long)f->threads);
	if (f->has_cluster)
		bprintf(out, ".explicitcluster\n.reqnctapercluster %lld, %lld, %lld\n", (long long)f->cluster[0],
		        (long long)f->cluster[1], (long long)f->cluster[2]);
	bputs(out, "{\n");
	for (int c = 0; c < R_N; c++)
		if (g->nreg[c])
			bprintf(out, "\t.reg %s %s<%d>;\n", reg_type[c], reg_prefix[c], g->nreg[c] + 1);
	bputs(out, g->locals.s ? g->locals.s : "");
	bputc(out, '\n');
	vpush(g->pieces, g->npieces, body);
	drop_nc(g);
	for (int i = 0; i + 1 < g->npieces; i++)
		g->pieces[i].next = &g->pieces[i + 1];
	out->next = g->pieces;
	*tail = &g->pieces[g->npieces - 1];
	bputs(*tail, "}\n");
}

static bool emit(Gen *g, Buf *out, const char *src, const char *arch)
{
	/* the header, then the kernels written after it (not copied there): on
	 * an error, out is as it was */
	Buf *tail = out, *tail0;
	while (tail->next)
		tail = tail->next;
	tail0 = tail;
	size_t n0 = tail->n;
	for (int i = 0; i < g->m->nbody; i++)
		if (g->m->body[i]->kind == S_FUNC && g->m->body[i]->func)
			g->smem |= has_shared(g->m->body[i]->func); /* as kernel() finds it */
	if (strcmp(src, "<stdin>") == 0)
		src = module_file(g->m);
	bprintf(tail, "// Generated by txc-ptx (txc %s) from %s for %s. Do not edit.\n", TXC_VERSION, src, arch);
	bputs(tail, "// Launch each kernel with the grid, block and dynamic shared memory above it.\n\n");
	bprintf(tail, ".version %s\n.target %s\n.address_size 64\n", ptx_version[g->target], arch);
	if (g->smem)
		bputs(tail, "\n.extern .shared .align 1024 .b8 smem_raw[];\n");
	for (int i = 0; i < g->m->nbody; i++)
		if (g->m->body[i]->kind == S_FUNC && g->m->body[i]->func)
			kernel(g, g->m->body[i], &tail);
	if (g->d->errors) {
		tail0->n = n0;
		tail0->next = NULL;
		if (tail0->s)
			tail0->s[n0] = 0;
		return false;
	}
	return true;
}

bool txc_ptx_emit(Module *m, int tg, const char *arch, const char *from, Diag *d, Buf *out)
{
	if (!find_kernel("txc-ptx", m, NULL))
		return false;
	Gen g = { .m = m, .d = d, .target = tg };
	g.low = (Low){ m, &g, low_name, "txc-ptx" };
	return emit(&g, out, from, arch);
}

#ifndef TXC_CHAIN
int main(int argc, char **argv)
{
	const char *arch = "sm_90a";
	Opt opts[] = {
		{ "--arch", "ARCH", "the GPU: sm_80, sm_90, sm_90a (default) or sm_100a; newer intrinsics are refused", &arch, NULL },
		{ 0 },
	};
	Cli c = { .prog = "txc-ptx", .opts = opts,
	          .summary = "Writes PTX for a lowered txc program (doc/txir.md, section 12): one .entry per kernel, with\n"
	                     "txc-cuda's name, parameters and dynamic shared memory, for ptxas (doc/txc-ptx.md)." };
	cli_parse(&c, argc, argv);
	int tg = target_lookup(arch);
	if (tg <= TG_ANY)
		cli_usage_error(&c, "unknown architecture '%s' (expected sm_80, sm_90, sm_90a or sm_100a)", arch);
	prove_accesses = true;
	Module *m = load_module(c.prog, c.input, tg, true);
	if (!m)
		return 1;
	Diag d;
	diag_init(&d, stderr);
	Buf out = {0};
	if (!txc_ptx_emit(m, tg, arch, m->src->name, &d, &out))
		return 1;
	return write_buf(c.prog, c.output, &out) ? 0 : 1;
}
#endif
