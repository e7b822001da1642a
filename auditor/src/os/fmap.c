/*
 * fmap.c - read-only file mappings that survive the file shrinking (see fmap.h).
 *
 * The SIGBUS handler has to find the mapping a faulting address belongs to
 * without taking a lock (the faulting thread may hold any lock there is).
 * Mappings are therefore registered in slots that are never freed or
 * reused: chunks of slots allocated on demand and published with atomics.
 * A slot is live while its `start` is non-zero; `end` is written before
 * `start` is published and never changes after. A scan maps each file
 * once, so the slots cost 24 bytes a file; past LO_FMAP_MAX_SLOTS a mapping
 * is still made, unguarded, as every mapping was before.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/fmap.h"
#include "leftover/os.h"

#define SLOTS_PER_CHUNK 4096
#define CHUNKS 1024
#define LO_FMAP_MAX_SLOTS ((size_t)SLOTS_PER_CHUNK * CHUNKS)
/* Mappings handed to the OS layer at once: as many as Linux's process_madvise takes. */
#define LO_FMAP_RELEASE_BATCH 1024

typedef struct slot {
	_Atomic uintptr_t start; /* 0 when unused or unmapped */
	uintptr_t end;
	atomic_bool shrank;
} slot;

struct lo_fmap {
	void *base; /* the mapping: from the page where data starts */
	size_t len;
	const char *data; /* the bytes asked for */
	size_t size;
	slot *slot; /* NULL past LO_FMAP_MAX_SLOTS */
};

static slot *_Atomic chunks[CHUNKS];
static atomic_size_t slot_count;
static struct sigaction previous;
static uintptr_t page_size;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static slot *slot_for(uintptr_t addr)
{
	size_t i, n = atomic_load(&slot_count);

	for (i = 0; i < n && i < LO_FMAP_MAX_SLOTS; i++) {
		slot *chunk = atomic_load(&chunks[i / SLOTS_PER_CHUNK]);
		uintptr_t start;

		if (!chunk)
			continue;
		start = atomic_load(&chunk[i % SLOTS_PER_CHUNK].start);
		if (start && addr >= start && addr < chunk[i % SLOTS_PER_CHUNK].end)
			return &chunk[i % SLOTS_PER_CHUNK];
	}
	return NULL;
}

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	slot *s = si->si_code == BUS_ADRERR ? slot_for((uintptr_t)si->si_addr) : NULL;

	(void)sig;
	(void)uctx;
	if (s) {
		void *page = (void *)((uintptr_t)si->si_addr & ~(page_size - 1));

		atomic_store(&s->shrank, true);
		/*
		 * mmap is not on POSIX's list of async-signal-safe functions,
		 * but in glibc it is the bare system call; the page of zeros
		 * replaces the vanished one and the read is retried.
		 */
		if (mmap(page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) != MAP_FAILED)
			return;
	}
	/* Not ours: restore what was there; the fault happens again under it. */
	sigaction(SIGBUS, &previous, NULL);
}

static void install(void)
{
	struct sigaction sa;

	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &previous);
}

static slot *slot_new(uintptr_t start, uintptr_t end)
{
	size_t i = atomic_fetch_add(&slot_count, 1);
	slot *chunk, *none = NULL, *s;

	if (i >= LO_FMAP_MAX_SLOTS)
		return NULL;
	if (!(chunk = atomic_load(&chunks[i / SLOTS_PER_CHUNK]))) {
		chunk = lo_xcalloc(SLOTS_PER_CHUNK, sizeof(slot));
		if (!atomic_compare_exchange_strong(&chunks[i / SLOTS_PER_CHUNK], &none, chunk)) {
			free(chunk);
			chunk = none;
		}
	}
	s = &chunk[i % SLOTS_PER_CHUNK];
	s->end = end;
	atomic_store(&s->shrank, false);
	atomic_store(&s->start, start);
	return s;
}

int lo_fmap_new(lo_fmap **out, int fd, size_t offset, size_t size, const char *name)
{
	lo_fmap *m;
	void *base;
	size_t skip;

	*out = NULL;
	pthread_once(&installed, install);
	skip = offset % page_size;
	base = mmap(NULL, size + skip, PROT_READ, MAP_PRIVATE, fd, (off_t)(offset - skip));
	if (base == MAP_FAILED)
		return lo_error_set_errno(LO_ERROR, errno, "cannot map '%s' (%zu bytes at %zu)",
					  name, size, offset);
	m = lo_xcalloc(1, sizeof(*m));
	m->base = base;
	m->len = size + skip;
	m->data = (char *)base + skip;
	m->size = size;
	m->slot = slot_new((uintptr_t)base, (uintptr_t)base + m->len);
	*out = m;
	return 0;
}

void lo_fmap_free(lo_fmap *m)
{
	if (!m)
		return;
	/* unregistered first: once unmapped, the range may be anyone's */
	if (m->slot)
		atomic_store(&m->slot->start, 0);
	munmap(m->base, m->len);
	free(m);
}

const void *lo_fmap_data(const lo_fmap *m) { return m->data; }
size_t lo_fmap_size(const lo_fmap *m) { return m->size; }

bool lo_fmap_shrank(const lo_fmap *m)
{
	return m->slot && atomic_load(&m->slot->shrank);
}

void lo_fmap_release_many(const lo_fmap *const *maps, size_t n)
{
	lo_os_span spans[LO_FMAP_RELEASE_BATCH];
	size_t i, k;

	for (i = 0; i < n; i += k) {
		for (k = 0; k < n - i && k < LO_FMAP_RELEASE_BATCH; k++)
			spans[k] = (lo_os_span){ maps[i + k]->base, maps[i + k]->len };
		lo_os_drop_pages(spans, k);
	}
}
