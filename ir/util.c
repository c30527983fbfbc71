/* Memory, strings, diagnostics and reading whole files. */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS, madvise */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ir.h"

/* The arena: a list of blocks, all freed at exit so that LeakSanitizer
 * reports real leaks only. */
typedef struct Block { struct Block *next; size_t cap, mapped; max_align_t data[]; } Block;
static Block *arena;

const char *progname = "txc";

void arena_free_all(void)
{
	while (arena) {
		Block *b = arena->next;
		if (arena->mapped)
			munmap(arena, arena->mapped);
		else
			free(arena);
		arena = b;
	}
}

void die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: internal error: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* Whether to free the blocks at exit: only where LeakSanitizer looks; an
 * ordinary run leaves them to the exit (freeing a large arena block by block
 * took a twentieth of a pass's time). */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_FREE_AT_EXIT 1
#endif
#endif

/* Blocks come zeroed from calloc and grow with the arena (64 KiB doubling
 * to 512 KiB, then 2 MiB doubling up to 64 MiB): a large block is fresh zero pages from the system, so
 * neither it nor what xalloc hands out from it is cleared a second time.
 * A block of 2 MiB or more is mapped on a 2 MiB boundary and given to the
 * kernel's transparent huge pages where it allows them (madvise): a long
 * kernel's IR is hundreds of MiB, and at 4 KiB a page the kernel's faults
 * on first touch took more time than the pass that touched them (a
 * 1000-copy kernel: 32,000 faults). */
enum { HUGE_PAGE = 2 << 20 };

static Block *block_new(size_t cap)
{
	size_t want = sizeof(Block) + cap;
#ifdef MADV_HUGEPAGE
	if (want >= HUGE_PAGE) {
		size_t keep = (want + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE, len = keep + HUGE_PAGE;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			char *q = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
			if (q > p)
				munmap(p, (size_t)(q - p));
			if (p + len > q + keep)
				munmap(q + keep, (size_t)(p + len - (q + keep)));
			madvise(q, keep, MADV_HUGEPAGE); /* advice: refused, the block is ordinary pages */
			Block *b = (Block *)q;
			b->mapped = keep;
			b->cap = keep - sizeof(Block);
			return b;
		}
	}
#endif
	Block *b = calloc(1, want);
	if (b)
		b->cap = cap;
	return b;
}

char *xalloc_next, *xalloc_end;
static size_t retired; /* bytes handed out from the blocks before the newest */

size_t arena_used(void)
{
	return retired + (arena ? (size_t)(xalloc_next - (char *)arena->data) : 0);
}

void *xalloc_block(size_t n)
{
	static size_t next = 65536;
	size_t cap = n > next ? n : next;
	retired = arena_used();
	Block *b = block_new(cap);
	if (!b) {
		fprintf(stderr, "%s: error: out of memory (asked for %zu more bytes)\n", progname, cap);
		exit(1);
	}
#ifdef ARENA_FREE_AT_EXIT
	if (!arena)
		atexit(arena_free_all);
#endif
	/* past the blocks a small kernel fills (960 KiB), a block is huge
	 * pages: a 1 MiB block of small ones took 256 faults */
	if (next < ((size_t)64 << 20))
		next = next < ((size_t)512 << 10) ? 2 * next : next < HUGE_PAGE ? (size_t)HUGE_PAGE : 2 * next;
	b->next = arena;
	arena = b;
	/* the rest of the block before is left: xalloc hands out from the newest */
	xalloc_next = (char *)b->data + n;
	xalloc_end = (char *)b->data + b->cap;
	return b->data;
}

void *xalloc_vec(size_t size, int n)
{
	size_t cap = 1;
	while (cap < (size_t)n)
		cap *= 2;
	return xalloc(size * cap);
}

void *xrealloc(void *p, size_t old, size_t n)
{
	void *q = xalloc(n);
	if (p && old)
		memcpy(q, p, old < n ? old : n);
	return q;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xalloc(n + 1);
	memcpy(p, s, n);
	return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

const Place *new_place(const Src *src, const char *file)
{
	Place *p = xalloc(sizeof *p);
	*p = (Place){ src, file };
	return p;
}

/* The formats most text is made with (names joined with dots, an operator
 * between spaces, a keyword and '=') are literal text, %s, %d, %lld and %%
 * alone: formatted by hand, without vsnprintf's machinery (7% of
 * txc-partition's instructions went to it). Exactly as printf writes them, a null
 * %s as "(null)" (glibc's). */
/* The pieces of a plain format with its arguments: literal
 * runs, strings and numbers (the digits in num); their count, or -1 when
 * there are more than max or a conversion is not one of those (ap is then
 * partly read: a copy). */
typedef struct Piece { const char *s; size_t n; } Piece;
enum { MAX_PIECES = 32 };

static int plain_pieces(const char *fmt, va_list ap, Piece *pc, char (*num)[24], int max)
{
	int k = 0, nums = 0;
	for (const char *f = fmt; *f;) {
		if (k == max)
			return -1;
		if (*f != '%' || f[1] == '%') {
			const char *a = f;
			if (*f == '%')
				a = ++f;  /* %%: the second % starts a literal run */
			f++;
			while (*f && *f != '%')
				f++;
			pc[k++] = (Piece){ a, (size_t)(f - a) };
			continue;
		}
		f++;
		if (*f == 's') {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			pc[k++] = (Piece){ s, strlen(s) };
			f++;
			continue;
		}
		long long v;
		if (*f == 'd') {
			v = va_arg(ap, int);
			f++;
		} else if (f[0] == 'l' && f[1] == 'l' && f[2] == 'd') {
			v = va_arg(ap, long long);
			f += 3;
		} else {
			return -1;  /* not a plain format: before taking its argument */
		}
		if (nums == max)
			return -1;
		char *end = num[nums] + sizeof num[nums], *q = end;
		nums++;
		unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
		do
			*--q = (char)('0' + u % 10);
		while (u /= 10);
		if (v < 0)
			*--q = '-';
		pc[k++] = (Piece){ q, (size_t)(end - q) };
	}
	return k;
}

static size_t pieces_len(const Piece *pc, int k)
{
	size_t n = 0;
	for (int i = 0; i < k; i++)
		n += pc[i].n;
	return n;
}

/* The pieces one after another from q; returns the end. */
static char *pieces_copy(char *q, const Piece *pc, int k)
{
	for (int i = 0; i < k; i++) {
		memcpy(q, pc[i].s, pc[i].n);
		q += pc[i].n;
	}
	return q;
}

static char *vxprintf(const char *fmt, va_list ap)
{
	{
		Piece pc[MAX_PIECES];
		char num[MAX_PIECES][24];
		va_list aq;
		va_copy(aq, ap);
		int k = plain_pieces(fmt, aq, pc, num, MAX_PIECES);
		va_end(aq);
		if (k >= 0) {
			char *p = xalloc(pieces_len(pc, k) + 1);  /* zeroed: the NUL is there */
			pieces_copy(p, pc, k);
			return p;
		}
	}
	char small[256];  /* most strings: formatted once, here, then copied */
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(small, sizeof small, fmt, aq);
	va_end(aq);
	char *p = xalloc((size_t)n + 1);
	if ((size_t)n < sizeof small)
		memcpy(p, small, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *xprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = vxprintf(fmt, ap);
	va_end(ap);
	return p;
}

const char *shape_tuple(const int64_t *shape, int ndim)
{
	Buf b = { 0 };
	bputc(&b, '(');
	for (int i = 0; i < ndim; i++)
		bprintf(&b, "%s%lld", i ? ", " : "", (long long)shape[i]);
	bputs(&b, ndim == 1 ? ",)" : ")");
	return b.s;
}

unsigned str_hash(const char *s)
{
	unsigned h = 2166136261u; /* FNV-1a */
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static struct MapSlot *map_slot(struct MapSlot *slots, int cap, const char *key)
{
	unsigned i = str_hash(key) & (unsigned)(cap - 1);
	while (slots[i].key && strcmp(slots[i].key, key) != 0)
		i = (i + 1) & (unsigned)(cap - 1);
	return &slots[i];
}

void *map_get(const Map *m, const char *key)
{
	return m->cap ? map_slot(m->slots, m->cap, key)->val : NULL;
}

void map_put(Map *m, const char *key, void *val)
{
	if (2 * (m->n + 1) > m->cap) {
		int cap = m->cap ? 2 * m->cap : 16;
		struct MapSlot *slots = xalloc(sizeof *slots * (size_t)cap);
		for (int i = 0; i < m->cap; i++)
			if (m->slots[i].key)
				*map_slot(slots, cap, m->slots[i].key) = m->slots[i];
		m->slots = slots;
		m->cap = cap;
	}
	struct MapSlot *s = map_slot(m->slots, m->cap, key);
	if (!s->key) {
		s->key = key;
		m->n++;
	}
	s->val = val;
}

/* The top bits of the product (Fibonacci hashing) of the address folded
 * onto itself: the keys are mostly nodes from the arena, at a few fixed
 * strides, and a product alone sends some strides (those whose multiple
 * of the constant lies near a fraction of small denominator) into a few
 * runs of slots that linear probing then walks (the 2,000 copies' calls,
 * 2,544 and 3,440 bytes apart, took 3 probes each). */
static struct PtrSlot *ptrmap_slot(struct PtrSlot *t, int cap, const void *key)
{
	uint64_t k = (uintptr_t)key;
	k ^= k >> 15;
	unsigned i = (unsigned)((k * 0x9E3779B97F4A7C15u) >> (64 - __builtin_ctz((unsigned)cap)));
	while (t[i].key && t[i].key != key)
		i = (i + 1) & (unsigned)(cap - 1);
	return &t[i];
}

void *ptrmap_get(const PtrMap *m, const void *key)
{
	return m->cap ? ptrmap_slot(m->slots, m->cap, key)->val : NULL;
}

void ptrmap_put(PtrMap *m, const void *key, void *val)
{
	if (2 * (m->n + 1) > m->cap) {
		int cap = m->cap ? 2 * m->cap : 64;
		struct PtrSlot *slots = xalloc(sizeof *slots * (size_t)cap);
		for (int i = 0; i < m->cap; i++)
			if (m->slots[i].key)
				*ptrmap_slot(slots, cap, m->slots[i].key) = m->slots[i];
		m->slots = slots;
		m->cap = cap;
	}
	struct PtrSlot *s = ptrmap_slot(m->slots, m->cap, key);
	if (!s->key) {
		s->key = key;
		m->n++;
	}
	s->val = val;
}

void names_bind(Names *s, const char *name, void *val)
{
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 32;
		s->v = xrealloc(s->v, sizeof *s->v * (size_t)s->cap, sizeof *s->v * (size_t)cap);
		s->cap = cap;
	}
	s->v[s->n] = (struct NameBind){ name, val, (int)(intptr_t)map_get(&s->top, name) };
	map_put(&s->top, name, (void *)(intptr_t)++s->n);
}

void *names_lookup(const Names *s, const char *name)
{
	intptr_t i = (intptr_t)map_get(&s->top, name);
	return i ? s->v[i - 1].val : NULL;
}

void names_pop(Names *s, int mark)
{
	while (s->n > mark) {
		struct NameBind *b = &s->v[--s->n];
		map_put(&s->top, b->name, (void *)(intptr_t)b->hidden);
	}
}

void bputc(Buf *b, int c)
{
	if (b->n + 1 >= b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		b->s = xrealloc(b->s, b->cap, cap);
		b->cap = cap;
	}
	b->s[b->n++] = (char)c;
	b->s[b->n] = 0;
}

char *broom(Buf *b, size_t n)
{
	if (b->n + n >= b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		while (b->n + n >= cap)
			cap *= 2;
		b->s = xrealloc(b->s, b->cap, cap);
		b->cap = cap;
	}
	return b->s + b->n;
}

/* Appends n bytes of s (no NUL among them): one growth and one copy. */
void bputn(Buf *b, const char *s, size_t n)
{
	if (!n)
		return;
	broom(b, n);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void bputs(Buf *b, const char *s)
{
	bputn(b, s, strlen(s));
}

void vbprintf(Buf *b, const char *fmt, va_list ap)
{
	char small[256];  /* most text: formatted here, not in the arena */
	va_list aq;
	{
		Piece pc[MAX_PIECES];
		char num[MAX_PIECES][24];
		va_copy(aq, ap);
		int k = plain_pieces(fmt, aq, pc, num, MAX_PIECES);
		va_end(aq);
		if (k >= 0) {
			size_t n = pieces_len(pc, k);
			if (!n)
				return;
			broom(b, n);  /* one growth, then the pieces */
			b->n = (size_t)(pieces_copy(b->s + b->n, pc, k) - b->s);
			b->s[b->n] = 0;
			return;
		}
	}
	va_copy(aq, ap);
	int n = vsnprintf(small, sizeof small, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		bputs(b, small);  /* up to a %c of 0, as before */
		return;
	}
	bputs(b, vxprintf(fmt, ap));
}

void bprintf(Buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vbprintf(b, fmt, ap);
	va_end(ap);
}

void diag_init(Diag *d, FILE *out)
{
	memset(d, 0, sizeof *d);
	d->out = out;
}

/* Prints the line of s at p and a caret (with tildes over the rest of the
 * token) under it. Tabs are copied so that the caret lines up. */
static void show_line(FILE *out, const Src *s, Pos p)
{
	if (!s || p.off < 0 || (size_t)p.off > s->len)
		return;
	size_t a = (size_t)p.off, z = (size_t)p.off;
	while (a > 0 && s->text[a - 1] != '\n')
		a--;
	while (z < s->len && s->text[z] != '\n')
		z++;
	if (z - a > 300 || z == a)
		return; /* not worth printing */
	for (size_t i = a; i < z; i++)
		if ((unsigned char)s->text[i] < 9 || s->text[i] == 0x7f)
			return; /* binary: not worth printing */
	fputs("    ", out);
	for (size_t i = a; i < z; i++) {
		unsigned char c = (unsigned char)s->text[i];
		fputc(c == '\t' || (c >= 32 && c < 127) || c >= 128 ? c : '?', out);
	}
	fputs("\n    ", out);
	for (size_t i = a; i < (size_t)p.off; i++)
		fputc(s->text[i] == '\t' ? '\t' : ' ', out);
	fputc('^', out);
	for (int i = 1; i < p.len && (size_t)p.off + (size_t)i < z; i++)
		fputc('~', out);
	fputc('\n', out);
}

/* Line `line` of file `name`, for quoting the user's own text when a
 * position came from a location comment (#@ file:line:col) of the IR:
 * the file is read once and kept (the last one asked for). */
static bool user_line(const char *name, int line, Src *out)
{
	static char *kept_name, *text;
	static size_t len;
	if (!kept_name || strcmp(kept_name, name) != 0) {
		free(kept_name);
		free(text);
		kept_name = NULL, text = NULL, len = 0;
		FILE *f = fopen(name, "rb");
		if (!f)
			return false;
		size_t cap = 0;
		int c;
		while ((c = fgetc(f)) != EOF && len < ((size_t)64 << 20)) {
			if (len + 1 >= cap) {
				cap = cap ? 2 * cap : 4096;
				char *t = realloc(text, cap);
				if (!t)
					break;
				text = t;
			}
			text[len++] = (char)c;
		}
		fclose(f);
		if (!text)
			return false;
		kept_name = malloc(strlen(name) + 1);
		if (!kept_name)
			return false;
		strcpy(kept_name, name);
	}
	size_t a = 0;
	for (int l = 1; l < line && a < len; a++)
		if (text[a] == '\n')
			l++;
	if (a >= len && line > 1)
		return false;
	out->name = kept_name;
	out->text = text + a;
	size_t z = a;
	while (z < len && text[z] != '\n')
		z++;
	out->len = z - a;
	return true;
}

void verror_at(Diag *d, Pos p, const char *kind, const char *fmt, va_list ap)
{
	int max = d->max_errors ? d->max_errors : 20;
	bool is_error = strcmp(kind, "error") == 0;
	if (is_error)
		d->errors++;
	else if (strcmp(kind, "warning") == 0)
		d->warnings++;
	if (d->errors > max)
		return;
	FILE *out = d->out ? d->out : stderr;
	const Src *src = pos_src(p);
	const char *file = p.place ? p.place->file : NULL;
	if (src)
		fprintf(out, "%s:%d:%d: %s: ", file ? file : src->name, p.line, p.col, kind);
	else
		fprintf(out, "%s: ", kind);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	Src user;
	if (src && file && strcmp(file, src->name) != 0 && p.line >= 1 && p.col >= 1 &&
	    user_line(file, p.line, &user) && (size_t)p.col - 1 <= user.len) {
		/* the user's own line, not the IR's that a pass was given */
		Pos q = p;
		q.off = p.col - 1;
		show_line(out, &user, q);
	} else {
		show_line(out, src, p);
	}
	if (is_error && d->errors == max)
		fprintf(out, "too many errors; stopping\n");
}

void error_at(Diag *d, Pos p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror_at(d, p, "error", fmt, ap);
	va_end(ap);
}

void warn_at(Diag *d, Pos p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror_at(d, p, "warning", fmt, ap);
	va_end(ap);
}


bool read_file(const char *prog, const char *name, Src *src)
{
	bool std = !name || strcmp(name, "-") == 0;
	FILE *f = std ? stdin : fopen(name, "rb");
	if (!f) {
		fprintf(stderr, "%s: error: cannot read '%s': %s\n", prog, name, strerror(errno));
		return false;
	}
	Buf b = {0};
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		bputn(&b, chunk, n);
		if (b.n > MAX_INPUT) {
			fprintf(stderr, "%s: error: '%s' is larger than %d MiB; txc reads programs, not data\n",
			        prog, std ? "<stdin>" : name, MAX_INPUT >> 20);
			if (!std)
				fclose(f);
			return false;
		}
	}
	bool err = ferror(f);
	if (!std)
		fclose(f);
	if (err) {
		fprintf(stderr, "%s: error: cannot read '%s': %s\n", prog,
		        std ? "<stdin>" : name, strerror(errno));
		return false;
	}
	src_set(src, &b, std ? "<stdin>" : name);
	return true;
}

void src_set(Src *src, Buf *text, const char *name)
{
	if (!text->s)
		text->s = xalloc(1); /* zeroed: the empty text */
	src->name = name;
	src->text = text->s;
	src->len = text->n;
}
