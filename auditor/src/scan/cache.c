/*
 * cache.c - the verdict cache's file: its format, reading and writing
 * (cache.h). cache_check.c says whether an entry may stand for a scan.
 *
 * The format, all integers little-endian:
 *   "leftover-cache\n\0" (16 bytes), u32 LO_CACHE_VERSION,
 *   the body: str key, i64 written_ns; u32 n, n dependencies (each with
 *   its use); u32 n, n aliases (each a u32 dependency, u32 its N, u32 m
 *   and m u32 directories); the result (roots with what their origin needs, files,
 *   links, notes, details, trees, the summary); u32 n, the number of
 *   items; the (item, dependency) pairs of each verdict's own
 *   dependencies; the tainted items; the hosts' notes; the listings of
 *   the walk's directories (u32 n; each a u32 dependency, u32 m and m
 *   entries, each a u32 type and a str name); the n items with
 *   their own verdicts, to the end (read only by a warm scan in part:
 *   lo_cache_items_read);
 *   u64 checksum of every byte before it (lo_cache_checksum).
 * A str is a u32 length, its bytes and a NUL (so that a string read can
 * point into the file's bytes: cache.h), 0xffffffff for NULL. The checksum
 * makes a torn or flipped file one that is ignored, never a verdict read
 * wrong: the fields themselves (a verdict is a byte) would still parse.
 * Every count is checked against the bytes left before anything is
 * allocated for it, so a hostile file costs at most its own size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/cache.h"
#include "leftover/clean.h"
#include "leftover/error.h"
#include "leftover/origin.h"
#include "scan/scan_int.h"

static const char magic[16] = "leftover-cache\n";
#define NULL_STR 0xffffffffu

/* ---- writing --------------------------------------------------------------- */

static void le32(unsigned char *c, uint32_t v)
{
	c[0] = (unsigned char)v;
	c[1] = (unsigned char)(v >> 8);
	c[2] = (unsigned char)(v >> 16);
	c[3] = (unsigned char)(v >> 24);
}

static void put_u32(lo_buf *b, uint32_t v)
{
	unsigned char c[4];

	le32(c, v);
	lo_buf_add(b, (const char *)c, 4);
}

static void put_u64(lo_buf *b, uint64_t v)
{
	put_u32(b, (uint32_t)v);
	put_u32(b, (uint32_t)(v >> 32));
}

static void put_str(lo_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put_u32(b, s ? (uint32_t)n : NULL_STR);
	if (s)
		lo_buf_add(b, s, n + 1);
}

static void put_file(lo_buf *b, const lo_file *f)
{
	size_t i;

	put_str(b, f->path);
	put_str(b, f->target);
	put_u32(b, (uint32_t)f->kind);
	put_u32(b, (uint32_t)(f->loads + 1));
	put_u32(b, (uint32_t)(f->orphan + 1));
	put_u32(b, f->suspected);
	put_u32(b, (uint32_t)(f->tracked + 1));
	put_u32(b, (uint32_t)f->stage);
	put_u32(b, (uint32_t)f->verdict);
	put_str(b, f->host);
	put_str(b, f->host_rule);
	put_str(b, f->host_inferred);
	put_str(b, f->arch);
	put_u32(b, (uint32_t)f->reason_count);
	for (i = 0; i < f->reason_count; i++) {
		const lo_reason *r = &f->reasons[i];

		put_u32(b, (uint32_t)r->kind);
		put_str(b, r->symbol);
		put_str(b, r->version);
		put_str(b, r->library);
		put_str(b, r->object);
		put_str(b, r->detail);
		put_str(b, r->evidence);
	}
}

static void put_strs(lo_buf *b, char *const *v, size_t n)
{
	size_t i;

	put_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++)
		put_str(b, v[i]);
}

/* A dependency's stat data: absent and use in one word, mode, numbers, a log's length and hash. */
static void put_stat(lo_buf *b, const lo_dep *d)
{
	uint64_t v[7] = { d->dev, d->ino, d->size, (uint64_t)d->mtime_ns, (uint64_t)d->ctime_ns,
			  d->log_at, d->log_hash };
	unsigned char c[64];
	size_t i, k;

	/* one append, not sixteen: a cache has one for every dependency and item */
	le32(c, (uint32_t)d->absent | (uint32_t)d->use << 1);
	le32(c + 4, d->mode);
	for (i = 0; i < 7; i++)
		for (k = 0; k < 8; k++)
			c[8 + 8 * i + k] = (unsigned char)(v[i] >> (8 * k));
	lo_buf_add(b, (const char *)c, sizeof(c));
}

void lo_cache_put_item(lo_buf *b, const char *abs, const lo_dep *self, const lo_file *f)
{
	put_str(b, abs);
	put_stat(b, self);
	put_u32(b, f != NULL);
	if (f)
		put_file(b, f);
}

#define CHECKSUM_BASIS 0xcbf29ce484222325ull

/* The checksum of n more bytes at p, after `h` of a multiple of 8 bytes. */
static uint64_t checksum_on(uint64_t h, const unsigned char *p, size_t n)
{
	uint64_t w;

	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8); /* one load; the words are little-endian */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap64(w); /* le64toh's job; <endian.h> is glibc's and the BSDs' only */
#endif
		h = (h ^ w) * 0x100000001b3ull;
	}
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

/* FNV-1a over 64-bit little-endian words, then the last bytes one by one: 8 times fewer rounds. */
uint64_t lo_cache_checksum(const void *data, size_t n)
{
	return checksum_on(CHECKSUM_BASIS, data, n);
}

/*
 * The file as it is written: staged in `b` and passed on a chunk at a
 * time, its checksum taken on the way. Made whole first, it was a second
 * copy of the result and the items, the cold scan's peak (a 16 MiB
 * buffer for the 9 MB cache of bench scale 2).
 */
typedef struct sink {
	lo_buf b;
	int fd;
	uint64_t sum; /* of the bytes passed on */
	size_t total; /* passed on: written, or past the bound only counted */
	int errnum;   /* the first write's errno, or 0 */
} sink;

/* A multiple of 8, so that the checksum runs on from chunk to chunk. */
#define SINK_CHUNK ((size_t)64 << 10)

static void sink_write(sink *o, const char *p, size_t n)
{
	while (n && !o->errnum) {
		ssize_t k = write(o->fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			o->errnum = k < 0 ? errno : EIO;
			break;
		}
		p += k;
		n -= (size_t)k;
	}
}

/* Pass on the whole chunks staged, or all of it (`last`). */
static void sink_spill(sink *o, bool last)
{
	size_t n = last ? o->b.len : o->b.len / SINK_CHUNK * SINK_CHUNK;

	if (!n)
		return;
	o->sum = checksum_on(o->sum, (const unsigned char *)o->b.ptr, n);
	o->total += n;
	/* one over the bound is counted to its end, for the message, and not kept */
	if (o->total <= LO_CACHE_MAX_BYTES)
		sink_write(o, o->b.ptr, n);
	memmove(o->b.ptr, o->b.ptr + n, o->b.len - n);
	o->b.len -= n;
}

/* After each record: a chunk passed on once one is staged. */
static void sink_check(sink *o)
{
	if (o->b.len >= SINK_CHUNK)
		sink_spill(o, false);
}

static void put_result(sink *o, const lo_cache_entry *e)
{
	const lo_scan_result *res = e->res;
	lo_buf *b = &o->b;
	size_t i;

	put_str(b, res->root);
	put_u32(b, (uint32_t)res->root_count);
	for (i = 0; i < res->root_count; i++) {
		put_str(b, res->roots[i]);
		put_str(b, e->roots[i].top);
		put_str(b, e->roots[i].build_dir);
		put_u64(b, e->roots[i].origin_note_at);
		put_u64(b, (uint64_t)e->roots[i].oldest);
	}
	put_u32(b, (uint32_t)res->file_count);
	for (i = 0; i < res->file_count; i++, sink_check(o))
		put_file(b, &res->files[i]);
	put_u32(b, (uint32_t)res->link_count);
	for (i = 0; i < res->link_count; i++, sink_check(o))
		put_file(b, &res->links[i]);
	put_strs(b, res->notes, res->note_count);
	put_strs(b, res->details, res->detail_count);
	put_u32(b, (uint32_t)res->tree_count);
	for (i = 0; i < res->tree_count; i++) {
		put_str(b, res->trees[i].dir);
		put_str(b, res->trees[i].system);
		put_str(b, res->trees[i].records);
		put_u32(b, res->trees[i].withheld);
	}
	put_u64(b, res->summary.files);
	put_u64(b, res->summary.bookkeeping);
	for (i = 0; i < LO_VERDICT_COUNT; i++)
		put_u64(b, res->summary.by_verdict[i]);
	put_u64(b, res->summary.withheld);
}

static void put_listings(sink *o, const lo_cache_entry *e)
{
	size_t i, j;

	put_u32(&o->b, (uint32_t)e->listing_count);
	for (i = 0; i < e->listing_count; i++, sink_check(o)) {
		const lo_cache_listing *l = &e->listings[i];

		put_u32(&o->b, l->dep);
		put_u32(&o->b, (uint32_t)l->count);
		for (j = 0; j < l->count; j++) {
			put_u32(&o->b, l->entries[j].type);
			put_str(&o->b, l->entries[j].name);
		}
	}
}

/* The aliases among e's dependencies, found now (cache_alias.c). */
static void put_aliases(lo_buf *b, const lo_cache_entry *e)
{
	lo_cache_alias *aliases;
	uint32_t *dirs;
	size_t n = lo_cache_aliases_find(&e->deps, &aliases, &dirs), i, j;

	put_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		put_u32(b, aliases[i].dep);
		put_u32(b, aliases[i].same);
		put_u32(b, aliases[i].dir_count);
		for (j = 0; j < aliases[i].dir_count; j++)
			put_u32(b, dirs[aliases[i].dir_at + j]);
	}
	free(aliases);
	free(dirs);
}

/* All but the checksum, passed on as it is made. */
static void put_entry(sink *o, const lo_cache_entry *e)
{
	lo_buf *b = &o->b;
	size_t i, n;

	lo_buf_add(b, magic, sizeof(magic));
	put_u32(b, LO_CACHE_VERSION);
	put_str(b, e->key);
	put_u64(b, (uint64_t)e->written_ns);
	put_u32(b, (uint32_t)e->deps.count);
	for (i = 0; i < e->deps.count; i++, sink_check(o)) {
		put_str(b, e->deps.deps[i].path);
		put_stat(b, &e->deps.deps[i]);
	}
	put_aliases(b, e);
	put_result(o, e);
	put_u32(b, (uint32_t)e->item_count);
	put_u32(b, (uint32_t)e->deps.use_count);
	for (i = 0; i < e->deps.use_count; i++, sink_check(o)) {
		put_u32(b, e->deps.uses[i].slot);
		put_u32(b, e->deps.uses[i].dep);
	}
	put_u32(b, (uint32_t)e->deps.tainted_count);
	for (i = 0; i < e->deps.tainted_count; i++)
		put_u32(b, e->deps.tainted[i]);
	put_strs(b, e->host_notes, e->host_note_count);
	put_listings(o, e);
	for (i = 0; i < e->item_bytes.len; i += n, sink_check(o)) {
		n = e->item_bytes.len - i < SINK_CHUNK ? e->item_bytes.len - i : SINK_CHUNK;
		lo_buf_add(b, e->item_bytes.ptr + i, n);
	}
}

int lo_cache_write(const char *file, const lo_cache_entry *e)
{
	sink o = { LO_BUF_INIT, -1, CHECKSUM_BASIS, 0, 0 };
	char *tmp = NULL;
	int errnum;

	if (asprintf(&tmp, "%s.%ld", file, (long)getpid()) < 0)
		abort();
	if ((o.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		o.errnum = errno;
	} else {
		put_entry(&o, e);
		sink_spill(&o, true);
		put_u64(&o.b, o.sum);
		sink_spill(&o, true);
		if (close(o.fd) < 0 && !o.errnum)
			o.errnum = errno;
	}
	lo_buf_dispose(&o.b);
	if (o.total > LO_CACHE_MAX_BYTES) {
		unlink(tmp);
		free(tmp);
		unlink(file); /* an older one would be stale, and is no use */
		return lo_error_set(LO_ERROR, "the verdict cache would take %zu bytes, more than "
				    "its bound of %u: not kept", o.total, LO_CACHE_MAX_BYTES);
	}
	if (o.errnum || rename(tmp, file) < 0) {
		errnum = o.errnum ? o.errnum : errno;
		unlink(tmp);
		free(tmp);
		return lo_error_set_errno(LO_ERROR, errnum, "cannot write the verdict cache '%s'",
					  file);
	}
	free(tmp);
	return 0;
}

/* ---- reading --------------------------------------------------------------- */

/* Over the entry's own bytes: a string read is borrowed from them (get_str). */
typedef struct reader {
	unsigned char *p, *end;
	bool bad;
} reader;

static uint32_t get_u32(reader *r)
{
	uint32_t v;

	if (r->end - r->p < 4) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
	    (uint32_t)r->p[3] << 24;
	r->p += 4;
	return v;
}

static uint64_t get_u64(reader *r)
{
	uint64_t lo = get_u32(r);

	return lo | (uint64_t)get_u32(r) << 32;
}

/* A value that must be below `limit` (an enumeration, a flag). */
static uint32_t get_enum(reader *r, uint32_t limit)
{
	uint32_t v = get_u32(r);

	if (v >= limit)
		r->bad = true;
	return v < limit ? v : 0;
}

/* A count of items each at least `min_size` bytes: never more than the bytes left allow. */
static size_t get_count(reader *r, size_t min_size)
{
	uint32_t n = get_u32(r);

	if ((size_t)(r->end - r->p) / min_size < n) {
		r->bad = true;
		return 0;
	}
	return n;
}

/* A string borrowed from the bytes read: its NUL is the file's own. */
static char *get_str(reader *r)
{
	uint32_t n = get_u32(r);
	char *s;

	if (n == NULL_STR || r->bad)
		return NULL;
	if ((size_t)(r->end - r->p) <= n || r->p[n] || memchr(r->p, '\0', n)) {
		r->bad = true;
		return NULL;
	}
	s = (char *)r->p;
	r->p += n + 1;
	return s;
}

/* A string that must be there, borrowed. */
static char *get_some_str(reader *r)
{
	char *s = get_str(r);

	if (!s)
		r->bad = true;
	return s;
}

/* A string of the result or of a verdict, which the scan takes: owned. */
static char *get_dup(reader *r)
{
	char *s = get_str(r);

	return s ? lo_xstrdup(s) : NULL;
}

static char *get_some_dup(reader *r)
{
	char *s = get_some_str(r);

	return s ? lo_xstrdup(s) : NULL;
}

static void get_file(reader *r, lo_file *f)
{
	size_t i, n;
	char *arch;

	memset(f, 0, sizeof(*f));
	f->path = get_some_dup(r);
	f->target = get_dup(r);
	f->kind = (lo_kind)get_enum(r, LO_KIND_OTHER + 1);
	f->loads = (lo_tristate)((int)get_enum(r, 3) - 1);
	f->orphan = (lo_tristate)((int)get_enum(r, 3) - 1);
	f->suspected = get_enum(r, 2);
	f->tracked = (lo_tristate)((int)get_enum(r, 3) - 1);
	f->stage = (lo_stage)get_enum(r, LO_STAGE_LISTED + 1);
	f->verdict = (lo_verdict)get_enum(r, LO_VERDICT_COUNT);
	f->host = get_dup(r);
	f->host_rule = get_dup(r);
	f->host_inferred = get_dup(r);
	/* the loader's own static name, as the scan sets it */
	if ((arch = get_str(r))) {
		f->arch = lo_scan_arch_named(arch);
		r->bad |= !f->arch;
	}
	n = get_count(r, 28);
	for (i = 0; i < n && !r->bad; i++) {
		lo_reason *x = lo_file_add_reason(f, (lo_reason_kind)get_enum(r, LO_REASON_KIND_COUNT),
						  NULL, NULL, NULL, NULL, NULL);

		x->symbol = get_dup(r);
		x->version = get_dup(r);
		x->library = get_dup(r);
		x->object = get_dup(r);
		x->detail = get_dup(r);
		x->evidence = get_dup(r);
	}
}

static void get_files(reader *r, lo_file **files, size_t *count, size_t *cap)
{
	size_t n = get_count(r, 52), i;

	*files = lo_xcalloc(n ? n : 1, sizeof(lo_file));
	*cap = n ? n : 1;
	for (i = 0; i < n && !r->bad; i++)
		get_file(r, &(*files)[(*count)++]);
}

/* A list of strings, each owned when `own`, else borrowed (the array is owned). */
static char **get_strs(reader *r, size_t *count, bool own)
{
	size_t n = get_count(r, 5), i;
	char **v = lo_xcalloc(n ? n : 1, sizeof(char *));

	for (i = 0; i < n && !r->bad; i++)
		v[(*count)++] = own ? get_some_dup(r) : get_some_str(r);
	return v;
}

static void get_roots(reader *r, lo_cache_entry *e)
{
	lo_scan_result *res = e->res;
	size_t n, i;

	res->root = get_some_dup(r);
	n = get_count(r, 29);
	res->roots = lo_xcalloc(n ? n : 1, sizeof(char *));
	e->roots = lo_xcalloc(n ? n : 1, sizeof(lo_cache_root));
	for (i = 0; i < n && !r->bad; i++) {
		res->roots[res->root_count++] = get_some_dup(r);
		e->roots[i].top = get_dup(r);
		e->roots[i].build_dir = get_dup(r);
		e->roots[i].origin_note_at = get_u64(r);
		e->roots[i].oldest = (int64_t)get_u64(r);
	}
	r->bad |= !n;
}

static void get_result(reader *r, lo_cache_entry *e)
{
	lo_scan_result *res = e->res = lo_xcalloc(1, sizeof(*res));
	size_t n, i;

	get_roots(r, e);
	get_files(r, &res->files, &res->file_count, &res->file_cap);
	get_files(r, &res->links, &res->link_count, &res->link_cap);
	res->notes = get_strs(r, &res->note_count, true);
	res->note_cap = res->note_count ? res->note_count : 1;
	res->details = get_strs(r, &res->detail_count, true);
	n = get_count(r, 18);
	res->trees = lo_xcalloc(n ? n : 1, sizeof(lo_scan_tree));
	res->tree_cap = n ? n : 1;
	for (i = 0; i < n && !r->bad; i++) {
		lo_scan_tree *t = &res->trees[res->tree_count++];

		t->dir = get_some_dup(r);
		t->system = get_some_dup(r);
		t->records = get_dup(r);
		t->withheld = get_enum(r, 2);
	}
	res->summary.files = get_u64(r);
	res->summary.bookkeeping = get_u64(r);
	for (i = 0; i < LO_VERDICT_COUNT; i++)
		res->summary.by_verdict[i] = get_u64(r);
	res->summary.withheld = get_u64(r);
	for (i = 0; !r->bad && i < res->root_count; i++)
		r->bad = e->roots[i].origin_note_at > res->note_count;
}

static void get_stat(reader *r, lo_dep *x)
{
	uint32_t flags = get_enum(r, 16);

	x->absent = flags & 1;
	x->use = (uint8_t)(flags >> 1);
	x->mode = get_u32(r);
	x->dev = get_u64(r);
	x->ino = get_u64(r);
	x->size = get_u64(r);
	x->mtime_ns = (int64_t)get_u64(r);
	x->ctime_ns = (int64_t)get_u64(r);
	x->log_at = get_u64(r);
	x->log_hash = get_u64(r);
}

static void get_deps(reader *r, lo_deps *d)
{
	size_t n = get_count(r, 69), i;

	d->deps = lo_xcalloc(n ? n : 1, sizeof(lo_dep));
	d->cap = n ? n : 1;
	for (i = 0; i < n && !r->bad; i++) {
		lo_dep *x = &d->deps[d->count++];

		x->path = get_some_str(r);
		get_stat(r, x);
	}
}

/* The aliases, each checked of the kinds the rule needs (cache_alias.c). */
static void get_aliases(reader *r, lo_cache_entry *e)
{
	size_t n = get_count(r, 12), i, j, m;
	lo_buf dirs = LO_BUF_INIT;

	e->aliases = lo_xcalloc(n ? n : 1, sizeof(lo_cache_alias));
	for (i = 0; i < n && !r->bad; i++) {
		lo_cache_alias *a = &e->aliases[e->alias_count++];

		a->dep = get_u32(r);
		a->same = get_u32(r);
		m = get_count(r, 4);
		a->dir_at = (uint32_t)(dirs.len / sizeof(uint32_t));
		a->dir_count = (uint32_t)m;
		for (j = 0; j < m; j++) {
			uint32_t v = get_u32(r);

			lo_buf_add(&dirs, (const char *)&v, sizeof(v));
		}
	}
	e->alias_dirs = (uint32_t *)dirs.ptr;
	r->bad |= !r->bad && !lo_cache_aliases_valid(e);
}

/* The pairs and tainted slots that name the items (each checked in range), the hosts' notes. */
static void get_uses(reader *r, lo_cache_entry *e)
{
	lo_deps *d = &e->deps;
	size_t n = get_count(r, 8), i;

	d->uses = lo_xcalloc(n ? n : 1, sizeof(lo_deps_use));
	for (i = 0; i < n && !r->bad; i++) {
		lo_deps_use *u = &d->uses[d->use_count++];

		u->slot = get_u32(r);
		u->dep = get_u32(r);
		/* sorted, as lo_deps_take leaves them: a verdict's are found by a search */
		r->bad |= u->slot >= e->item_count || u->dep >= d->count ||
			  (i && (u->slot < u[-1].slot || (u->slot == u[-1].slot && u->dep <= u[-1].dep)));
	}
	n = get_count(r, 4);
	d->tainted = lo_xcalloc(n ? n : 1, sizeof(uint32_t));
	for (i = 0; i < n && !r->bad; i++) {
		d->tainted[d->tainted_count] = get_u32(r);
		r->bad |= d->tainted[i] >= e->item_count || (i && d->tainted[i] <= d->tainted[i - 1]);
		d->tainted_count++;
	}
	e->host_notes = get_strs(r, &e->host_note_count, false);
}

/* An entry's name as a directory holds it: no path, no "." nor "..". */
static bool entry_name_ok(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/*
 * The listings: each of a directory of the walk (a dependency in range,
 * ascending), its entries named as a directory names them, ascending:
 * the walk goes where they say, so no name may lead elsewhere.
 */
static void get_listings(reader *r, lo_cache_entry *e)
{
	size_t n = get_count(r, 8), i, j;

	e->listings = lo_xcalloc(n ? n : 1, sizeof(lo_cache_listing));
	for (i = 0; i < n && !r->bad; i++) {
		lo_cache_listing *l = &e->listings[e->listing_count++];
		size_t m;

		l->dep = get_u32(r);
		r->bad |= l->dep >= e->deps.count || (i && l->dep <= l[-1].dep) ||
			  !(e->deps.deps[l->dep].use & LO_DEP_WALK);
		m = r->bad ? 0 : get_count(r, 8);
		l->entries = lo_xcalloc(m ? m : 1, sizeof(lo_dirent));
		for (j = 0; j < m && !r->bad; j++) {
			lo_dirent *d = &l->entries[l->count];

			d->type = (unsigned char)get_enum(r, LO_FT_OTHER + 1);
			if (!(d->name = get_some_str(r)))
				break;
			l->count++;
			r->bad |= !entry_name_ok(d->name) || (j && strcmp(d->name, d[-1].name) <= 0);
		}
	}
}

int lo_cache_items_read(lo_cache_entry *e)
{
	unsigned char *p = (unsigned char *)e->bytes.ptr + e->tail_at;
	reader r = { p, p + (e->bytes.len - e->tail_at), false };
	size_t i;

	get_uses(&r, e);
	get_listings(&r, e);
	/* as the scan will write them again, and fuzz_cache does */
	if (!r.bad)
		lo_buf_add(&e->item_bytes, (const char *)r.p, (size_t)(r.end - r.p));
	e->items = lo_xcalloc(e->item_count ? e->item_count : 1, sizeof(lo_cache_item));
	for (i = 0; i < e->item_count && !r.bad; i++) {
		lo_cache_item *it = &e->items[i];

		it->abs = get_some_str(&r);
		get_stat(&r, &it->self);
		if ((it->has_file = get_enum(&r, 2)))
			get_file(&r, &it->file);
	}
	if (r.bad || r.p != r.end)
		return lo_error_set(LO_EINVALID, "its items are malformed");
	return 0;
}

/*
 * Parse the `len` bytes at `data` (allocated): the entry takes them, its
 * borrowed strings pointing into them; the caller keeps them on an error.
 */
static int parse(lo_cache_entry **out, char *data, size_t len)
{
	unsigned char *p = (unsigned char *)data;
	reader r = { p, p + len, false }, sum;
	lo_cache_entry *e;
	uint32_t version;

	*out = NULL;
	if (len < sizeof(magic) + 4 + 8 || memcmp(p, magic, sizeof(magic)))
		return lo_error_set(LO_EINVALID, "not a verdict cache");
	r.p += sizeof(magic);
	if ((version = get_u32(&r)) != LO_CACHE_VERSION)
		return lo_error_set(LO_EINVALID, "a cache of format %u, not %u", version,
				    LO_CACHE_VERSION);
	r.end -= 8;
	sum = (reader){ r.end, r.end + 8, false };
	if (lo_cache_checksum(p, len - 8) != get_u64(&sum))
		return lo_error_set(LO_EINVALID, "its checksum does not match: truncated or damaged");
	e = lo_xcalloc(1, sizeof(*e));
	e->key = get_some_str(&r);
	e->written_ns = (int64_t)get_u64(&r);
	get_deps(&r, &e->deps);
	if (!r.bad)
		get_aliases(&r, e);
	if (!r.bad)
		get_result(&r, e);
	/* the rest is read by a warm scan in part alone: 56 bytes an item at least */
	e->item_count = get_u32(&r);
	if (r.bad || (size_t)(r.end - r.p) / 56 < e->item_count) {
		lo_cache_entry_free(e);
		return lo_error_set(LO_EINVALID, "malformed");
	}
	e->bytes = (lo_buf){ data, (size_t)(r.end - p), len };
	e->tail_at = (size_t)(r.p - p);
	*out = e;
	return 0;
}

int lo_cache_parse(lo_cache_entry **out, const void *data, size_t len)
{
	char *own = lo_xmalloc(len ? len : 1);
	int err;

	memcpy(own, data, len);
	if ((err = parse(out, own, len)) < 0)
		free(own);
	return err;
}

int lo_cache_read(lo_cache_entry **out, const char *file)
{
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), err;
	struct stat st;
	char *data;
	ssize_t n;

	*out = NULL;
	if (fd < 0)
		return lo_error_set_errno(errno == ENOENT ? LO_ENOTFOUND : LO_ERROR, errno,
					  "cannot open '%s'", file);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)LO_CACHE_MAX_BYTES) {
		close(fd);
		return lo_error_set(LO_EINVALID, "'%s' is no cache of at most %u bytes", file,
				    LO_CACHE_MAX_BYTES);
	}
	data = lo_xmalloc((size_t)st.st_size + 1);
	n = read(fd, data, (size_t)st.st_size);
	close(fd);
	if (n != (ssize_t)st.st_size) {
		free(data);
		return lo_error_set(LO_EINVALID, "'%s': short read", file);
	}
	if ((err = parse(out, data, (size_t)n)) < 0)
		free(data);
	return err < 0 ? lo_error_set(err, "'%s': %s", file, lo_error_last()) : 0;
}

void lo_cache_listings_free(lo_cache_listing *ls, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(ls[i].entries);
	free(ls);
}

void lo_cache_entry_free(lo_cache_entry *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; e->res && i < e->res->root_count; i++) {
		free(e->roots[i].top);
		free(e->roots[i].build_dir);
	}
	/* roots allocated but not all read: a root_count short of the array */
	free(e->roots);
	lo_scan_result_free(e->res);
	/* the key, the dependencies' paths, the items' and the hosts' notes are borrowed */
	free(e->deps.deps);
	free(e->deps.uses);
	free(e->deps.tainted);
	free(e->aliases);
	free(e->alias_dirs);
	for (i = 0; e->items && i < e->item_count; i++)
		lo_file_dispose(&e->items[i].file);
	free(e->items);
	lo_buf_dispose(&e->item_bytes);
	lo_buf_dispose(&e->bytes);
	free(e->host_notes);
	lo_cache_listings_free(e->listings, e->listing_count);
	free(e);
}

/* ---- where ----------------------------------------------------------------- */

/* "<SHA-256 of the roots, one a line>.cache": a single root's is its state record's name. */
static char *cache_name(char *const *roots, size_t root_count)
{
	lo_buf b = LO_BUF_INIT;
	char hex[65], *name = NULL;
	size_t i;

	for (i = 0; i < root_count; i++)
		lo_buf_printf(&b, "%s%s", i ? "\n" : "", roots[i]);
	lo_clean_sha256_mem(b.ptr ? b.ptr : "", b.len, hex);
	lo_buf_dispose(&b);
	if (asprintf(&name, "%s.cache", hex) < 0)
		abort();
	return name;
}

char *lo_cache_file(char *const *roots, size_t root_count, bool create)
{
	char *name = cache_name(roots, root_count), *file = lo_origin_state_path(name, create);

	free(name);
	return file;
}

int lo_cache_clear(char *const *roots, size_t root_count)
{
	char *file = lo_cache_file(roots, root_count, false);
	int err = 0;

	if (file && unlink(file) < 0 && errno != ENOENT)
		err = lo_error_set_errno(LO_ERROR, errno, "cannot remove the verdict cache '%s'", file);
	free(file);
	return err;
}
