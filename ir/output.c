/* Output files: what `-o FILE` (and every other file a txc program writes)
 * does to what is already at FILE. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir.h"

static bool fail(Output *o, const char *why)
{
	if (o->path && strcmp(o->path, o->name) != 0)
		o->err = xprintf("cannot write '%s' (a link to '%s'): %s", o->name, o->path, why);
	else
		o->err = xprintf("cannot write '%s': %s", o->name, why);
	return false;
}

static char *read_link(const char *path)
{
	for (size_t cap = 256;; cap *= 2) {
		char *s = xalloc(cap);
		ssize_t n = readlink(path, s, cap);
		if (n < 0)
			return NULL;
		if ((size_t)n < cap)
			return s;
	}
}

/* Follows symbolic links from o->name to a file that is not one, or to a
 * name where nothing is (*exists is then false). */
static bool resolve(Output *o, struct stat *st, bool *exists)
{
	char *path = xstrdup(o->name);
	for (int hops = 0; hops < 40; hops++) {
		o->path = path;
		if (lstat(path, st) != 0) {
			*exists = false;
			return errno == ENOENT || fail(o, strerror(errno));
		}
		if (!S_ISLNK(st->st_mode)) {
			*exists = true;
			return true;
		}
		char *link = read_link(path);
		if (!link)
			return fail(o, strerror(errno));
		const char *slash = strrchr(path, '/');
		int dir = slash && link[0] != '/' ? (int)(slash - path + 1) : 0;
		path = xprintf("%.*s%s", dir, path, link);
	}
	return fail(o, strerror(ELOOP));
}

/* A temporary file next to o->path, with the mode the output will have. */
static bool open_temporary(Output *o, mode_t mode)
{
	o->tmp = xprintf("%s.XXXXXX", o->path);
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0) {
		o->tmp = NULL;
		return fail(o, strerror(errno));
	}
	fcntl(o->fd, F_SETFD, FD_CLOEXEC);
	if (fchmod(o->fd, mode) != 0)
		return fail(o, strerror(errno));
	return true;
}

bool output_open(Output *o, const char *name)
{
	*o = (Output){ .name = name, .fd = -1 };
	struct stat st;
	bool exists;
	if (!resolve(o, &st, &exists))
		return false;
	if (!exists) {
		mode_t mask = umask(0);
		umask(mask);
		return open_temporary(o, 0666 & ~mask);
	}
	if (S_ISDIR(st.st_mode))
		return fail(o, "it is a directory");
	/* root may write anything; a file that nobody may write is still refused */
	if (!(st.st_mode & 0222))
		return fail(o, xprintf("the file is read-only (mode %04o)", (unsigned)(st.st_mode & 07777)));
	if (S_ISREG(st.st_mode)) {
		if (access(o->path, W_OK) != 0)
			return fail(o, strerror(errno));
		return open_temporary(o, st.st_mode & 0777);
	}
	/* a device, FIFO or socket: written in place, never replaced */
	o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	return o->fd >= 0 || fail(o, strerror(errno));
}

bool output_write(Output *o, const void *data, size_t n)
{
	const char *p = data;
	while (n > 0) {
		ssize_t k = write(o->fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return fail(o, strerror(errno));
		p += k;
		n -= (size_t)k;
	}
	return true;
}

bool output_close(Output *o, bool keep)
{
	bool ok = keep;
	if (o->fd >= 0 && close(o->fd) != 0 && keep)
		ok = fail(o, strerror(errno));
	o->fd = -1;
	if (ok && o->tmp && rename(o->tmp, o->path) != 0)
		ok = fail(o, strerror(errno));
	if (!ok && o->tmp)
		unlink(o->tmp);
	o->tmp = NULL;
	return ok;
}

bool buf_write(Output *o, const Buf *b)
{
	for (; b; b = b->next)
		if (!output_write(o, b->s, b->n))
			return false;
	return true;
}

bool write_buf(const char *prog, const char *name, const Buf *b)
{
	if (!name || strcmp(name, "-") == 0) {
		const Buf *p = b;
		while (p && (!p->n || fwrite(p->s, 1, p->n, stdout) == p->n))
			p = p->next;
		if (p || fflush(stdout) != 0) {
			fprintf(stderr, "%s: error: cannot write output: %s\n", prog, strerror(errno));
			return false;
		}
		return true;
	}
	Output o;
	bool ok = output_open(&o, name) && buf_write(&o, b);
	if (!output_close(&o, ok))
		fprintf(stderr, "%s: error: %s\n", prog, o.err);
	return ok;
}

bool write_file(const char *prog, const char *name, const char *text, size_t len)
{
	Buf b = { .s = (char *)text, .n = text ? len : 0 }; /* only read */
	return write_buf(prog, name, &b);
}
